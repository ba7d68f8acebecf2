// LossScaleOptimizer: Keras's dynamic loss scaling for float16 training
// (tf.keras.mixed_precision.LossScaleOptimizer over a TF >= 2.11 optimizer).
//
// float16 gradients of small losses underflow to zero. The loss is
// therefore multiplied by a loss scale before differentiation
// (GetScaledLoss) and the gradients divided by it after
// (GetUnscaledGradients). With dynamic scaling (the default) the scale
// starts at 2^15; after `dynamic_growth_steps` (2000) consecutive steps with
// finite gradients it doubles (unless that overflows), and a step with any
// Inf or NaN gradient is skipped and halves the scale (never below 1).
// A skipped step still advances the wrapped optimizer's iterations, as in
// Keras. With a fixed scale (dynamic = false) every step is applied.
//
// It is an Optimizer: iterations, learning rate, slots and variables are the
// wrapped optimizer's, so a training loop written against Optimizer takes
// it unchanged, and ComputeScaledGradients below scales and unscales only
// when the optimizer is one. WrapOptimizerForPolicy wraps an optimizer when
// the dtype policy is mixed_float16, as Keras's compile() does.
//
// Distribution, in tf-keras 2.21's order: each replica unscales its own
// gradients (Keras's compute_gradients), the unscaled gradients are summed
// across replicas, and the summed ones are tested for Inf and NaN
// (ApplyAggregatedGradients). Every replica receives the same sum, bit
// for bit (the invariant that keeps mirrored copies identical), so every
// replica reaches the same verdict without a collective of its own and
// skips or applies the step with the others. The scale state
// (current_loss_scale, good_steps) is updated once, in a MergeCall.
// Minimize overlaps the gradient all-reduce with the backward pass as a
// plain optimizer's does (optimizer.h): each gradient is unscaled as soon
// as it is final and handed to the all-reduce, so the results are the
// same bits with overlap on or off, skipped steps and growth included.
//
// Thread safety: as Optimizer.
//
//   TFD_ASSIGN_OR_RETURN(auto opt, LossScaleOptimizer::Create(adam));
//   GradientTape tape;
//   ... loss ...
//   TFD_ASSIGN_OR_RETURN(Tensor scaled, opt->GetScaledLoss(loss));
//   TFD_ASSIGN_OR_RETURN(auto grads, tape.Gradient(scaled, sources));
//   TFD_ASSIGN_OR_RETURN(grads, opt->GetUnscaledGradients(grads));
//   TFD_RETURN_IF_ERROR(opt->ApplyGradients(grads, vars));
#ifndef TFD_CORE_NN_LOSS_SCALE_OPTIMIZER_H_
#define TFD_CORE_NN_LOSS_SCALE_OPTIMIZER_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/autodiff/gradient_tape.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/optimizer.h"

namespace tfd {
namespace nn {

struct LossScaleOptions {
  bool dynamic = true;
  // Default 2^15 when dynamic; required when not.
  std::optional<double> initial_scale;
  // Default 2000 when dynamic; must be unset when not.
  std::optional<int64_t> dynamic_growth_steps;
};

class LossScaleOptimizer : public Optimizer {
 public:
  // Wraps `inner`. INVALID_ARGUMENT (Keras's messages where Keras has one)
  // for a null inner optimizer or one that is a LossScaleOptimizer, a fixed
  // scale without initial_scale, growth
  // steps with a fixed scale, or a scale or growth step count below 1.
  // Creates the scale state with the current strategy: create it in the
  // strategy's scope, as Keras asks.
  static absl::StatusOr<std::shared_ptr<LossScaleOptimizer>> Create(
      std::shared_ptr<Optimizer> inner, LossScaleOptions options = LossScaleOptions());

  Optimizer& inner_optimizer() const { return *inner_; }
  bool dynamic() const { return options_.dynamic; }
  int64_t dynamic_growth_steps() const { return growth_steps_; }
  // The current scale and the count of finite steps since it last changed.
  absl::StatusOr<float> LossScale() const;
  absl::StatusOr<int64_t> DynamicCounter() const;
  // The state variables (Keras's "current_loss_scale", "good_steps"); null
  // for a fixed scale.
  std::shared_ptr<DistributedVariable> current_loss_scale() const { return scale_; }
  std::shared_ptr<DistributedVariable> good_steps() const { return counter_; }

  // loss * scale, the scale cast to loss's dtype. Call it under the tape.
  absl::StatusOr<Tensor> GetScaledLoss(const Tensor& loss) const;
  // Each defined gradient times (1 / scale), the reciprocal computed in
  // float32 and cast to the gradient's dtype; undefined ones stay undefined.
  absl::StatusOr<std::vector<Tensor>> GetUnscaledGradients(absl::Span<const Tensor> grads) const;

  // ApplyGradients (inherited) sums the unscaled gradients across
  // replicas and calls this. It tests the summed gradients (see the file
  // comment), updates the scale and applies them with the wrapped
  // optimizer, or skips the step. Errors of the wrapped optimizer, and
  // INVALID_ARGUMENT as Optimizer::CheckGradients.
  absl::Status ApplyAggregatedGradients(absl::Span<const Tensor> grads,
                                        absl::Span<DistributedVariable* const> vars) override;

  // Scales the loss on `tape`, then Optimizer::Minimize's paths with each
  // gradient unscaled before the all-reduce (during the backward pass
  // when the strategy overlaps), then ApplyAggregatedGradients.
  using Optimizer::Minimize;
  absl::Status Minimize(const Tensor& loss, absl::Span<DistributedVariable* const> vars,
                        GradientTape& tape) override;

  // The rest is the wrapped optimizer's.
  absl::Status Build(absl::Span<DistributedVariable* const> vars) override;
  bool built() const override { return inner_->built(); }
  std::shared_ptr<DistributedVariable> iterations() const override;
  absl::StatusOr<int64_t> Iterations() const override;
  LearningRate learning_rate() const override;
  absl::StatusOr<float> CurrentLearningRate() const override;
  absl::Status SetLearningRate(float learning_rate) override;
  std::shared_ptr<DistributedVariable> GetSlot(const DistributedVariable& var,
                                               absl::string_view slot_name) const override;
  std::vector<std::shared_ptr<DistributedVariable>> variables() const override;

 protected:
  // Never reached: Build and ApplyGradients go to the wrapped optimizer.
  absl::Status CreateSlots(absl::Span<DistributedVariable* const> vars) override;
  absl::Status UpdateStep(const UpdateArgs& args) override;

 private:
  LossScaleOptimizer(std::shared_ptr<Optimizer> inner, LossScaleOptions options,
                     int64_t growth_steps);

  // g * reciprocal, the float32 reciprocal cast to g's dtype (Keras's
  // _multiply_gradient).
  static absl::StatusOr<Tensor> Unscaled(const Tensor& g, float reciprocal);
  // Whether every defined gradient is finite (this replica's view; no
  // collective).
  absl::StatusOr<bool> AllFinite(absl::Span<const Tensor> grads) const;
  // Keras's _DynamicLossScaleState.update; also advances the wrapped
  // optimizer's iterations when the step is skipped. Cross-replica context.
  absl::Status UpdateScale(bool finite, absl::Span<DistributedVariable* const> vars);

  const std::shared_ptr<Optimizer> inner_;
  const LossScaleOptions options_;
  const int64_t growth_steps_;
  std::shared_ptr<DistributedVariable> scale_;    // float32 scalar
  std::shared_ptr<DistributedVariable> counter_;  // int64 scalar
};

// `optimizer` wrapped in a dynamic LossScaleOptimizer when `policy` is
// mixed_float16 and it is not one already (Keras's compile()), else
// `optimizer` itself.
absl::StatusOr<std::shared_ptr<Optimizer>> WrapOptimizerForPolicy(
    std::shared_ptr<Optimizer> optimizer, const DTypePolicy& policy);

// The gradients of `loss` with respect to `sources` for `optimizer`: the
// scaled loss differentiated and the gradients unscaled when the optimizer
// is a LossScaleOptimizer, plain tape.Gradient otherwise (Keras's
// optimizer.compute_gradients). `tape` must be recording while this runs,
// so that the scaling is on it.
absl::StatusOr<std::vector<Tensor>> ComputeScaledGradients(
    const Optimizer& optimizer, GradientTape& tape, const Tensor& loss,
    const std::vector<const Variable*>& sources);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_LOSS_SCALE_OPTIMIZER_H_
