// Optimizer: the base of tfd's Keras optimizers (tf.keras.optimizers of
// TensorFlow >= 2.11): learning rate (constant or schedule), the int64
// `iterations` counter, slot variables, gradient clipping, decoupled
// weight decay, and ApplyGradients with tf.distribute's semantics.
//
// Variables. Build(vars) creates, once, the counter ("iteration") and each
// subclass's slots ("m", "v", "velocity", ...; named
// "<optimizer>/<slot>/<variable>") with distribute::CreateVariable under
// the current strategy, so a slot has the same components as its variable.
// ApplyGradients builds lazily on first use (inside a MergeCall when it is
// called in a replica context). After that, a variable not seen by Build is
// an error, as in Keras.
//
// ApplyGradients(grads, vars), following Keras:
//   1. undefined gradients are dropped (all undefined is an error);
//   2. in a replica context the gradients are summed across replicas with
//      ONE ReplicaContext::AllReduce(SUM) call (the strategy may bucket);
//   3. they are clipped (clipnorm, else global_clipnorm, else clipvalue);
//   4. each variable gets weight decay (var -= var * wd * lr) when
//      configured, then the subclass's fused update op, at
//      lr = learning_rate.At(iterations). Variables on a GPU are updated
//      by the subclass's multi-tensor op when it has one (GroupedUpdate):
//      all of one dtype on one device together, one kernel launch per up
//      to 48 of them, instead of one op each (multi_tensor_update_plan.h);
//      host variables keep their op each;
//   5. iterations += 1.
// In a replica context the gradients go to the all-reduce in reverse
// variable order (Note [Gradient all-reduce order],
// gradient_all_reduce.h).
//
// Minimize(loss, vars, tape) (Keras's optimizer.minimize) differentiates
// and applies in one call. In a replica context of a strategy whose
// CommunicationOptions::overlap_backward_pass is on, it starts the
// gradient all-reduce before the backward pass and hands each gradient in
// as soon as the tape reports it final, so the collectives reduce the
// last layers' buckets while the first layers are still differentiated
// (PyTorch DDP's bucketed hooks; TensorFlow's CollectiveAllReduce with
// gradient packing); the results are the same bits as without overlap.
// It takes the plain path (tape.Gradient, then ApplyGradients) when
// overlap is off, outside a replica context, when some variable gets no
// gradient, and when the backward pass communicates itself (synchronized
// batch normalization); gradient_all_reduce.h says why. A
// LossScaleOptimizer overlaps too: it unscales each gradient as it is
// handed in, and tests the summed ones (loss_scale_optimizer.h).
// A variable with one component per replica (mirrored) is updated by each
// replica on its own component, with the same all-reduced gradient, which
// keeps the copies identical. A variable with a single component (central
// storage, the default strategy) is updated once, inside a MergeCall. In
// cross-replica context (no replica context) every component is updated.
//
// The public calls are virtual so that a wrapper (LossScaleOptimizer,
// loss_scale_optimizer.h) can stand wherever an Optimizer is expected and
// forward to the optimizer it wraps; ApplyGradients is not: it is always
// the all-reduce followed by the virtual ApplyAggregatedGradients, so a
// wrapper sees the summed gradients, as Keras's LossScaleOptimizer does.
//
// Thread safety: ApplyGradients may run on all replica threads of one
// Strategy::Run at once; other calls are thread-safe. Variables passed in
// must outlive the optimizer's use of them (they are keyed by address).
//
//   TFD_ASSIGN_OR_RETURN(auto opt, Adam::Create(AdamOptions()));
//   GradientTape tape;
//   ...loss...
//   TFD_ASSIGN_OR_RETURN(auto grads, tape.Gradient(loss, sources));
//   TFD_RETURN_IF_ERROR(opt->ApplyGradients(grads, vars));
#ifndef TFD_CORE_NN_OPTIMIZER_H_
#define TFD_CORE_NN_OPTIMIZER_H_

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/autodiff/gradient_tape.h"
#include "core/distribute/distributed_variable.h"
#include "core/framework/attr_value.h"
#include "core/framework/tensor.h"
#include "core/framework/variable.h"
#include "core/nn/gradient_all_reduce.h"
#include "core/nn/learning_rate_schedule.h"

namespace tfd {
namespace nn {

using distribute::DistributedVariable;

// The hyperparameters every optimizer has (Keras's base keyword args).
struct OptimizerOptions {
  // Decoupled weight decay: var -= var * weight_decay * lr before each
  // update (weight_decay rounded to float32, as Keras's tf.cast does).
  // Unset: none.
  std::optional<double> weight_decay;
  // At most one of clipnorm and global_clipnorm may be set. When several
  // clips are set, only the first of clipnorm, global_clipnorm, clipvalue
  // applies (Keras's order); values <= 0 disable a clip.
  std::optional<double> clipnorm;
  std::optional<double> clipvalue;
  std::optional<double> global_clipnorm;
  // Variables whose name contains any of these are not decayed (Keras
  // matches them as regular expressions; tfd as substrings).
  std::vector<std::string> exclude_from_weight_decay;
};

class Optimizer {
 public:
  virtual ~Optimizer() = default;
  Optimizer(const Optimizer&) = delete;
  Optimizer& operator=(const Optimizer&) = delete;

  const std::string& name() const { return name_; }
  const OptimizerOptions& options() const { return options_; }

  // Creates the iteration counter and the slots of `vars` under the current
  // strategy; a no-op once built. Call it in cross-replica context (in the
  // strategy's scope). FAILED_PRECONDITION when a slot's component count
  // differs from its variable's (the optimizer was built under another
  // strategy than the variable's); errors of CreateVariable.
  virtual absl::Status Build(absl::Span<DistributedVariable* const> vars);
  virtual bool built() const { return built_.load(std::memory_order_acquire); }

  // Applies one step (see the file comment). grads[i] is the gradient of
  // vars[i] (same dtype and shape) or undefined. Errors: INVALID_ARGUMENT
  // for mismatched lists, shapes or dtypes, all-undefined gradients, or a
  // variable unknown to the built optimizer; FAILED_PRECONDITION for
  // components that match neither one per replica nor one; errors of the
  // strategy's collectives. A call with no pairs at all does nothing.
  // In a replica context it is the all-reduce, then
  // ApplyAggregatedGradients; outside one, ApplyAggregatedGradients.
  absl::Status ApplyGradients(absl::Span<const Tensor> grads,
                              absl::Span<DistributedVariable* const> vars);
  absl::Status ApplyGradients(absl::Span<const Tensor> grads,
                              const std::vector<std::shared_ptr<DistributedVariable>>& vars);

  // ApplyGradients of gradients already summed across replicas (Keras's
  // apply_gradients with skip_gradients_aggregation=True): steps 1 and
  // 3-5. In a replica context every replica must pass the same values, as
  // an all-reduce returns them. Errors: ApplyGradients's, but none of the
  // collectives.
  virtual absl::Status ApplyAggregatedGradients(absl::Span<const Tensor> grads,
                                                absl::Span<DistributedVariable* const> vars);

  // Differentiates `loss` with respect to `vars` (this replica's
  // components) on `tape` and applies the step (see the file comment).
  // `tape` must have recorded `loss` and still be recording (a
  // LossScaleOptimizer scales the loss on it); it is used up (one
  // Gradient call) and stops recording. Errors: those of
  // tape.Gradient and ApplyGradients.
  virtual absl::Status Minimize(const Tensor& loss, absl::Span<DistributedVariable* const> vars,
                                GradientTape& tape);
  absl::Status Minimize(const Tensor& loss,
                        const std::vector<std::shared_ptr<DistributedVariable>>& vars,
                        GradientTape& tape);

  // The step counter; null before Build.
  virtual std::shared_ptr<DistributedVariable> iterations() const;
  // Its value as this thread sees it (0 before Build). Known on the host
  // after the first read (Note [Host step] in the .cc): a step reads no
  // device memory for it.
  virtual absl::StatusOr<int64_t> Iterations() const;

  virtual LearningRate learning_rate() const;
  // The rate of the next update: the constant, or the schedule at
  // Iterations().
  virtual absl::StatusOr<float> CurrentLearningRate() const;
  // Replaces a constant rate. FAILED_PRECONDITION when the optimizer was
  // created with a schedule (Keras's TypeError).
  virtual absl::Status SetLearningRate(float learning_rate);

  // `grads` (all defined) clipped as ApplyGradients clips them: clipnorm,
  // else global_clipnorm, else clipvalue; unchanged with no clip set. The
  // workers of a parameter-server job clip before they send. Errors of
  // the clip ops (INVALID_ARGUMENT for non-float gradients).
  absl::StatusOr<std::vector<Tensor>> ClipGradients(std::vector<Tensor> grads) const;
  // Whether an update of `var` decays it first: weight_decay is set and
  // no exclude_from_weight_decay pattern is in its name.
  bool DecaysWeight(const DistributedVariable& var) const;
  // The slot `slot_name` of `var`, or null when there is none.
  virtual std::shared_ptr<DistributedVariable> GetSlot(const DistributedVariable& var,
                                                       absl::string_view slot_name) const;
  // The counter, then the slots in creation order (Keras's `variables`,
  // whose order its save_own_variables uses).
  virtual std::vector<std::shared_ptr<DistributedVariable>> variables() const;

 protected:
  Optimizer(std::string name, LearningRate learning_rate, OptimizerOptions options);

  // INVALID_ARGUMENT when clipnorm and global_clipnorm are both set
  // (Keras's message); subclasses' Create calls it.
  static absl::Status ValidateOptions(const OptimizerOptions& options);

  // What ApplyGradients refuses (see there): INVALID_ARGUMENT for lists of
  // different lengths, a null variable, a defined gradient whose dtype or
  // shape is not its variable's, or no defined gradient at all. Two empty
  // lists pass.
  absl::Status CheckGradients(absl::Span<const Tensor> grads,
                              absl::Span<DistributedVariable* const> vars) const;

  // Minimize with `transform` applied to each of this replica's gradients
  // before they are summed across replicas, on both paths; null: none.
  // A LossScaleOptimizer's Minimize is this on the scaled loss, with the
  // unscaling as `transform`.
  absl::Status MinimizeWithTransform(const Tensor& loss,
                                     absl::Span<DistributedVariable* const> vars,
                                     GradientTape& tape, const GradientTransform& transform);

  // Subclasses create their slots here, in Keras's order, with AddSlot.
  virtual absl::Status CreateSlots(absl::Span<DistributedVariable* const> vars) = 0;
  // A slot of var's shape and dtype filled with `initial_value`.
  absl::Status AddSlot(const DistributedVariable& var, const std::string& slot_name,
                       double initial_value = 0.0);

  // What one update of one variable component sees.
  struct UpdateArgs {
    const Tensor& grad;
    Variable& var;
    // The same component of each of var's slots, in the order AddSlot
    // created them for this variable.
    std::vector<Variable*> slots;
    int64_t step;               // iterations before this update
    float learning_rate;        // float32, as Keras's learning-rate variable
  };
  virtual absl::Status UpdateStep(const UpdateArgs& args) = 0;

  // The multi-tensor form of UpdateStep for variables of `dtype`
  // (core/kernels/multi_tensor_training_ops.cc): the op, its attrs and its
  // host scalars at this step and rate. Its inputs are then the variables,
  // each slot list in AddSlot's order, the gradients, and these scalars.
  struct GroupedUpdateOp {
    std::string op;
    AttrMap attrs;
    std::vector<Tensor> scalars;
  };
  // nullopt (the default): the variables are updated one by one.
  virtual std::optional<GroupedUpdateOp> GroupedUpdate(DataType dtype, int64_t step,
                                                       float learning_rate) const {
    return std::nullopt;
  }

  // One input of a fused update op: a variable (updated in place, see
  // core/kernels/training_ops.cc) or a tensor.
  struct OpInput {
    OpInput(Variable* v) : variable(v) {}               // NOLINT(runtime/explicit)
    OpInput(Tensor t) : tensor(std::move(t)) {}         // NOLINT(runtime/explicit)
    Variable* variable = nullptr;
    Tensor tensor;
  };
  // Runs `op` on the first variable's device with every variable input
  // locked and replaced by its private buffer (Variable::MutableValue).
  static absl::Status RunUpdateOp(absl::string_view op, std::vector<OpInput> inputs,
                                  const AttrMap& attrs = AttrMap());
  // A host scalar of `dtype` (float, double, half, bfloat16) holding value.
  static absl::StatusOr<Tensor> Scalar(DataType dtype, double value);

 private:
  struct SlotSet {
    std::vector<std::pair<std::string, std::shared_ptr<DistributedVariable>>> slots;
  };

  absl::Status BuildLocked(absl::Span<DistributedVariable* const> vars);
  // Steps 3-5 of ApplyGradients on gradients already summed across
  // replicas: kept[i] (defined) for kept_vars[i]; `vars` are all the
  // variables of the call (the optimizer builds for all of them).
  absl::Status ApplyReducedGradients(std::vector<Tensor> kept,
                                     std::vector<DistributedVariable*> kept_vars,
                                     absl::Span<DistributedVariable* const> vars);
  // One variable component to update with `grad`.
  struct ComponentUpdate {
    const Tensor* grad;
    DistributedVariable* var;
    int component;
  };
  // Updates every component of `updates`: multi-tensor ops for groups of
  // GPU variables, UpdateComponent for the others.
  absl::Status UpdateComponents(const std::vector<ComponentUpdate>& updates, int64_t step,
                                float lr);
  // Weight decay and the update of component `c` of `var`.
  absl::Status UpdateComponent(const Tensor& grad, DistributedVariable& var, int c,
                               int64_t step, float lr);
  // var -= var * wd * lr on component `c`, when `var` decays.
  absl::Status DecayWeight(DistributedVariable& var, int c, float lr);
  const SlotSet* FindSlots(const DistributedVariable& var) const;
  // Adds 1 to a component of the step counter that held `step`, on its
  // device, and remembers step + 1 (Note [Host step]).
  absl::Status AdvanceStep(Variable& counter, int64_t step) const;

  // Note [Host step]: the count of each counter component as last read or
  // advanced here, with the snapshot it belongs to.
  struct KnownStep {
    Tensor snapshot;
    int64_t value = 0;
  };

  const std::string name_;
  const OptimizerOptions options_;
  std::atomic<bool> built_{false};
  mutable absl::Mutex mu_;
  LearningRate learning_rate_ ABSL_GUARDED_BY(mu_);
  std::shared_ptr<DistributedVariable> iterations_ ABSL_GUARDED_BY(mu_);
  std::map<const DistributedVariable*, SlotSet> slots_ ABSL_GUARDED_BY(mu_);
  std::vector<std::shared_ptr<DistributedVariable>> variables_ ABSL_GUARDED_BY(mu_);
  mutable absl::Mutex known_steps_mu_;
  mutable std::map<const Variable*, KnownStep> known_steps_ ABSL_GUARDED_BY(known_steps_mu_);
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_OPTIMIZER_H_
