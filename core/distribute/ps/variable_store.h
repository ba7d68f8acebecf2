// The variables one parameter-server task holds, and the optimizer math it
// applies to them. This is the bookkeeping behind StartParameterServer
// (ps_server.h), testable without a network.
//
// Each variable keeps its optimizer's slots (update_rule.h: SGD's momentum
// accumulator, Adam's m and v, RMSprop's and Adagrad's) and its update
// count next to its value, and an update is one of the fused training ops
// (core/kernels/training_ops.cc) run in place under the variable's lock:
// concurrent workers' gradients apply one after the other, never torn.
//
// Thread safety: all methods are thread-safe.
//
//   VariableStore store;
//   TFD_RETURN_IF_ERROR(store.Create("dense/kernel", init, sgd));
//   TFD_RETURN_IF_ERROR(store.ApplyGradient("dense/kernel", grad));
#ifndef TFD_CORE_DISTRIBUTE_PS_VARIABLE_STORE_H_
#define TFD_CORE_DISTRIBUTE_PS_VARIABLE_STORE_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/distribute/ps/ps_service.pb.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace ps {

class VariableStore {
 public:
  // A variable with its optimizer's state, as checkpoints keep it.
  struct State {
    Tensor value;
    OptimizerConfig optimizer;
    // What `optimizer` keeps, in its order (update_rule.h); each of the
    // value's shape.
    std::vector<Tensor> slots;
    int64_t step = 0;  // Updates applied so far.
  };

  // Adds variable `name` (float32) updated with `optimizer`. Creating a
  // name again with the same shape is OK and keeps the existing value
  // (every worker may create the model); ALREADY_EXISTS for another shape.
  // INVALID_ARGUMENT for a non-float32 value, an empty name or an invalid
  // rule (CheckUpdateRule).
  absl::Status Create(const std::string& name, const Tensor& initial_value,
                      const OptimizerConfig& optimizer);
  // A copy of the value, and with a non-null `step` the updates applied so
  // far; NOT_FOUND for an unknown name.
  absl::StatusOr<Tensor> Read(const std::string& name, int64_t* step = nullptr) const;
  // INVALID_ARGUMENT when the shape differs from the variable's.
  absl::Status Assign(const std::string& name, const Tensor& value);
  // Copies of the value and the optimizer's state; NOT_FOUND for an
  // unknown name.
  absl::StatusOr<State> ReadState(const std::string& name) const;
  // Replaces the value and the optimizer's state (restoring a checkpoint).
  // INVALID_ARGUMENT for an invalid rule (as Create), shapes other than the
  // variable's, or a slot count other than the rule keeps.
  absl::Status AssignState(const std::string& name, const State& state);
  // One optimizer step; INVALID_ARGUMENT when the gradient's shape differs
  // or `optimizer` is invalid (as Create). A non-null `optimizer` becomes
  // the variable's update rule from this step on: the rule of a Keras
  // optimizer compiled after the variables were created. Its slots start
  // at their initial values; a rule with other slots (SameSlots) starts
  // from fresh slots and step 0.
  absl::Status ApplyGradient(const std::string& name, const Tensor& gradient,
                             const OptimizerConfig* optimizer = nullptr);
  // value -= delta, under the variable's lock; the optimizer's state and
  // step stay. INVALID_ARGUMENT when the shape differs; NOT_FOUND.
  absl::Status AssignSub(const std::string& name, const Tensor& delta);

 private:
  struct Variable {
    absl::Mutex mu;
    Tensor value ABSL_GUARDED_BY(mu);
    // What `optimizer` keeps (update_rule.h).
    std::vector<Tensor> slots ABSL_GUARDED_BY(mu);
    int64_t step ABSL_GUARDED_BY(mu) = 0;  // Updates applied so far.
    OptimizerConfig optimizer;
  };
  absl::StatusOr<std::shared_ptr<Variable>> Find(const std::string& name) const;
  // Slots at their initial values up to what variable.optimizer keeps.
  static absl::Status AddMissingSlots(Variable& variable)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(variable.mu);

  mutable absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<Variable>> variables_ ABSL_GUARDED_BY(mu_);
};

}  // namespace ps
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PS_VARIABLE_STORE_H_
