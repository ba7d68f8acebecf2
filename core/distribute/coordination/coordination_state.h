// The coordination service's bookkeeping, without the RPC layer: which
// tasks have registered, when each was last heard from, barriers, the
// key-value store and shutdown. coordination_server.h serves it over gRPC;
// tests drive it directly too.
//
// Failure model (as TensorFlow's coordination service): the first error
// that concerns the whole job -- a registered task that stopped
// heartbeating, a barrier that timed out -- becomes the job's error. From
// then on every wait wakes up with it and every heartbeat returns it, so
// each task learns of the failure within one heartbeat interval, with a
// message that names the task at fault. A job that failed is not repaired;
// it is restarted (from a checkpoint or a BackupAndRestore backup).
//
// Thread safety: every method may be called from any thread; the waiting
// ones (Barrier, GetKeyValue, ShutdownTask) block the calling thread for
// at most their timeout.
#ifndef TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_STATE_H_
#define TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_STATE_H_

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tfd {
namespace coordination {

struct CoordinationServiceOptions {
  // A registered task not heard from for this long is declared dead: the
  // job fails with UNAVAILABLE naming it.
  absl::Duration heartbeat_timeout = absl::Seconds(10);
};

class CoordinationState {
 public:
  // `tasks`: the names of the tasks that may join (TaskName()). Starts the
  // thread that watches heartbeats.
  CoordinationState(std::vector<std::string> tasks, CoordinationServiceOptions options);
  ~CoordinationState();
  CoordinationState(const CoordinationState&) = delete;
  CoordinationState& operator=(const CoordinationState&) = delete;

  // Registers (or re-registers, after a restart) `task`. INVALID_ARGUMENT
  // for a task not in the cluster spec, naming it and the valid tasks.
  absl::Status RegisterTask(const std::string& task, uint64_t incarnation);

  // Records that `task` is alive. FAILED_PRECONDITION if it never
  // registered or `incarnation` is not its current one (a stale process).
  // The job's health is JobError().
  absl::Status Heartbeat(const std::string& task, uint64_t incarnation);

  // Blocks until every task has called Barrier(`id`). DEADLINE_EXCEEDED
  // after `timeout`, naming the tasks that did not arrive (and whether they
  // ever registered); the barrier and the job then fail for every task.
  // FAILED_PRECONDITION for a task that has not registered.
  absl::Status Barrier(const std::string& id, const std::string& task, absl::Duration timeout);

  // Stores `value` under `key`, replacing any earlier value, and wakes the
  // tasks waiting for it.
  absl::Status SetKeyValue(const std::string& key, std::string value);

  // The value of `key`, waiting up to `timeout` for some task to set it.
  // DEADLINE_EXCEEDED naming the key; the job's error if it fails meanwhile.
  absl::StatusOr<std::string> GetKeyValue(const std::string& key, absl::Duration timeout);

  // `task` leaves the job: its heartbeats are no longer expected, and the
  // call waits up to `timeout` for every other task to shut down too, so
  // that no task exits while another still needs the service.
  // DEADLINE_EXCEEDED naming the tasks still running; the job's error as
  // soon as there is one (a dead task will never shut down).
  absl::Status ShutdownTask(const std::string& task, absl::Duration timeout);

  // The job's error (OK while healthy).
  absl::Status JobError() const;

  // Wakes every waiting call with UNAVAILABLE (the service is going away)
  // and fails the calls that come later. Idempotent; the destructor calls it.
  void Stop();

 private:
  struct TaskState {
    bool registered = false;
    bool shut_down = false;
    uint64_t incarnation = 0;
    absl::Time last_heartbeat;
  };
  struct BarrierState {
    std::set<std::string> arrived;
    bool passed = false;
    absl::Status error;
  };

  // The error of a call made after Stop().
  absl::Status StoppedError() const;
  absl::Status CheckKnownTask(const std::string& task) const ABSL_SHARED_LOCKS_REQUIRED(mu_);
  std::string MissingTasks(const std::set<std::string>& present) const
      ABSL_SHARED_LOCKS_REQUIRED(mu_);
  void SetJobError(absl::Status error) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Runs on watcher_: declares tasks dead whose heartbeats stopped.
  void WatchHeartbeats();

  const CoordinationServiceOptions options_;
  const std::vector<std::string> task_list_;

  mutable absl::Mutex mu_;
  std::map<std::string, TaskState> tasks_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, BarrierState> barriers_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, std::string> store_ ABSL_GUARDED_BY(mu_);
  absl::Status job_error_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  std::thread watcher_;
};

}  // namespace coordination
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_STATE_H_
