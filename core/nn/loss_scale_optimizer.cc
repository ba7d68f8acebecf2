#include "core/nn/loss_scale_optimizer.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "core/distribute/strategy.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {
namespace {

constexpr double kDefaultInitialScale = 32768.0;  // 2^15
constexpr int64_t kDefaultGrowthSteps = 2000;
constexpr float kMultiplier = 2.0f;

using distribute::ReplicaContext;

template <typename T>
absl::StatusOr<T> HostScalar(const DistributedVariable& var) {
  TFD_ASSIGN_OR_RETURN(Tensor host, var.Local().Peek().CopyTo(HostDevice()));
  return host.scalar<T>();
}

// Named as Keras names them ("current_loss_scale", "good_steps"), which
// checkpoints record as the variables' full names.
absl::StatusOr<std::shared_ptr<DistributedVariable>> StateVariable(const char* name, Tensor init) {
  distribute::VariableSpec spec;
  spec.name = name;
  spec.initial_value = [init]() -> absl::StatusOr<Tensor> { return init; };
  spec.trainable = false;
  return distribute::CreateVariable(spec);
}

// 0 when every element of `g` is finite, NaN otherwise: g * 0 is NaN
// exactly at Inf and NaN elements, and a sum with a NaN term is NaN.
absl::StatusOr<Tensor> NonFiniteProbe(const Tensor& g) {
  TFD_ASSIGN_OR_RETURN(Tensor zero, Execute1("Cast", {Tensor::Scalar<float>(0.0f)},
                                             AttrMap().Set("DstT", g.dtype())));
  TFD_ASSIGN_OR_RETURN(Tensor zeros, Execute1("Mul", {g, zero}));
  std::vector<int32_t> axes(g.rank());
  for (int i = 0; i < g.rank(); ++i) axes[i] = i;
  TFD_ASSIGN_OR_RETURN(Tensor axes_t,
                       Tensor::FromVector(axes, {static_cast<int64_t>(axes.size())}));
  TFD_ASSIGN_OR_RETURN(Tensor sum, Execute1("Sum", {zeros, axes_t}));
  return Execute1("Cast", {sum}, AttrMap().Set("DstT", DT_FLOAT));
}

}  // namespace

absl::StatusOr<Tensor> LossScaleOptimizer::Unscaled(const Tensor& g, float reciprocal) {
  TFD_ASSIGN_OR_RETURN(Tensor r, Scalar(g.dtype(), reciprocal));
  return Execute1("Mul", {g, r});
}

absl::StatusOr<std::shared_ptr<LossScaleOptimizer>> LossScaleOptimizer::Create(
    std::shared_ptr<Optimizer> inner, LossScaleOptions options) {
  if (inner == nullptr) return InvalidArgument("LossScaleOptimizer: inner_optimizer is null");
  if (dynamic_cast<LossScaleOptimizer*>(inner.get()) != nullptr) {
    return InvalidArgument(
        "LossScaleOptimizer cannot wrap another LossScaleOptimizer: \"inner_optimizer\" is "
        "already one");
  }
  int64_t growth_steps = 0;
  if (options.dynamic) {
    if (!options.initial_scale.has_value()) options.initial_scale = kDefaultInitialScale;
    growth_steps = options.dynamic_growth_steps.value_or(kDefaultGrowthSteps);
    if (growth_steps < 1) {
      return InvalidArgument("LossScaleOptimizer: dynamic_growth_steps must be at least 1, got ",
                             growth_steps);
    }
  } else {
    if (!options.initial_scale.has_value()) {
      return InvalidArgument("\"initial_scale\" must be specified if \"dynamic\" is False");
    }
    if (options.dynamic_growth_steps.has_value()) {
      return InvalidArgument(
          "\"dynamic_growth_steps\" must be None if \"dynamic\" is False, but got: ",
          *options.dynamic_growth_steps);
    }
  }
  if (!(*options.initial_scale >= 1.0) || !std::isfinite(*options.initial_scale)) {
    return InvalidArgument("LossScaleOptimizer: initial_scale must be finite and at least 1, got ",
                           *options.initial_scale);
  }
  std::shared_ptr<LossScaleOptimizer> opt(
      new LossScaleOptimizer(std::move(inner), options, growth_steps));
  const float initial = static_cast<float>(*options.initial_scale);
  TFD_ASSIGN_OR_RETURN(opt->scale_,
                       StateVariable("current_loss_scale", Tensor::Scalar<float>(initial)));
  if (options.dynamic) {
    TFD_ASSIGN_OR_RETURN(opt->counter_, StateVariable("good_steps", Tensor::Scalar<int64_t>(0)));
  }
  return opt;
}

LossScaleOptimizer::LossScaleOptimizer(std::shared_ptr<Optimizer> inner, LossScaleOptions options,
                                       int64_t growth_steps)
    : Optimizer("LossScaleOptimizer", inner->learning_rate(), OptimizerOptions()),
      inner_(std::move(inner)),
      options_(options),
      growth_steps_(growth_steps) {}

absl::StatusOr<float> LossScaleOptimizer::LossScale() const { return HostScalar<float>(*scale_); }

absl::StatusOr<int64_t> LossScaleOptimizer::DynamicCounter() const {
  if (counter_ == nullptr) return 0;
  return HostScalar<int64_t>(*counter_);
}

absl::StatusOr<Tensor> LossScaleOptimizer::GetScaledLoss(const Tensor& loss) const {
  if (!loss.defined()) return InvalidArgument("LossScaleOptimizer: the loss is undefined");
  TFD_ASSIGN_OR_RETURN(Tensor scale,
                       Execute1("Cast", {scale_->Local().Peek()}, AttrMap().Set("DstT", loss.dtype())));
  return Execute1("Mul", {loss, scale});
}

absl::StatusOr<std::vector<Tensor>> LossScaleOptimizer::GetUnscaledGradients(
    absl::Span<const Tensor> grads) const {
  TFD_ASSIGN_OR_RETURN(float scale, LossScale());
  const float reciprocal = 1.0f / scale;  // float32, as Keras's 1.0 / loss_scale
  std::vector<Tensor> out;
  out.reserve(grads.size());
  for (const Tensor& g : grads) {
    if (!g.defined()) {
      out.emplace_back();
      continue;
    }
    TFD_ASSIGN_OR_RETURN(Tensor unscaled, Unscaled(g, reciprocal));
    out.push_back(std::move(unscaled));
  }
  return out;
}

absl::StatusOr<bool> LossScaleOptimizer::AllFinite(absl::Span<const Tensor> grads) const {
  std::vector<Tensor> probes;
  for (const Tensor& g : grads) {
    if (!g.defined()) continue;
    TFD_ASSIGN_OR_RETURN(Tensor probe, NonFiniteProbe(g));
    probes.push_back(std::move(probe));
  }
  if (probes.empty()) return true;
  TFD_ASSIGN_OR_RETURN(Tensor sum, probes.size() == 1 ? probes[0] : Execute1("AddN", probes));
  TFD_ASSIGN_OR_RETURN(Tensor host, sum.CopyTo(HostDevice()));
  return !std::isnan(host.scalar<float>());
}

absl::Status LossScaleOptimizer::UpdateScale(bool finite,
                                             absl::Span<DistributedVariable* const> vars) {
  TFD_ASSIGN_OR_RETURN(const float scale, LossScale());
  TFD_ASSIGN_OR_RETURN(const int64_t counter, DynamicCounter());
  if (finite) {
    if (counter + 1 >= growth_steps_) {
      const float grown = scale * kMultiplier;
      if (std::isfinite(grown)) TFD_RETURN_IF_ERROR(scale_->AssignAll(Tensor::Scalar(grown)));
      return counter_->AssignAll(Tensor::Scalar<int64_t>(0));
    }
    return counter_->AssignAll(Tensor::Scalar<int64_t>(counter + 1));
  }
  TFD_RETURN_IF_ERROR(counter_->AssignAll(Tensor::Scalar<int64_t>(0)));
  TFD_RETURN_IF_ERROR(scale_->AssignAll(Tensor::Scalar(std::max(scale / kMultiplier, 1.0f))));
  // The skipped step still counts, as Keras's do_not_apply_fn.
  TFD_RETURN_IF_ERROR(inner_->Build(vars));
  TFD_ASSIGN_OR_RETURN(const int64_t step, inner_->Iterations());
  return inner_->iterations()->AssignAll(Tensor::Scalar<int64_t>(step + 1));
}

absl::Status LossScaleOptimizer::ApplyAggregatedGradients(
    absl::Span<const Tensor> grads, absl::Span<DistributedVariable* const> vars) {
  TFD_RETURN_IF_ERROR(CheckGradients(grads, vars));
  if (vars.empty()) return absl::OkStatus();
  if (!options_.dynamic) return inner_->ApplyAggregatedGradients(grads, vars);
  // The gradients are the all-reduced ones, the same bits on every
  // replica, so every replica's verdict is replica 0's, which the
  // MergeCall below uses for the scale (as Keras takes the first
  // replica's).
  TFD_ASSIGN_OR_RETURN(const bool finite, AllFinite(grads));
  ReplicaContext* ctx = distribute::CurrentReplicaContext();
  auto update = [&]() { return UpdateScale(finite, vars); };
  TFD_RETURN_IF_ERROR(ctx != nullptr ? ctx->MergeCall(update) : update());
  if (!finite) return absl::OkStatus();
  return inner_->ApplyAggregatedGradients(grads, vars);
}

absl::Status LossScaleOptimizer::Minimize(const Tensor& loss,
                                          absl::Span<DistributedVariable* const> vars,
                                          GradientTape& tape) {
  TFD_ASSIGN_OR_RETURN(Tensor scaled, GetScaledLoss(loss));
  // The scale changes only in the MergeCall of ApplyAggregatedGradients,
  // which no replica passes before every replica has unscaled: read once.
  TFD_ASSIGN_OR_RETURN(const float scale, LossScale());
  const float reciprocal = 1.0f / scale;  // float32, as Keras's 1.0 / loss_scale
  return MinimizeWithTransform(
      scaled, vars, tape, [reciprocal](const Tensor& g) { return Unscaled(g, reciprocal); });
}

absl::Status LossScaleOptimizer::Build(absl::Span<DistributedVariable* const> vars) {
  return inner_->Build(vars);
}

std::shared_ptr<DistributedVariable> LossScaleOptimizer::iterations() const {
  return inner_->iterations();
}

absl::StatusOr<int64_t> LossScaleOptimizer::Iterations() const { return inner_->Iterations(); }

LearningRate LossScaleOptimizer::learning_rate() const { return inner_->learning_rate(); }

absl::StatusOr<float> LossScaleOptimizer::CurrentLearningRate() const {
  return inner_->CurrentLearningRate();
}

absl::Status LossScaleOptimizer::SetLearningRate(float learning_rate) {
  return inner_->SetLearningRate(learning_rate);
}

std::shared_ptr<DistributedVariable> LossScaleOptimizer::GetSlot(
    const DistributedVariable& var, absl::string_view slot_name) const {
  return inner_->GetSlot(var, slot_name);
}

std::vector<std::shared_ptr<DistributedVariable>> LossScaleOptimizer::variables() const {
  return inner_->variables();
}

absl::Status LossScaleOptimizer::CreateSlots(absl::Span<DistributedVariable* const>) {
  return Internal(name(), ": slots belong to the wrapped optimizer");
}

absl::Status LossScaleOptimizer::UpdateStep(const UpdateArgs&) {
  return Internal(name(), ": updates are made by the wrapped optimizer");
}

absl::StatusOr<std::shared_ptr<Optimizer>> WrapOptimizerForPolicy(
    std::shared_ptr<Optimizer> optimizer, const DTypePolicy& policy) {
  if (optimizer == nullptr) return InvalidArgument("WrapOptimizerForPolicy: optimizer is null");
  if (policy.name() != "mixed_float16" ||
      dynamic_cast<LossScaleOptimizer*>(optimizer.get()) != nullptr) {
    return optimizer;
  }
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<LossScaleOptimizer> wrapped,
                       LossScaleOptimizer::Create(std::move(optimizer)));
  return std::shared_ptr<Optimizer>(std::move(wrapped));
}

absl::StatusOr<std::vector<Tensor>> ComputeScaledGradients(
    const Optimizer& optimizer, GradientTape& tape, const Tensor& loss,
    const std::vector<const Variable*>& sources) {
  const auto* lso = dynamic_cast<const LossScaleOptimizer*>(&optimizer);
  if (lso == nullptr) return tape.Gradient(loss, sources);
  TFD_ASSIGN_OR_RETURN(Tensor scaled, lso->GetScaledLoss(loss));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads, tape.Gradient(scaled, sources));
  return lso->GetUnscaledGradients(grads);
}

}  // namespace nn
}  // namespace tfd
