#include "core/nn/optimizer.h"

#include <algorithm>
#include <optional>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/distribute/strategy.h"
#include "core/framework/execute.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/nn/clip_ops.h"
#include "core/nn/gradient_all_reduce.h"
#include "core/nn/multi_tensor_update_plan.h"

namespace tfd {
namespace nn {
namespace {

using distribute::ReplicaContext;
using distribute::VariableSpec;

// A host tensor of var's dtype and shape filled with `value`.
absl::StatusOr<Tensor> Filled(DataType dtype, const TensorShape& shape, double value) {
  TFD_ASSIGN_OR_RETURN(Tensor t, Tensor::Allocate(dtype, shape));
  const int64_t n = t.NumElements();
  switch (dtype) {
    case DT_FLOAT:
      std::fill_n(t.data<float>(), n, static_cast<float>(value));
      break;
    case DT_DOUBLE:
      std::fill_n(t.data<double>(), n, value);
      break;
    case DT_HALF:
      std::fill_n(t.data<half>(), n, half(static_cast<float>(value)));
      break;
    case DT_BFLOAT16:
      std::fill_n(t.data<bfloat16>(), n, bfloat16(static_cast<float>(value)));
      break;
    default:
      return InvalidArgument("optimizers update floating-point variables, got ",
                             DataTypeName(dtype));
  }
  return t;
}

std::vector<std::string> Names(absl::Span<DistributedVariable* const> vars) {
  std::vector<std::string> names;
  for (const DistributedVariable* v : vars) names.push_back(v->name());
  return names;
}

}  // namespace

Optimizer::Optimizer(std::string name, LearningRate learning_rate, OptimizerOptions options)
    : name_(std::move(name)), options_(std::move(options)), learning_rate_(std::move(learning_rate)) {}

absl::Status Optimizer::ValidateOptions(const OptimizerOptions& options) {
  if (options.clipnorm.has_value() && options.global_clipnorm.has_value()) {
    return InvalidArgument("At most one of `clipnorm` and `global_clipnorm` can be set. "
                           "Received: clipnorm=",
                           *options.clipnorm, ", global_clipnorm=", *options.global_clipnorm,
                           ".");
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Optimizer::Scalar(DataType dtype, double value) {
  return Filled(dtype, TensorShape(), value);
}

std::shared_ptr<DistributedVariable> Optimizer::iterations() const {
  absl::MutexLock lock(&mu_);
  return iterations_;
}

// Note [Host step]. Every update needs the step count on the host (the
// learning rate schedule, Adam's bias corrections), but the counter lives
// with the variables, on a GPU when they are there, and reading it would
// wait for the whole queue of the GPU in the middle of each step. So the
// optimizer remembers the count it last read or wrote for each counter
// component together with a snapshot of the component's value: as long as
// the component still holds that buffer, the count is the one remembered.
// The snapshot also keeps any write from happening in place (a Variable
// installs a new buffer when its old one is shared, variable.h), so a
// count changed by anyone else -- a restore, an assignment -- is seen as
// a new buffer and read once.
absl::StatusOr<int64_t> Optimizer::Iterations() const {
  std::shared_ptr<DistributedVariable> it = iterations();
  if (it == nullptr) return 0;
  const Variable& local = it->Local();
  const Tensor now = local.Peek();
  {
    absl::MutexLock lock(&known_steps_mu_);
    auto known = known_steps_.find(&local);
    if (known != known_steps_.end() && known->second.snapshot.SharesBufferWith(now)) {
      return known->second.value;
    }
  }
  TFD_ASSIGN_OR_RETURN(Tensor host, now.CopyTo(HostDevice()));
  const int64_t value = host.scalar<int64_t>();
  absl::MutexLock lock(&known_steps_mu_);
  known_steps_[&local] = KnownStep{now, value};
  return value;
}

absl::Status Optimizer::AdvanceStep(Variable& counter, int64_t step) const {
  // Added on the counter's device: Execute keeps the 1 there once
  // (device_constants.h), so the step copies nothing to the device.
  TFD_RETURN_IF_ERROR(counter.AssignAdd(Tensor::Scalar<int64_t>(1)));
  absl::MutexLock lock(&known_steps_mu_);
  known_steps_[&counter] = KnownStep{counter.Peek(), step + 1};
  return absl::OkStatus();
}

LearningRate Optimizer::learning_rate() const {
  absl::MutexLock lock(&mu_);
  return learning_rate_;
}

absl::StatusOr<float> Optimizer::CurrentLearningRate() const {
  TFD_ASSIGN_OR_RETURN(int64_t step, Iterations());
  return learning_rate().At(step);
}

absl::Status Optimizer::SetLearningRate(float learning_rate) {
  absl::MutexLock lock(&mu_);
  if (learning_rate_.is_schedule()) {
    return FailedPrecondition(
        name_, ": This optimizer was created with a `LearningRateSchedule` object as its "
               "`learning_rate` constructor argument, hence its learning rate is not settable. "
               "If you need the learning rate to be settable, you should instantiate the "
               "optimizer with a float `learning_rate` argument.");
  }
  learning_rate_ = LearningRate(learning_rate);
  return absl::OkStatus();
}

const Optimizer::SlotSet* Optimizer::FindSlots(const DistributedVariable& var) const {
  absl::MutexLock lock(&mu_);
  auto it = slots_.find(&var);
  return it == slots_.end() ? nullptr : &it->second;
}

std::shared_ptr<DistributedVariable> Optimizer::GetSlot(const DistributedVariable& var,
                                                        absl::string_view slot_name) const {
  const SlotSet* set = FindSlots(var);
  if (set == nullptr) return nullptr;
  for (const auto& [name, slot] : set->slots) {
    if (name == slot_name) return slot;
  }
  return nullptr;
}

std::vector<std::shared_ptr<DistributedVariable>> Optimizer::variables() const {
  absl::MutexLock lock(&mu_);
  return variables_;
}

absl::Status Optimizer::AddSlot(const DistributedVariable& var, const std::string& slot_name,
                                double initial_value) {
  VariableSpec spec;
  spec.name = absl::StrCat(name_, "/", slot_name, "/", var.name());
  const DataType dtype = var.dtype();
  const TensorShape shape = var.shape();
  spec.initial_value = [dtype, shape, initial_value]() -> absl::StatusOr<Tensor> {
    return Filled(dtype, shape, initial_value);
  };
  spec.trainable = false;
  // Without a strategy, a slot lives with its variable, as TensorFlow
  // colocates slots, whatever device is current when the optimizer is
  // built (the default device may have changed since, or the variable was
  // made in a DeviceScope); fused updates then find both in one place.
  std::optional<DeviceScope> colocate;
  if (!distribute::HasStrategy() && var.num_components() == 1) {
    colocate.emplace(var.component(0).device());
  }
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<DistributedVariable> slot,
                       distribute::CreateVariable(spec));
  if (slot->num_components() != var.num_components()) {
    return FailedPrecondition(name_, ": slot '", slot_name, "' of variable '", var.name(),
                              "' got ", slot->num_components(),
                              " components but the variable has ", var.num_components(),
                              "; build the optimizer in the scope of the variable's strategy");
  }
  absl::MutexLock lock(&mu_);
  slots_[&var].slots.emplace_back(slot_name, slot);
  variables_.push_back(std::move(slot));
  return absl::OkStatus();
}

absl::Status Optimizer::Build(absl::Span<DistributedVariable* const> vars) {
  if (built()) return absl::OkStatus();
  return BuildLocked(vars);
}

absl::Status Optimizer::BuildLocked(absl::Span<DistributedVariable* const> vars) {
  if (built()) return absl::OkStatus();
  std::vector<DistributedVariable*> unique;
  std::set<const DistributedVariable*> seen;
  for (DistributedVariable* v : vars) {
    if (v == nullptr) return InvalidArgument(name_, ": Build got a null variable");
    if (seen.insert(v).second) unique.push_back(v);
  }
  VariableSpec counter;
  counter.name = "iteration";
  counter.initial_value = []() -> absl::StatusOr<Tensor> { return Tensor::Scalar<int64_t>(0); };
  counter.trainable = false;
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<DistributedVariable> iterations,
                       distribute::CreateVariable(counter));
  {
    absl::MutexLock lock(&mu_);
    iterations_ = iterations;
    variables_.insert(variables_.begin(), iterations);
  }
  TFD_RETURN_IF_ERROR(CreateSlots(unique));
  built_.store(true, std::memory_order_release);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> Optimizer::ClipGradients(std::vector<Tensor> grads) const {
  if (options_.clipnorm.has_value() && *options_.clipnorm > 0) {
    for (Tensor& g : grads) {
      TFD_ASSIGN_OR_RETURN(g, ClipByNorm(g, *options_.clipnorm));
    }
  } else if (options_.global_clipnorm.has_value() && *options_.global_clipnorm > 0) {
    TFD_ASSIGN_OR_RETURN(GlobalNormClipped clipped,
                         ClipByGlobalNorm(grads, *options_.global_clipnorm));
    grads = std::move(clipped.tensors);
  } else if (options_.clipvalue.has_value() && *options_.clipvalue > 0) {
    for (Tensor& g : grads) {
      TFD_ASSIGN_OR_RETURN(g, ClipByValue(g, -*options_.clipvalue, *options_.clipvalue));
    }
  }
  return grads;
}

bool Optimizer::DecaysWeight(const DistributedVariable& var) const {
  if (!options_.weight_decay.has_value()) return false;
  for (const std::string& pattern : options_.exclude_from_weight_decay) {
    if (var.name().find(pattern) != std::string::npos) return false;
  }
  return true;
}

absl::Status Optimizer::DecayWeight(DistributedVariable& var, int c, float lr) {
  Variable& component = var.component(c);
  if (DecaysWeight(var)) {
    // var -= var * wd * lr, multiplied in that order in var's dtype. Keras's
    // tf.cast(self.weight_decay, dtype) rounds the Python float to float32
    // first, as it does for every hyperparameter it casts.
    TFD_ASSIGN_OR_RETURN(Tensor wd,
                         Scalar(var.dtype(), static_cast<float>(*options_.weight_decay)));
    TFD_ASSIGN_OR_RETURN(Tensor lr_t, Scalar(var.dtype(), lr));
    Device* device = component.device();
    TFD_ASSIGN_OR_RETURN(Tensor scaled, Execute1("Mul", {component.Peek(), wd}, AttrMap(), device));
    TFD_ASSIGN_OR_RETURN(Tensor decay, Execute1("Mul", {scaled, lr_t}, AttrMap(), device));
    TFD_RETURN_IF_ERROR(component.AssignSub(decay));
  }
  return absl::OkStatus();
}

absl::Status Optimizer::UpdateComponent(const Tensor& grad, DistributedVariable& var, int c,
                                        int64_t step, float lr) {
  TFD_RETURN_IF_ERROR(DecayWeight(var, c, lr));
  Variable& component = var.component(c);
  const SlotSet* set = FindSlots(var);
  if (set == nullptr) return Internal(name_, ": no slots for '", var.name(), "'");
  UpdateArgs args{grad, component, {}, step, lr};
  for (const auto& [slot_name, slot] : set->slots) args.slots.push_back(&slot->component(c));
  return UpdateStep(args);
}

absl::Status Optimizer::UpdateComponents(const std::vector<ComponentUpdate>& updates,
                                         int64_t step, float lr) {
  std::vector<UpdateTarget> targets;
  for (const ComponentUpdate& u : updates) {
    targets.push_back({u.var->dtype(), u.var->component(u.component).device()});
  }
  // The grouped op of each dtype, made once per call.
  std::map<DataType, std::optional<GroupedUpdateOp>> grouped;
  auto op_for = [&](DataType dtype) -> const std::optional<GroupedUpdateOp>& {
    auto it = grouped.find(dtype);
    if (it == grouped.end()) it = grouped.emplace(dtype, GroupedUpdate(dtype, step, lr)).first;
    return it->second;
  };
  auto can_group = [&](const Device* device, DataType dtype) {
    const std::optional<GroupedUpdateOp>& op = op_for(dtype);
    return op.has_value() && LookupKernel(op->op, device->type(), dtype).ok();
  };
  const MultiTensorPlan plan = PlanMultiTensorUpdates(targets, can_group);
  for (int i : plan.singles) {
    const ComponentUpdate& u = updates[i];
    TFD_RETURN_IF_ERROR(UpdateComponent(*u.grad, *u.var, u.component, step, lr));
  }
  for (const UpdateGroup& group : plan.groups) {
    const GroupedUpdateOp& op = *op_for(group.dtype);
    // Inputs: the variables, each slot list, the gradients, the scalars.
    std::vector<OpInput> vars, grads;
    std::vector<std::vector<OpInput>> slot_lists;
    for (int i : group.members) {
      const ComponentUpdate& u = updates[i];
      TFD_RETURN_IF_ERROR(DecayWeight(*u.var, u.component, lr));
      const SlotSet* set = FindSlots(*u.var);
      if (set == nullptr) return Internal(name_, ": no slots for '", u.var->name(), "'");
      slot_lists.resize(set->slots.size());
      for (size_t s = 0; s < set->slots.size(); ++s) {
        slot_lists[s].emplace_back(&set->slots[s].second->component(u.component));
      }
      vars.emplace_back(&u.var->component(u.component));
      grads.emplace_back(*u.grad);
    }
    std::vector<OpInput> inputs = std::move(vars);
    for (std::vector<OpInput>& list : slot_lists) {
      for (OpInput& in : list) inputs.push_back(std::move(in));
    }
    for (OpInput& g : grads) inputs.push_back(std::move(g));
    for (const Tensor& scalar : op.scalars) inputs.emplace_back(scalar);
    TFD_RETURN_IF_ERROR(RunUpdateOp(op.op, std::move(inputs), op.attrs));
  }
  return absl::OkStatus();
}

absl::Status Optimizer::RunUpdateOp(absl::string_view op, std::vector<OpInput> inputs,
                                    const AttrMap& attrs) {
  std::vector<Variable*> locked;
  for (const OpInput& in : inputs) {
    if (in.variable != nullptr) locked.push_back(in.variable);
  }
  if (locked.empty()) return Internal(op, ": an update op needs a variable input");
  // Always var first, then slots in order: one order for every caller.
  for (Variable* v : locked) v->Mutex()->Lock();
  absl::Status status = [&]() -> absl::Status {
    std::vector<Tensor> tensors;
    for (OpInput& in : inputs) {
      if (in.variable == nullptr) {
        tensors.push_back(std::move(in.tensor));
        continue;
      }
      TFD_ASSIGN_OR_RETURN(Tensor buffer, in.variable->MutableValue());
      tensors.push_back(std::move(buffer));
    }
    return Execute(op, tensors, attrs, locked[0]->device()).status();
  }();
  for (auto it = locked.rbegin(); it != locked.rend(); ++it) (*it)->Mutex()->Unlock();
  return status;
}

absl::Status Optimizer::ApplyGradients(
    absl::Span<const Tensor> grads, const std::vector<std::shared_ptr<DistributedVariable>>& vars) {
  std::vector<DistributedVariable*> raw;
  for (const auto& v : vars) raw.push_back(v.get());
  return ApplyGradients(grads, raw);
}

absl::Status Optimizer::CheckGradients(absl::Span<const Tensor> grads,
                                       absl::Span<DistributedVariable* const> vars) const {
  if (grads.size() != vars.size()) {
    return InvalidArgument(name_, ": ApplyGradients got ", grads.size(), " gradients for ",
                           vars.size(), " variables");
  }
  if (vars.empty()) return absl::OkStatus();
  bool any_defined = false;
  for (size_t i = 0; i < vars.size(); ++i) {
    const DistributedVariable* v = vars[i];
    if (v == nullptr) return InvalidArgument(name_, ": variable ", i, " is null");
    if (!grads[i].defined()) continue;
    if (grads[i].dtype() != v->dtype() || grads[i].shape() != v->shape()) {
      return InvalidArgument(name_, ": the gradient of '", v->name(), "' is ",
                             DataTypeName(grads[i].dtype()), " ", grads[i].shape().DebugString(),
                             " but the variable is ", DataTypeName(v->dtype()), " ",
                             v->shape().DebugString());
    }
    any_defined = true;
  }
  if (!any_defined) {
    return InvalidArgument(name_, ": No gradients provided for any variable: [",
                           absl::StrJoin(Names(vars), ", "), "].");
  }
  return absl::OkStatus();
}

absl::Status Optimizer::ApplyGradients(absl::Span<const Tensor> grads,
                                       absl::Span<DistributedVariable* const> vars) {
  TFD_RETURN_IF_ERROR(CheckGradients(grads, vars));
  if (vars.empty()) return absl::OkStatus();
  ReplicaContext* ctx = distribute::CurrentReplicaContext();
  if (ctx == nullptr) return ApplyAggregatedGradients(grads, vars);
  // One call for all gradients, so that the strategy can bucket them.
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> summed,
                       AllReduceGradients(*ctx, std::vector<Tensor>(grads.begin(), grads.end())));
  return ApplyAggregatedGradients(summed, vars);
}

absl::Status Optimizer::ApplyAggregatedGradients(absl::Span<const Tensor> grads,
                                                 absl::Span<DistributedVariable* const> vars) {
  TFD_RETURN_IF_ERROR(CheckGradients(grads, vars));
  if (vars.empty()) return absl::OkStatus();
  // Keras drops the variables without a gradient (filter_empty_gradients).
  std::vector<Tensor> kept;
  std::vector<DistributedVariable*> kept_vars;
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!grads[i].defined()) continue;
    kept.push_back(grads[i]);
    kept_vars.push_back(vars[i]);
  }
  return ApplyReducedGradients(std::move(kept), std::move(kept_vars), vars);
}

absl::Status Optimizer::Minimize(const Tensor& loss,
                                 const std::vector<std::shared_ptr<DistributedVariable>>& vars,
                                 GradientTape& tape) {
  std::vector<DistributedVariable*> raw;
  for (const auto& v : vars) raw.push_back(v.get());
  return Minimize(loss, raw, tape);
}

absl::Status Optimizer::Minimize(const Tensor& loss, absl::Span<DistributedVariable* const> vars,
                                 GradientTape& tape) {
  return MinimizeWithTransform(loss, vars, tape, nullptr);
}

absl::Status Optimizer::MinimizeWithTransform(const Tensor& loss,
                                              absl::Span<DistributedVariable* const> vars,
                                              GradientTape& tape,
                                              const GradientTransform& transform) {
  ReplicaContext* ctx = distribute::CurrentReplicaContext();
  std::optional<std::string> why_not = "not in a replica context";
  if (ctx != nullptr) {
    TFD_ASSIGN_OR_RETURN(why_not, WhyNotOverlap(*ctx, tape, loss, vars));
  }
  if (why_not.has_value()) {
    // The plain path: the whole backward pass, then ApplyGradients.
    std::vector<const Variable*> sources;
    for (DistributedVariable* v : vars) {
      if (v == nullptr) return InvalidArgument(name_, ": Minimize: a variable is null");
      sources.push_back(&v->Local());
    }
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads, tape.Gradient(loss, sources));
    tape.StopRecording();
    if (transform) {
      for (Tensor& g : grads) {
        if (!g.defined()) continue;
        TFD_ASSIGN_OR_RETURN(g, transform(g));
      }
    }
    return ApplyGradients(grads, vars);
  }
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> reduced,
                       AllReduceDuringBackward(*ctx, tape, loss, vars, transform));
  tape.StopRecording();
  return ApplyAggregatedGradients(reduced, vars);
}

absl::Status Optimizer::ApplyReducedGradients(std::vector<Tensor> kept,
                                              std::vector<DistributedVariable*> kept_vars,
                                              absl::Span<DistributedVariable* const> vars) {
  ReplicaContext* ctx = distribute::CurrentReplicaContext();
  if (!built()) {
    // Keras builds for every variable passed, with or without a gradient.
    auto build = [this, vars]() { return BuildLocked(vars); };
    TFD_RETURN_IF_ERROR(ctx != nullptr ? ctx->MergeCall(build) : build());
  }
  for (const DistributedVariable* v : kept_vars) {
    if (FindSlots(*v) == nullptr) {
      return InvalidArgument(
          name_, ": The optimizer cannot recognize variable ", v->name(),
          ". This usually means you are trying to call the optimizer to update different "
          "parts of the model separately. Please call `optimizer.build(variables)` with the "
          "full list of trainable variables before the training loop.");
    }
  }
  // Every replica reads the step before any of them can advance it (the
  // advance of a central counter happens in the MergeCall below).
  TFD_ASSIGN_OR_RETURN(const int64_t step, Iterations());
  const float lr = learning_rate().At(step);
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> clipped, ClipGradients(std::move(kept)));

  // Which variables this replica updates itself (one component each per
  // replica) and which are updated once for all (a single component). The
  // answer depends only on the variables, so every replica agrees on it.
  // Mirrored variables have one component per local replica (the other
  // workers of a multi-worker strategy hold their own).
  const int replicas = ctx != nullptr ? ctx->strategy().num_local_replicas() : 1;
  auto is_local = [&](const DistributedVariable& v) -> absl::StatusOr<bool> {
    if (ctx == nullptr || v.num_components() == 1) return false;
    if (v.num_components() != replicas) {
      return FailedPrecondition(name_, ": variable '", v.name(), "' has ", v.num_components(),
                                " components but ", replicas, " local replicas are in sync");
    }
    return true;
  };
  std::vector<size_t> local, central;
  for (size_t i = 0; i < kept_vars.size(); ++i) {
    TFD_ASSIGN_OR_RETURN(bool is_local_var, is_local(*kept_vars[i]));
    (is_local_var ? local : central).push_back(i);
  }
  DistributedVariable& counter = *iterations();
  TFD_ASSIGN_OR_RETURN(const bool counter_is_local, is_local(counter));

  std::vector<ComponentUpdate> local_updates;
  for (size_t i : local) {
    local_updates.push_back(
        {&clipped[i], kept_vars[i], ctx->replica_id_in_sync_group() % replicas});
  }
  absl::Status local_status = UpdateComponents(local_updates, step, lr);
  if (counter_is_local && local_status.ok()) local_status = AdvanceStep(counter.Local(), step);

  // Everything with a single component (or every component, in
  // cross-replica context), once.
  auto update_central = [&]() -> absl::Status {
    std::vector<ComponentUpdate> updates;
    for (size_t i : central) {
      for (int c = 0; c < kept_vars[i]->num_components(); ++c) {
        updates.push_back({&clipped[i], kept_vars[i], c});
      }
    }
    TFD_RETURN_IF_ERROR(UpdateComponents(updates, step, lr));
    if (!counter_is_local) {
      for (int c = 0; c < counter.num_components(); ++c) {
        TFD_RETURN_IF_ERROR(AdvanceStep(counter.component(c), step));
      }
    }
    return absl::OkStatus();
  };
  if (ctx == nullptr) return update_central();
  // Every replica makes the same MergeCalls whatever happened to its local
  // updates, so that a failing replica does not leave the others waiting.
  if (!counter_is_local || !central.empty()) {
    absl::Status merged = ctx->MergeCall(update_central);
    if (local_status.ok()) return merged;
  }
  return local_status;
}

}  // namespace nn
}  // namespace tfd
