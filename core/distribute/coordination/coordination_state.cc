#include "core/distribute/coordination/coordination_state.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/framework/status.h"

namespace tfd {
namespace coordination {
namespace {

// The id of the barrier that ShutdownTask waits at.
constexpr char kShutdownBarrier[] = "tfd/shutdown";

}  // namespace

CoordinationState::CoordinationState(std::vector<std::string> tasks,
                                     CoordinationServiceOptions options)
    : options_(options), task_list_(std::move(tasks)) {
  for (const std::string& task : task_list_) tasks_[task];
  watcher_ = std::thread([this] { WatchHeartbeats(); });
}

CoordinationState::~CoordinationState() {
  Stop();
  watcher_.join();
}

void CoordinationState::Stop() {
  absl::MutexLock lock(&mu_);
  stopping_ = true;
}

absl::Status CoordinationState::StoppedError() const {
  return absl::UnavailableError("coordination service: shutting down");
}

absl::Status CoordinationState::CheckKnownTask(const std::string& task) const {
  if (tasks_.count(task) > 0) return absl::OkStatus();
  return InvalidArgument("coordination service: task ", task,
                         " is not in the cluster spec; the tasks of this job are ",
                         absl::StrJoin(task_list_, ", "));
}

std::string CoordinationState::MissingTasks(const std::set<std::string>& present) const {
  std::vector<std::string> missing;
  for (const std::string& task : task_list_) {
    if (present.count(task) > 0) continue;
    const TaskState& state = tasks_.at(task);
    missing.push_back(state.registered ? task : absl::StrCat(task, " (never registered)"));
  }
  return absl::StrJoin(missing, ", ");
}

void CoordinationState::SetJobError(absl::Status error) {
  if (job_error_.ok()) job_error_ = std::move(error);
}

absl::Status CoordinationState::JobError() const {
  absl::MutexLock lock(&mu_);
  return job_error_;
}

absl::Status CoordinationState::RegisterTask(const std::string& task, uint64_t incarnation) {
  absl::MutexLock lock(&mu_);
  TFD_RETURN_IF_ERROR(CheckKnownTask(task));
  TaskState& state = tasks_[task];
  state.registered = true;
  state.shut_down = false;
  state.incarnation = incarnation;
  state.last_heartbeat = absl::Now();
  return absl::OkStatus();
}

absl::Status CoordinationState::Heartbeat(const std::string& task, uint64_t incarnation) {
  absl::MutexLock lock(&mu_);
  TFD_RETURN_IF_ERROR(CheckKnownTask(task));
  TaskState& state = tasks_[task];
  if (!state.registered) {
    return FailedPrecondition("coordination service: heartbeat from ", task,
                              ", which has not registered");
  }
  if (state.incarnation != incarnation) {
    return FailedPrecondition("coordination service: heartbeat from an old incarnation of ",
                              task, " (", incarnation, "; the registered one is ",
                              state.incarnation, ")");
  }
  state.last_heartbeat = absl::Now();
  return absl::OkStatus();
}

absl::Status CoordinationState::Barrier(const std::string& id, const std::string& task,
                                        absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  TFD_RETURN_IF_ERROR(CheckKnownTask(task));
  if (!tasks_[task].registered) {
    return FailedPrecondition("coordination service: ", task,
                              " must register before waiting at barrier '", id, "'");
  }
  TFD_RETURN_IF_ERROR(job_error_);
  BarrierState& barrier = barriers_[id];
  barrier.arrived.insert(task);
  if (barrier.arrived.size() == task_list_.size()) barrier.passed = true;

  auto settled = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return barrier.passed || !barrier.error.ok() || !job_error_.ok() || stopping_;
  };
  mu_.AwaitWithDeadline(absl::Condition(&settled), deadline);
  if (barrier.passed) return absl::OkStatus();
  if (!barrier.error.ok()) return barrier.error;
  if (!job_error_.ok()) return job_error_;
  if (stopping_) return StoppedError();
  barrier.error = absl::DeadlineExceededError(absl::StrCat(
      "coordination service: barrier '", id, "' timed out after ",
      absl::FormatDuration(timeout), "; tasks that did not arrive: ",
      MissingTasks(barrier.arrived)));
  SetJobError(barrier.error);
  return barrier.error;
}

absl::Status CoordinationState::SetKeyValue(const std::string& key, std::string value) {
  if (key.empty()) return InvalidArgument("coordination service: empty key");
  absl::MutexLock lock(&mu_);
  store_[key] = std::move(value);
  return absl::OkStatus();
}

absl::StatusOr<std::string> CoordinationState::GetKeyValue(const std::string& key,
                                                           absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  auto present = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return store_.count(key) > 0 || !job_error_.ok() || stopping_;
  };
  mu_.AwaitWithDeadline(absl::Condition(&present), deadline);
  auto it = store_.find(key);
  if (it != store_.end()) return it->second;
  if (!job_error_.ok()) return job_error_;
  if (stopping_) return StoppedError();
  return absl::DeadlineExceededError(absl::StrCat("coordination service: key '", key,
                                                  "' was not set within ",
                                                  absl::FormatDuration(timeout)));
}

absl::Status CoordinationState::ShutdownTask(const std::string& task, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  TFD_RETURN_IF_ERROR(CheckKnownTask(task));
  tasks_[task].shut_down = true;
  BarrierState& barrier = barriers_[kShutdownBarrier];
  barrier.arrived.insert(task);
  if (barrier.arrived.size() == task_list_.size()) barrier.passed = true;
  // A task declared dead never arrives: the job's error ends the wait.
  auto settled = [&]() ABSL_SHARED_LOCKS_REQUIRED(mu_) {
    return barrier.passed || stopping_ || !job_error_.ok();
  };
  mu_.AwaitWithDeadline(absl::Condition(&settled), deadline);
  if (barrier.passed) return absl::OkStatus();
  if (stopping_) return StoppedError();
  if (!job_error_.ok()) return job_error_;
  return absl::DeadlineExceededError(absl::StrCat(
      "coordination service: shutdown of ", task, " timed out after ",
      absl::FormatDuration(timeout), "; tasks still running: ", MissingTasks(barrier.arrived)));
}

void CoordinationState::WatchHeartbeats() {
  // Checking four times per timeout declares a dead task at most a quarter
  // of the timeout late.
  const absl::Duration period = options_.heartbeat_timeout / 4;
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), period);
    if (stopping_) break;
    const absl::Time now = absl::Now();
    for (auto& [name, state] : tasks_) {
      if (!state.registered || state.shut_down) continue;
      const absl::Duration silent = now - state.last_heartbeat;
      if (silent <= options_.heartbeat_timeout) continue;
      SetJobError(absl::UnavailableError(absl::StrCat(
          "task ", name, " is unavailable: no heartbeat for ", absl::FormatDuration(silent),
          " (heartbeat timeout ", absl::FormatDuration(options_.heartbeat_timeout), ")")));
    }
  }
}

}  // namespace coordination
}  // namespace tfd
