// The ClusterCoordinator of a parameter-server job, as
// tf.distribute.coordinator.ClusterCoordinator: the chief schedules step
// functions, the workers run them asynchronously against the variables on
// the parameter servers, and the chief fetches their results when it
// wants them.
//
// A step function is registered by name in each worker's process (see
// ps::StartWorkerServer); the worker owns its per-worker dataset iterator
// and its copy of the model, so Schedule() sends only the name. Each
// worker runs one scheduled function at a time; a free worker takes the
// oldest pending one.
//
// Failures: a worker that cannot be reached (down, or silent past
// step_timeout) is dropped, and the function it was running goes back to
// the front of the queue for the others -- steps are run at least once, as
// TensorFlow's coordinator runs them. When no worker is left, the pending
// functions fail with UNAVAILABLE. A dropped worker is watched: once its
// address serves again (the task restarted), the coordinator makes its
// per-worker iterators anew and gives it functions again, as TensorFlow's
// coordinator takes a recovered worker back. An error of the function itself (the
// worker answered with it) fails that RemoteValue; Join() returns the
// first such error and the functions not yet started are CANCELLED.
//
// Per-worker datasets (create_per_worker_dataset): CreatePerWorkerIterator
// asks every live worker to build its own dataset from the function it
// registered under that name and to keep an iterator over it, all under
// one id. A function scheduled with that iterator reads the iterator of
// the worker that runs it -- also after it was moved off a lost worker,
// as TensorFlow's coordinator does. Each worker's dataset is its own (the
// dataset function shards or seeds it by the worker's index).
// ReleasePerWorkerIterator drops them again on every worker (each
// evaluation makes a fresh one, so a long job must), as TensorFlow frees
// a per-worker iterator's resources when the chief's handle goes.
//
// Thread safety: all methods are thread-safe. Destroying the coordinator
// waits for the running calls (each bounded by step_timeout) and cancels
// the pending ones.
//
//   TFD_ASSIGN_OR_RETURN(auto coordinator, ClusterCoordinator::Create(workers, {}));
//   std::vector<std::shared_ptr<RemoteValue>> losses;
//   for (int i = 0; i < 100; ++i) losses.push_back(coordinator->Schedule("train_step"));
//   TFD_RETURN_IF_ERROR(coordinator->Join());
//   TFD_ASSIGN_OR_RETURN(std::vector<Tensor> loss, losses.back()->Fetch());
#ifndef TFD_CORE_DISTRIBUTE_CLUSTER_COORDINATOR_H_
#define TFD_CORE_DISTRIBUTE_CLUSTER_COORDINATOR_H_

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/distribute/remote_value.h"
#include "core/framework/tensor.h"

namespace grpc {
class Status;
}  // namespace grpc

namespace tfd {
namespace distribute {

// A handle on the iterator every worker keeps for one per-worker dataset.
struct PerWorkerIterator {
  int64_t id = 0;  // 0: no iterator.
  std::string dataset;
};

struct ClusterCoordinatorOptions {
  // The deadline of one function on a worker; past it the worker is
  // considered lost.
  absl::Duration step_timeout = absl::Seconds(60);
  // The deadline of releasing an iterator on one worker; a worker that
  // does not answer by then keeps it (it is logged, not an error).
  absl::Duration release_timeout = absl::Seconds(5);
};

class ClusterCoordinator {
 public:
  // Starts one dispatching thread per worker (task i at
  // worker_addresses[i]), which also watches for its worker to come back
  // once lost. INVALID_ARGUMENT for no workers.
  static absl::StatusOr<std::unique_ptr<ClusterCoordinator>> Create(
      std::vector<std::string> worker_addresses, ClusterCoordinatorOptions options = {});
  ~ClusterCoordinator();

  // Queues `function` for the next free worker; with an iterator, the
  // function reads that worker's iterator of the per-worker dataset;
  // `arguments` (float32) go with it (TensorFlow's schedule(fn, args)).
  std::shared_ptr<RemoteValue> Schedule(const std::string& function,
                                        const PerWorkerIterator& iterator = {},
                                        std::vector<Tensor> arguments = {});
  // A fresh iterator on every live worker over its dataset `dataset`
  // (ps::WorkerFunctions::datasets). Waits for workers still starting
  // (each within step_timeout; a worker that answered before and cannot
  // be reached now is not waited for). The first error a worker answered with
  // (NOT_FOUND for an unregistered dataset, the dataset function's own);
  // UNAVAILABLE when no worker could be reached. A worker that cannot be
  // reached is left to the scheduling, which drops it.
  absl::StatusOr<PerWorkerIterator> CreatePerWorkerIterator(const std::string& dataset);
  // Drops `iterator` on every worker, once no scheduled function reads it
  // any more (it waits for those, as Join does). Never fails: a worker
  // that cannot be reached or does not answer within release_timeout (one
  // lost, or restarted without it) is logged and left; a worker taken back
  // later does not make it again. Unknown ids and id 0 are no-ops.
  void ReleasePerWorkerIterator(const PerWorkerIterator& iterator);
  // Waits until every scheduled function finished; the first function
  // error since the last Join (which it then forgets, as TensorFlow's
  // join() does), or UNAVAILABLE when every worker was lost.
  absl::Status Join();
  // True when nothing is pending or running (does not wait).
  bool Done() const;
  int num_live_workers() const;

 private:
  struct Closure {
    int64_t id = 0;
    std::string function;
    int64_t iterator_id = 0;
    std::vector<Tensor> arguments;
    std::shared_ptr<RemoteValue> result;
  };
  class WorkerChannel;
  explicit ClusterCoordinator(ClusterCoordinatorOptions options);
  void WorkerLoop(int worker);
  // Waits for lost `worker` to serve again and makes every per-worker
  // iterator on it; then it is live. False when the coordinator stops
  // first or the worker answers making an iterator with an error.
  bool AwaitRecovery(int worker);
  // MakeIterator for `iterator` on `worker`, waiting for it to be ready
  // within step_timeout.
  grpc::Status MakeIteratorOn(int worker, const PerWorkerIterator& iterator);
  // "/job:worker/replica:0/task:<worker> at <address>".
  std::string WorkerName(int worker) const;
  // Fails every pending closure with `error`.
  void FailPendingLocked(const absl::Status& error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Sets the result of a closure that will not run again, and counts it
  // off its iterator's readers.
  void SettleLocked(Closure& closure, absl::StatusOr<std::vector<Tensor>> result)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // ReleaseIterator of `id` on `worker`, within release_timeout.
  grpc::Status ReleaseIteratorOn(int worker, int64_t id);

  const ClusterCoordinatorOptions options_;
  std::vector<std::unique_ptr<WorkerChannel>> workers_;
  std::vector<std::thread> threads_;

  mutable absl::Mutex mu_;
  std::deque<Closure> pending_ ABSL_GUARDED_BY(mu_);
  int running_ ABSL_GUARDED_BY(mu_) = 0;
  int live_workers_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t next_iterator_id_ ABSL_GUARDED_BY(mu_) = 1;
  std::vector<bool> lost_ ABSL_GUARDED_BY(mu_);  // By worker.
  // By worker: whether it answered a call yet (until then it may be still
  // starting, and calls wait for it).
  std::vector<bool> answered_ ABSL_GUARDED_BY(mu_);
  // Every per-worker iterator made and not released, for workers that
  // come back.
  std::vector<PerWorkerIterator> iterators_ ABSL_GUARDED_BY(mu_);
  // By iterator id: the closures pending or running that read it.
  std::map<int64_t, int> readers_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  absl::Status first_error_ ABSL_GUARDED_BY(mu_);
};

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_CLUSTER_COORDINATOR_H_
