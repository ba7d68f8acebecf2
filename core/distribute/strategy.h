// Strategy: the contract between the distribution layer and the layers
// above it (core/nn, the C API), as tf.distribute.Strategy.
//
// A strategy decides where variables live and how a step function runs on
// its replicas. Code above it never asks which strategy it has:
//   - layers and optimizers create variables with CreateVariable(), which
//     asks the strategy whose scope is active on this thread (the default
//     strategy when none is);
//   - a step runs through Strategy::Run(), one call of the function per
//     replica, each on its own thread with that replica's ReplicaContext;
//   - inside the step, ReplicaContext::AllReduce() combines gradients and
//     metrics across replicas.
//
// Ownership: strategies are created by the caller and must outlive the
// variables, datasets and scopes made with them. Thread safety: Run() may
// be called from one thread at a time; everything else is thread-safe.
//
//   TFD_ASSIGN_OR_RETURN(auto strategy, MirroredStrategy::Create(devices));
//   {
//     StrategyScope scope(strategy.get());
//     model = BuildModel();          // variables become mirrored
//   }
//   TFD_ASSIGN_OR_RETURN(auto losses, strategy->Run([&](ReplicaContext& ctx) {
//     return TrainStep(model, batches[ctx.replica_id_in_sync_group()]);
//   }));
//   TFD_ASSIGN_OR_RETURN(auto per_replica, strategy->ExperimentalLocalResults(losses, 0));
//   TFD_ASSIGN_OR_RETURN(Tensor loss, strategy->Reduce(ReduceOp::kSum, per_replica));
#ifndef TFD_CORE_DISTRIBUTE_STRATEGY_H_
#define TFD_CORE_DISTRIBUTE_STRATEGY_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/distribute/collectives/collectives.h"
#include "core/distribute/distributed_variable.h"
#include "core/distribute/reduce_op.h"
#include "core/framework/device.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace distribute {

class Strategy;

// What a step function sees of its replica (tf.distribute.ReplicaContext).
class ReplicaContext {
 public:
  virtual ~ReplicaContext() = default;
  virtual Strategy& strategy() const = 0;
  virtual int replica_id_in_sync_group() const = 0;
  virtual int num_replicas_in_sync() const = 0;
  // The device this replica's ops run on.
  virtual Device* device() const = 0;

  // Combines `values` across all replicas of the group: every replica
  // calls it with tensors of the same dtypes and shapes, in the same order,
  // and every replica receives the result. Blocks until all replicas have
  // arrived; errors (a mismatch, a replica that failed) reach every replica.
  virtual absl::StatusOr<std::vector<Tensor>> AllReduce(ReduceOp op,
                                                        std::vector<Tensor> values) = 0;

  // Starts an all-reduce of tensors with `specs` that are handed in later,
  // one by one and in any order, with Put(index, value); Wait() returns
  // them reduced, in `specs` order. It takes the place of one AllReduce
  // call in the sequence every replica must follow: every replica starts
  // it with the same specs, in the same place among its collectives, and
  // makes no other collective call until it has handed every input in.
  // The replicated strategies reduce each bucket of bytes_per_pack as soon
  // as every replica has handed in its tensors (collectives.h), with the
  // same result as AllReduce of the same tensors in `specs` order. This
  // default gathers the inputs and calls AllReduce in Wait().
  virtual absl::StatusOr<std::unique_ptr<PendingAllReduce>> StartAllReduce(
      ReduceOp op, std::vector<TensorSpec> specs);
  // Whether the optimizer should all-reduce gradients while the backward
  // pass runs (CommunicationOptions::overlap_backward_pass of the
  // replicated strategies). False here: with no communication to hide
  // there is nothing to overlap.
  virtual bool overlap_backward_pass() const { return false; }

  // Concatenates every replica's `value` along dimension 0, in replica
  // order (tf.distribute's ReplicaContext.all_gather with axis=0); values
  // may differ in dimension 0 only. Blocks like AllReduce. This default
  // serves one replica (it returns `value`) and is UNIMPLEMENTED for more;
  // the replicated strategies override it.
  virtual absl::StatusOr<Tensor> AllGather(const Tensor& value);

  // Runs `fn` exactly once, after every replica has reached the call
  // (tf.distribute's merge_call), in cross-replica context (no replica
  // context; the replicated strategies run it on the thread that called
  // Run(), as TensorFlow does); every replica then continues with fn's
  // status. For work that must happen once per step in cross-replica
  // context (applying updates to central variables).
  virtual absl::Status MergeCall(const std::function<absl::Status()>& fn) = 0;
};

// The step function: one call per replica.
using ReplicaFn = std::function<absl::StatusOr<std::vector<Tensor>>(ReplicaContext&)>;
// Run's result: [replica][output].
using PerReplica = std::vector<std::vector<Tensor>>;

class Strategy {
 public:
  virtual ~Strategy() = default;

  // "MirroredStrategy", "OneDeviceStrategy", ...
  virtual std::string name() const = 0;
  virtual int num_replicas_in_sync() const = 0;
  // The replicas run by this process: all of them, except in multi-worker
  // strategies where each worker runs its share. Run() returns, and
  // ExperimentalLocalResults and Reduce take, one value per local replica.
  virtual int num_local_replicas() const { return num_replicas_in_sync(); }
  // The device of each local replica, by local index.
  virtual std::vector<Device*> replica_devices() const = 0;
  // This process's place in a multi-worker job, by which Model::Fit splits
  // its datasets: a single-process strategy is worker 0 of 1.
  virtual int num_workers() const { return 1; }
  virtual int worker_rank() const { return 0; }

  // A variable placed by this strategy's policy (mirrored copies, one
  // central copy, ...). The initial value is computed once and copied to
  // every component, so mirrored copies start bit-identical.
  virtual absl::StatusOr<std::shared_ptr<DistributedVariable>> CreateVariable(
      const VariableSpec& spec) = 0;

  // Calls `fn` once per replica, each on its own thread with the replica's
  // context and device scope active, and returns every replica's outputs.
  // The first error of any replica is returned after all have finished.
  virtual absl::StatusOr<PerReplica> Run(const ReplicaFn& fn) = 0;

  // Combines one value per replica (`per_replica[i]` from replica i) into
  // one host tensor, in cross-replica context.
  virtual absl::StatusOr<Tensor> Reduce(ReduceOp op, absl::Span<const Tensor> per_replica);

  // Output `output` of every replica of a Run() result, by replica
  // (tf.distribute's experimental_local_results, for one output).
  // INVALID_ARGUMENT when `results` does not hold one entry per replica or
  // a replica has no such output.
  absl::StatusOr<std::vector<Tensor>> ExperimentalLocalResults(const PerReplica& results,
                                                               int output) const;
  // A variable's component values, one per component (one per replica for
  // mirrored variables), without notifying tapes.
  std::vector<Tensor> ExperimentalLocalResults(const DistributedVariable& variable) const;
};

// The strategy used when no StrategyScope is active: one replica on the
// thread's current device (DeviceScope) or the host; variables have one
// component. As tf.distribute's default strategy.
Strategy& DefaultStrategy();

// The innermost active StrategyScope's strategy on this thread, else the
// default strategy. Replica threads started by Run() see their strategy.
Strategy& CurrentStrategy();
bool HasStrategy();  // True when a non-default strategy is active.

// The replica context of this thread while inside Strategy::Run(), else
// null (cross-replica context).
ReplicaContext* CurrentReplicaContext();

// Makes `strategy` current on this thread until destroyed. Scopes nest.
class StrategyScope {
 public:
  explicit StrategyScope(Strategy* strategy);
  ~StrategyScope();
  StrategyScope(const StrategyScope&) = delete;
  StrategyScope& operator=(const StrategyScope&) = delete;

 private:
  Strategy* previous_;
};

// Set by a strategy on each replica thread for the duration of the step.
class ReplicaContextScope {
 public:
  explicit ReplicaContextScope(ReplicaContext* context);
  ~ReplicaContextScope();
  ReplicaContextScope(const ReplicaContextScope&) = delete;
  ReplicaContextScope& operator=(const ReplicaContextScope&) = delete;

 private:
  ReplicaContext* previous_;
  Strategy* previous_strategy_;
};

// Leaves replica context on this thread until destroyed: inside it,
// CurrentReplicaContext() is null while the strategy stays current. Merge
// functions run in it (cross-replica context). Scopes nest.
class CrossReplicaScope {
 public:
  CrossReplicaScope();
  ~CrossReplicaScope();
  CrossReplicaScope(const CrossReplicaScope&) = delete;
  CrossReplicaScope& operator=(const CrossReplicaScope&) = delete;

 private:
  ReplicaContext* previous_;
};

// Model::Fit and friends set this while running their own step functions:
// inside it, a loss with the implicit SUM_OVER_BATCH_SIZE reduction is
// allowed under a strategy (the loop scales it); outside it, TensorFlow
// refuses that reduction in a replica context, and so does tfd.
class BuiltinTrainingLoopScope {
 public:
  BuiltinTrainingLoopScope();
  ~BuiltinTrainingLoopScope();
  BuiltinTrainingLoopScope(const BuiltinTrainingLoopScope&) = delete;
  BuiltinTrainingLoopScope& operator=(const BuiltinTrainingLoopScope&) = delete;

 private:
  bool previous_;
};
bool InBuiltinTrainingLoop();

// Creates a variable with the current strategy (CurrentStrategy()).
absl::StatusOr<std::shared_ptr<DistributedVariable>> CreateVariable(const VariableSpec& spec);

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_STRATEGY_H_
