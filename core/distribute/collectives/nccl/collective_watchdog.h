// CollectiveWatchdog: watches a group's collectives after their ranks have
// stopped waiting for them, and ends the group when one fails or hangs.
//
// A rank that has queued a collective on the device returns from Wait()
// as soon as the results are ordered on its compute stream (Note [Streams
// and events] in nccl_communicator.h), so the host goes on dispatching the
// optimizer update and the next step while the collective runs. What is
// left to watch goes here as OutstandingWork: one thread per group looks
// at it, as PyTorch's ProcessGroupNCCL watchdog does, and on the first
// of
//   - an error of the work itself (the event query failed),
//   - the transport's asynchronous error (ncclCommGetAsyncError),
//   - the collective's deadline,
// fails the group: the status is stored first (every later call and wait
// of the group returns it), then the group's abort function runs once
// (NCCL: ncclCommAbort of every local communicator, which ends the kernels
// that would otherwise spin, so the streams waiting behind them go on).
//
// Note [Watching in order]
// Each rank's work completes in the order it was queued (one NCCL stream
// per rank), so only the oldest item of each rank is queried; the others
// are checked against their deadlines only. A look at a busy group costs
// one query per rank; an idle watchdog sleeps on a condition variable
// until work arrives and never polls.
//
// Note [Poll intervals]
// Outstanding work is looked at every Options::poll_interval (default
// 1 ms: timeouts are minutes, so detection can be slow; the thread should
// not cost a core). While a thread blocks in WaitAll(), the interval drops
// to Options::waited_poll_interval (20 us) so that a host that needs the
// results does not wait a millisecond more than the device.
//
// The device is reached only through OutstandingWork, so all of this is
// plain C++ tested with fakes in every build (collective_watchdog_test.cc).
//
// Thread safety: every method may be called from any thread. The abort
// function runs on the thread that failed the group (the watchdog's own,
// or a rank's in Fail()); Fail() returns only once it has run, so a
// caller may release the memory the aborted work used.
//
//   CollectiveWatchdog watchdog("NcclAllReduce", [&](const absl::Status&) { AbortAll(); });
//   TFD_RETURN_IF_ERROR(
//       watchdog.Watch({rank, "AllReduce #3", deadline, timeout}, std::move(work)));
//   ...
//   TFD_RETURN_IF_ERROR(watchdog.WaitAll(rank, absl::Now() + timeout));  // host completion
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_COLLECTIVE_WATCHDOG_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_COLLECTIVE_WATCHDOG_H_

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <thread>  // NOLINT(build/c++11): the watchdog's own thread.

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace tfd {
namespace distribute {

// One collective queued on a device, as the watchdog sees it. Destroying
// it releases what it holds (the event); that happens on the watchdog's
// thread, on the thread that failed the group, or in Watch() on a failed
// group.
class OutstandingWork {
 public:
  virtual ~OutstandingWork() = default;
  // True once the device has finished the work; never blocks. An error
  // fails the group.
  virtual absl::StatusOr<bool> IsDone() = 0;
  // The transport's asynchronous error for this work's rank; OK while
  // there is none.
  virtual absl::Status AsyncError() = 0;
};

// What the watchdog reports a failure of: the collective and its rank.
struct WorkInfo {
  int rank = 0;
  std::string what;  // "AllReduce #3"
  absl::Time deadline = absl::InfiniteFuture();
  absl::Duration timeout = absl::InfiniteDuration();  // For the message.
};

struct WatchdogOptions {
  absl::Duration poll_interval = absl::Milliseconds(1);
  absl::Duration waited_poll_interval = absl::Microseconds(20);
};

struct WatchdogStats {
  int64_t watched = 0;   // Items handed to Watch() and accepted.
  int64_t finished = 0;  // Items seen done.
  int64_t looks = 0;     // Rounds over the outstanding work.
};

class CollectiveWatchdog {
 public:
  // Runs `abort` once, with the group's status, when the group fails.
  // `name` starts every message ("NcclAllReduce: AllReduce #3 on rank 1
  // timed out ...").
  CollectiveWatchdog(std::string name, std::function<void(const absl::Status&)> abort,
                     WatchdogOptions options = {});
  // Waits for the outstanding work to finish, each item bounded by its
  // deadline (a late one fails the group, which aborts it), then stops the
  // thread. Collectives that are still queued on the device when a group
  // goes away would otherwise be cut short under their peers.
  ~CollectiveWatchdog();
  CollectiveWatchdog(const CollectiveWatchdog&) = delete;
  CollectiveWatchdog& operator=(const CollectiveWatchdog&) = delete;

  // OK, or the status that ended the group.
  absl::Status status() const;

  // Ends the group with `status` unless it has ended already (the first
  // status wins), runs the abort function if this call ended it, and
  // returns the group's status once the abort is done.
  absl::Status Fail(absl::Status status);

  // Watches `work` until it is done. Returns the group's status: on a
  // failed group the work is dropped at once (its abort has run).
  absl::Status Watch(WorkInfo info, std::unique_ptr<OutstandingWork> work);

  // Blocks until rank `rank` has no outstanding work, the group fails, or
  // `deadline` passes. Returns OK, the group's status, or
  // DEADLINE_EXCEEDED naming the oldest outstanding collective (the group
  // is not failed for it: the collective's own deadline decides that).
  absl::Status WaitAll(int rank, absl::Time deadline);

  // Items of `rank` not seen done yet.
  int outstanding(int rank) const;
  WatchdogStats Stats() const;

 private:
  struct Item {
    WorkInfo info;
    std::unique_ptr<OutstandingWork> work;
  };
  using Queue = std::deque<std::shared_ptr<Item>>;

  void Loop();
  // One look at every rank's work (Note [Watching in order]); returns the
  // error that ends the group, if any.
  absl::Status Look();
  // `found` with the collective and its rank in front; OK stays OK.
  absl::Status Check(const WorkInfo& info, absl::Status found) const;
  bool AnyOutstanding() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::string name_;
  const std::function<void(const absl::Status&)> abort_;
  const WatchdogOptions options_;

  mutable absl::Mutex mu_;
  absl::CondVar wake_;    // New work, a waiter, a failure or stop.
  absl::CondVar change_;  // Work finished, or the group failed.
  std::map<int, Queue> queues_ ABSL_GUARDED_BY(mu_);
  absl::Status status_ ABSL_GUARDED_BY(mu_);
  bool aborted_ ABSL_GUARDED_BY(mu_) = false;  // The abort function has run.
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  int waiters_ ABSL_GUARDED_BY(mu_) = 0;
  WatchdogStats stats_ ABSL_GUARDED_BY(mu_);
  std::thread thread_;
};

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_COLLECTIVE_WATCHDOG_H_
