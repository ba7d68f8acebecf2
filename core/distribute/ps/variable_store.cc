#include "core/distribute/ps/variable_store.h"

#include <algorithm>
#include <utility>

#include "core/distribute/ps/update_rule.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace ps {
namespace {

absl::Status CheckSameShape(const std::string& what, const std::string& name,
                            const TensorShape& expected, const Tensor& got) {
  if (got.dtype() != DT_FLOAT) {
    return InvalidArgument(what, " of variable ", name, ": expected float32, got ",
                           DataTypeName(got.dtype()));
  }
  if (got.shape().dims() != expected.dims()) {
    return InvalidArgument(what, " of variable ", name, ": expected shape ",
                           expected.DebugString(), ", got ", got.shape().DebugString());
  }
  return absl::OkStatus();
}

// A deep copy in host memory, where the ps keeps its values. `t` may be on
// a device: an in-process caller's tensor can come from a GPU.
absl::StatusOr<Tensor> HostCopy(const Tensor& t) { return t.CopyTo(HostDevice()); }

}  // namespace

absl::Status VariableStore::Create(const std::string& name, const Tensor& initial_value,
                                   const OptimizerConfig& optimizer) {
  if (name.empty()) return InvalidArgument("a parameter-server variable needs a name");
  if (initial_value.dtype() != DT_FLOAT) {
    return InvalidArgument("variable ", name, ": expected float32, got ",
                           DataTypeName(initial_value.dtype()));
  }
  TFD_RETURN_IF_ERROR(CheckUpdateRule(name, optimizer));
  absl::MutexLock lock(&mu_);
  auto it = variables_.find(name);
  if (it != variables_.end()) {
    absl::MutexLock variable_lock(&it->second->mu);
    if (it->second->value.shape().dims() != initial_value.shape().dims()) {
      return absl::AlreadyExistsError(absl::StrCat(
          "variable ", name, " exists with shape ", it->second->value.shape().DebugString(),
          ", asked for ", initial_value.shape().DebugString()));
    }
    return absl::OkStatus();
  }
  auto variable = std::make_shared<Variable>();
  variable->optimizer = optimizer;
  {
    absl::MutexLock variable_lock(&variable->mu);
    TFD_ASSIGN_OR_RETURN(variable->value, HostCopy(initial_value));
    TFD_RETURN_IF_ERROR(AddMissingSlots(*variable));
  }
  variables_.emplace(name, std::move(variable));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<VariableStore::Variable>> VariableStore::Find(
    const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = variables_.find(name);
  if (it == variables_.end()) return NotFound("no variable ", name, " on this parameter server");
  return it->second;
}

absl::StatusOr<Tensor> VariableStore::Read(const std::string& name, int64_t* step) const {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  if (step != nullptr) *step = variable->step;
  return HostCopy(variable->value);
}

absl::Status VariableStore::Assign(const std::string& name, const Tensor& value) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  TFD_RETURN_IF_ERROR(CheckSameShape("assigned value", name, variable->value.shape(), value));
  TFD_ASSIGN_OR_RETURN(variable->value, HostCopy(value));
  return absl::OkStatus();
}

absl::StatusOr<VariableStore::State> VariableStore::ReadState(const std::string& name) const {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  State state;
  TFD_ASSIGN_OR_RETURN(state.value, HostCopy(variable->value));
  state.optimizer = variable->optimizer;
  for (const Tensor& slot : variable->slots) {
    TFD_ASSIGN_OR_RETURN(Tensor copy, HostCopy(slot));
    state.slots.push_back(std::move(copy));
  }
  state.step = variable->step;
  return state;
}

absl::Status VariableStore::AssignState(const std::string& name, const State& state) {
  TFD_RETURN_IF_ERROR(CheckUpdateRule(name, state.optimizer));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  const TensorShape& shape = variable->value.shape();
  TFD_RETURN_IF_ERROR(CheckSameShape("assigned value", name, shape, state.value));
  if (static_cast<int>(state.slots.size()) != NumSlots(state.optimizer)) {
    return InvalidArgument("variable ", name, ": the optimizer keeps ", NumSlots(state.optimizer),
                           " slots, got ", state.slots.size());
  }
  for (const Tensor& slot : state.slots) TFD_RETURN_IF_ERROR(CheckSameShape("slot", name, shape, slot));
  if (state.step < 0) return InvalidArgument("variable ", name, ": negative step ", state.step);
  // Copied before anything changes, so that a failed copy leaves the
  // variable as it was.
  TFD_ASSIGN_OR_RETURN(Tensor value, HostCopy(state.value));
  std::vector<Tensor> slots;
  for (const Tensor& slot : state.slots) {
    TFD_ASSIGN_OR_RETURN(Tensor copy, HostCopy(slot));
    slots.push_back(std::move(copy));
  }
  variable->value = std::move(value);
  variable->optimizer = state.optimizer;
  variable->slots = std::move(slots);
  variable->step = state.step;
  return absl::OkStatus();
}

absl::Status VariableStore::AddMissingSlots(Variable& variable) {
  while (static_cast<int>(variable.slots.size()) < NumSlots(variable.optimizer)) {
    const float initial = SlotInitialValue(variable.optimizer, variable.slots.size());
    Tensor slot(DT_FLOAT, variable.value.shape());
    std::fill(slot.data<float>(), slot.data<float>() + slot.NumElements(), initial);
    variable.slots.push_back(std::move(slot));
  }
  return absl::OkStatus();
}

absl::Status VariableStore::ApplyGradient(const std::string& name, const Tensor& gradient,
                                          const OptimizerConfig* optimizer) {
  if (optimizer != nullptr) TFD_RETURN_IF_ERROR(CheckUpdateRule(name, *optimizer));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  TFD_RETURN_IF_ERROR(CheckSameShape("gradient", name, variable->value.shape(), gradient));
  if (optimizer != nullptr) {
    // Another optimizer (or another layout of slots) starts from fresh
    // slots, as a new Keras optimizer would; the same one keeps them (a
    // changed learning rate).
    if (!SameSlots(variable->optimizer, *optimizer)) {
      variable->slots.clear();
      variable->step = 0;
    }
    variable->optimizer = *optimizer;
    TFD_RETURN_IF_ERROR(AddMissingSlots(*variable));
  }
  TFD_RETURN_IF_ERROR(ApplyUpdateRule(variable->optimizer, variable->step, gradient,
                                      variable->value, variable->slots));
  ++variable->step;
  return absl::OkStatus();
}

absl::Status VariableStore::AssignSub(const std::string& name, const Tensor& delta) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  TFD_RETURN_IF_ERROR(CheckSameShape("delta", name, variable->value.shape(), delta));
  // On the host, where the ps keeps its values: a default GPU would make
  // the new value a device tensor that the ps's reads cannot touch.
  DeviceScope on_the_host(HostDevice());
  TFD_ASSIGN_OR_RETURN(variable->value, Execute1("Sub", {variable->value, delta}));
  return absl::OkStatus();
}

}  // namespace ps
}  // namespace tfd
