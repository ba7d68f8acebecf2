#include "core/distribute/collectives/nccl/collective_watchdog.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"

namespace tfd {
namespace distribute {

CollectiveWatchdog::CollectiveWatchdog(std::string name,
                                       std::function<void(const absl::Status&)> abort,
                                       WatchdogOptions options)
    : name_(std::move(name)), abort_(std::move(abort)), options_(options) {
  thread_ = std::thread([this] { Loop(); });
}

CollectiveWatchdog::~CollectiveWatchdog() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    wake_.Signal();
  }
  thread_.join();
}

absl::Status CollectiveWatchdog::status() const {
  absl::MutexLock lock(&mu_);
  return status_;
}

absl::Status CollectiveWatchdog::Fail(absl::Status status) {
  {
    absl::MutexLock lock(&mu_);
    if (!status_.ok()) {
      // Another thread is failing the group: return once its abort is done.
      while (!aborted_) change_.Wait(&mu_);
      return status_;
    }
    status_ =
        status.ok() ? absl::AbortedError(absl::StrCat(name_, ": aborted")) : std::move(status);
    status = status_;
  }
  abort_(status);
  std::map<int, Queue> dropped;  // Released outside the lock.
  absl::MutexLock lock(&mu_);
  aborted_ = true;
  dropped.swap(queues_);
  change_.SignalAll();
  wake_.Signal();
  return status_;
}

absl::Status CollectiveWatchdog::Watch(WorkInfo info, std::unique_ptr<OutstandingWork> work) {
  absl::MutexLock lock(&mu_);
  if (!status_.ok()) {
    while (!aborted_) change_.Wait(&mu_);
    return status_;  // `work` is dropped: the abort ended what it waits for.
  }
  auto item = std::make_shared<Item>();
  item->info = std::move(info);
  item->work = std::move(work);
  queues_[item->info.rank].push_back(std::move(item));
  ++stats_.watched;
  wake_.Signal();
  return absl::OkStatus();
}

absl::Status CollectiveWatchdog::WaitAll(int rank, absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto settled = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (!status_.ok()) return aborted_;
    auto it = queues_.find(rank);
    return it == queues_.end() || it->second.empty();
  };
  ++waiters_;
  wake_.Signal();  // Note [Poll intervals]: look more often from now on.
  while (!settled() && !change_.WaitWithDeadline(&mu_, deadline)) {
  }
  --waiters_;
  if (!status_.ok()) {
    // Past the deadline too: the caller may release memory only after
    // the abort, which is bounded, ended the work.
    while (!aborted_) change_.Wait(&mu_);
    return status_;
  }
  auto it = queues_.find(rank);
  if (it == queues_.end() || it->second.empty()) return absl::OkStatus();
  return absl::DeadlineExceededError(absl::StrCat(
      name_, ": rank ", rank, " still has ", it->second.size(),
      " collective(s) running on its device after the wait's deadline; the oldest is ",
      it->second.front()->info.what));
}

int CollectiveWatchdog::outstanding(int rank) const {
  absl::MutexLock lock(&mu_);
  auto it = queues_.find(rank);
  return it == queues_.end() ? 0 : static_cast<int>(it->second.size());
}

WatchdogStats CollectiveWatchdog::Stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

bool CollectiveWatchdog::AnyOutstanding() const {
  for (const auto& [rank, queue] : queues_) {
    if (!queue.empty()) return true;
  }
  return false;
}

void CollectiveWatchdog::Loop() {
  absl::MutexLock lock(&mu_);
  while (true) {
    // Idle: sleep until there is work (no polling, Note [Watching in order]).
    while (!stopping_ && !AnyOutstanding()) wake_.Wait(&mu_);
    if (!AnyOutstanding()) return;  // Stopping, and everything is done.
    ++stats_.looks;
    mu_.Unlock();
    absl::Status failed = Look();
    if (!failed.ok()) Fail(std::move(failed)).IgnoreError();
    mu_.Lock();
    if (!AnyOutstanding()) continue;
    wake_.WaitWithTimeout(&mu_, waiters_ > 0 ? options_.waited_poll_interval
                                             : options_.poll_interval);
  }
}

absl::Status CollectiveWatchdog::Check(const WorkInfo& info, absl::Status found) const {
  if (found.ok()) return found;
  return absl::Status(found.code(), absl::StrCat(name_, ": ", info.what, " on rank ", info.rank,
                                                 ": ", found.message()));
}

absl::Status CollectiveWatchdog::Look() {
  std::vector<int> ranks;
  {
    absl::MutexLock lock(&mu_);
    for (const auto& [rank, queue] : queues_) ranks.push_back(rank);
  }
  for (int rank : ranks) {
    // Each rank's oldest item, then the next once that one is done.
    while (true) {
      std::shared_ptr<Item> head;
      {
        absl::MutexLock lock(&mu_);
        Queue& queue = queues_[rank];
        if (queue.empty() || !status_.ok()) break;
        head = queue.front();
      }
      // The transport's error first: work that completed on a failed
      // communicator does not count as done.
      absl::Status error = Check(head->info, head->work->AsyncError());
      if (!error.ok()) return error;
      absl::StatusOr<bool> done = head->work->IsDone();
      if (!done.ok()) return Check(head->info, done.status());
      if (!*done) break;
      absl::MutexLock lock(&mu_);
      Queue& queue = queues_[rank];
      if (!queue.empty() && queue.front() == head) {
        queue.pop_front();
        ++stats_.finished;
        change_.SignalAll();
      }
    }
  }
  // Deadlines, oldest first: the items behind a rank's head cannot finish
  // before it, but one of them may have a shorter timeout.
  absl::MutexLock lock(&mu_);
  const absl::Time now = absl::Now();
  for (const auto& [rank, queue] : queues_) {
    for (const std::shared_ptr<Item>& item : queue) {
      if (now < item->info.deadline) continue;
      return absl::DeadlineExceededError(absl::StrCat(
          name_, ": ", item->info.what, " timed out after ",
          absl::FormatDuration(item->info.timeout), " on rank ", rank,
          " (a peer never joined it, or the device never finished it)"));
    }
  }
  return absl::OkStatus();
}

}  // namespace distribute
}  // namespace tfd
