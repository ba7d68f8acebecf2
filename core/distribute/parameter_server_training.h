// What the Keras training loop needs from a strategy whose variables live
// on parameter servers and whose steps run in other processes
// (ParameterServerStrategy implements it). Model::Fit finds it with
// ParameterServerTrainingOf(strategy) and then:
//   on the chief   pushes the model's values to the ps tasks, makes
//                  per-worker iterators, schedules "train_step" closures
//                  and gathers their RemoteValues;
//   on a worker    serves "train_step", which pulls the variables, runs
//                  the batch and sends the gradients with the optimizer's
//                  update rule; the ps tasks apply it and keep the slots.
// This header names no gRPC type, so core/nn links no RPC code for it.
//
// Thread safety: all methods are thread-safe.
#ifndef TFD_CORE_DISTRIBUTE_PARAMETER_SERVER_TRAINING_H_
#define TFD_CORE_DISTRIBUTE_PARAMETER_SERVER_TRAINING_H_

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/distribute/distributed_variable.h"
#include "core/distribute/ps/worker_functions.h"
#include "core/distribute/remote_value.h"
#include "core/distribute/strategy.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace distribute {

// The optimizer a ps applies to the gradients it receives: Keras's SGD
// (momentum, nesterov), Adam (amsgrad), RMSprop (rho, momentum, centered)
// or Adagrad (initial_accumulator_value), at the learning rate of this
// step, after decoupled weight decay when weight_decay > 0 (AdamW).
struct RemoteUpdateRule {
  enum class Kind { kSgd, kAdam, kRmsProp, kAdagrad };
  Kind kind = Kind::kSgd;
  float learning_rate = 0.01f;
  float momentum = 0;
  bool nesterov = false;
  float beta_1 = 0.9f, beta_2 = 0.999f, epsilon = 1e-7f;
  bool amsgrad = false;
  float rho = 0.9f;
  bool centered = false;
  float initial_accumulator_value = 0.1f;
  float weight_decay = 0;
};

// What a ps keeps for the optimizer of one variable: the rule's slots in
// Keras's order (SGD with momentum: "m"; Adam: "m", "v"[, "vhat"]; RMSprop:
// "velocity", ["momentum",] ["average_gradient"]; Adagrad: "accumulator"),
// each of the variable's shape, and the updates applied so far.
struct RemoteOptimizerState {
  std::vector<Tensor> slots;
  int64_t step = 0;
};

// A worker's running service; destroying it stops serving.
class WorkerServing {
 public:
  virtual ~WorkerServing() = default;
  // Blocks while the service runs (until the process is killed).
  virtual void Wait() = 0;
  // The per-worker iterators this worker keeps now (made by the chief and
  // not released).
  virtual int num_live_iterators() const = 0;
};

class ParameterServerTraining {
 public:
  virtual ~ParameterServerTraining() = default;

  // The chief drives training; workers serve steps.
  virtual bool is_chief() const = 0;

  // Whether `variable` lives on the ps tasks (the trainable float32
  // variables made in the strategy's scope, and those given to
  // MakeRemote); others stay in this process.
  virtual bool IsRemote(const DistributedVariable& variable) const = 0;
  // Places `variables` (float32, made in this strategy's scope) on the ps
  // tasks too, those not there yet: the model's non-trainable state, which
  // TensorFlow keeps on the ps with the rest of the scope's variables. A
  // variable is created there with its local value unless another task
  // made it first (whose value stays); the local copies are left alone
  // (PushVariables and PullVariables move values). UNIMPLEMENTED for
  // another dtype or a variable with several components.
  virtual absl::Status MakeRemote(
      absl::Span<const std::shared_ptr<DistributedVariable>> variables) = 0;
  // Reads the ps's values of the remote variables among `variables` into
  // their local copies (the others are left alone).
  virtual absl::Status PullVariables(absl::Span<DistributedVariable* const> variables) = 0;
  // PullVariables, returning the ps's update count of the first remote
  // variable among them: the optimizer's iterations, which every step
  // advances by one on every variable it has a gradient for (what a
  // learning-rate schedule reads). FAILED_PRECONDITION when none is remote.
  virtual absl::StatusOr<int64_t> PullVariablesAndIterations(
      absl::Span<DistributedVariable* const> variables) = 0;
  // Writes the local copies of the remote variables to the ps tasks (after
  // a checkpoint was restored into them).
  virtual absl::Status PushVariables(absl::Span<DistributedVariable* const> variables) = 0;
  // The optimizer's state on the ps for a remote variable (no slots while
  // no gradient has reached it); FAILED_PRECONDITION for a local one.
  virtual absl::StatusOr<RemoteOptimizerState> ReadOptimizerState(
      const DistributedVariable& variable) = 0;
  // Writes the local copy of a remote variable and the optimizer's state
  // (its rule, slots and count) to the ps: a restored checkpoint.
  virtual absl::Status PushOptimizerState(const DistributedVariable& variable,
                                          const RemoteUpdateRule& rule,
                                          const RemoteOptimizerState& state) = 0;
  // Sends grads[i] of variables[i] (skipping undefined ones) to be applied
  // with `rule` on the ps. FAILED_PRECONDITION for a variable that is not
  // remote.
  virtual absl::Status ApplyGradients(absl::Span<const Tensor> grads,
                                      absl::Span<DistributedVariable* const> variables,
                                      const RemoteUpdateRule& rule) = 0;

  // value -= deltas[i] on the ps for variables[i] (skipping undefined
  // deltas), each atomically: how a worker's step writes the state its
  // layers update (BatchNormalization's moving statistics), as
  // TensorFlow's assign_sub on a ps variable. FAILED_PRECONDITION for a
  // variable that is not remote.
  virtual absl::Status AssignSubVariables(absl::Span<const Tensor> deltas,
                                          absl::Span<DistributedVariable* const> variables) = 0;

  // Chief: a fresh iterator on every worker over its dataset `dataset`;
  // returns its id for Schedule. The workers keep it until
  // ReleasePerWorkerIterator (PerWorkerIteratorOwner calls it).
  virtual absl::StatusOr<int64_t> CreatePerWorkerIterator(const std::string& dataset) = 0;
  // Chief: drops the iterator on every worker once the functions reading
  // it finished (waiting for them). Never fails: a worker that cannot be
  // reached is logged and left (ClusterCoordinator). 0 is a no-op.
  virtual void ReleasePerWorkerIterator(int64_t iterator_id) = 0;
  // Chief: queues `function` reading iterator `iterator_id` (0: none),
  // with float32 `arguments` (TensorFlow's schedule(fn, args=...)).
  virtual std::shared_ptr<RemoteValue> Schedule(const std::string& function,
                                                int64_t iterator_id,
                                                std::vector<Tensor> arguments) = 0;
  // Chief: waits for every scheduled function; the first error since the
  // last Join, which it then forgets (TensorFlow's coordinator.join()).
  virtual absl::Status Join() = 0;
  virtual int num_live_workers() const = 0;

  // Worker: serves `functions` for the chief on this task's address.
  virtual absl::StatusOr<std::unique_ptr<WorkerServing>> ServeWorkerFunctions(
      ps::WorkerFunctions functions) = 0;
  // Worker: this worker's index and the number of workers (for its input
  // pipeline's InputContext).
  virtual int worker_index() const = 0;
  virtual int num_worker_tasks() const = 0;
};

// A per-worker iterator the chief made, released on every worker when
// this handle goes (or Reset), as TensorFlow frees a per-worker
// iterator's resources with the chief's last reference to it. Move-only;
// the ParameterServerTraining must outlive it.
//
//   TFD_ASSIGN_OR_RETURN(int64_t id, ps.CreatePerWorkerIterator("eval"));
//   PerWorkerIteratorOwner owner(&ps, id);
//   ... ps.Schedule("test_step", owner.id(), {}) ...
class PerWorkerIteratorOwner {
 public:
  PerWorkerIteratorOwner() = default;
  PerWorkerIteratorOwner(ParameterServerTraining* ps, int64_t id) : ps_(ps), id_(id) {}
  PerWorkerIteratorOwner(PerWorkerIteratorOwner&& other) noexcept
      : ps_(other.ps_), id_(std::exchange(other.id_, 0)) {}
  PerWorkerIteratorOwner& operator=(PerWorkerIteratorOwner&& other) noexcept {
    if (this != &other) {
      Reset();
      ps_ = other.ps_;
      id_ = std::exchange(other.id_, 0);
    }
    return *this;
  }
  ~PerWorkerIteratorOwner() { Reset(); }

  int64_t id() const { return id_; }
  // Releases the iterator now (waiting for the functions reading it).
  void Reset() {
    if (ps_ != nullptr && id_ != 0) ps_->ReleasePerWorkerIterator(id_);
    id_ = 0;
  }

 private:
  ParameterServerTraining* ps_ = nullptr;
  int64_t id_ = 0;
};

// `strategy` as ParameterServerTraining, or null for other strategies.
inline ParameterServerTraining* ParameterServerTrainingOf(Strategy& strategy) {
  return dynamic_cast<ParameterServerTraining*>(&strategy);
}

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PARAMETER_SERVER_TRAINING_H_
