// The watchdog over fake work: completion, the transport's errors, the
// deadlines, shutdown, order, and an idle watchdog that does not poll.
#include "core/distribute/collectives/nccl/collective_watchdog.h"

#include <atomic>
#include <memory>
#include <thread>  // NOLINT(build/c++11): a rank thread and a shutdown.
#include <vector>

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

// What a test controls of one fake collective, shared with the watchdog's
// copy of it.
struct FakeState {
  std::atomic<bool> done{false};
  std::atomic<int> queries{0};
  std::atomic<bool> destroyed{false};
  absl::Mutex mu;
  absl::Status query_error ABSL_GUARDED_BY(mu);
  absl::Status async_error ABSL_GUARDED_BY(mu);
};

class FakeWork : public OutstandingWork {
 public:
  explicit FakeWork(std::shared_ptr<FakeState> state) : state_(std::move(state)) {}
  ~FakeWork() override { state_->destroyed = true; }
  absl::StatusOr<bool> IsDone() override {
    ++state_->queries;
    absl::MutexLock lock(&state_->mu);
    if (!state_->query_error.ok()) return state_->query_error;
    return state_->done.load();
  }
  absl::Status AsyncError() override {
    absl::MutexLock lock(&state_->mu);
    return state_->async_error;
  }

 private:
  std::shared_ptr<FakeState> state_;
};

// The abort function's calls.
struct Aborts {
  absl::Mutex mu;
  std::vector<absl::Status> calls ABSL_GUARDED_BY(mu);
  int count() {
    absl::MutexLock lock(&mu);
    return static_cast<int>(calls.size());
  }
  absl::Status first() {
    absl::MutexLock lock(&mu);
    return calls.empty() ? absl::OkStatus() : calls[0];
  }
};

std::function<void(const absl::Status&)> Record(Aborts* aborts) {
  return [aborts](const absl::Status& s) {
    absl::MutexLock lock(&aborts->mu);
    aborts->calls.push_back(s);
  };
}

std::shared_ptr<FakeState> Watch(CollectiveWatchdog& w, int rank, const std::string& what,
                                 absl::Duration timeout = absl::Minutes(5)) {
  auto state = std::make_shared<FakeState>();
  absl::Status s =
      w.Watch({rank, what, absl::Now() + timeout, timeout}, std::make_unique<FakeWork>(state));
  EXPECT_TRUE(s.ok()) << s;
  return state;
}

// Polls `cond` for up to 10 s (the watchdog works on its own thread).
template <typename Cond>
bool Eventually(Cond cond) {
  const absl::Time end = absl::Now() + absl::Seconds(10);
  while (!cond()) {
    if (absl::Now() > end) return false;
    absl::SleepFor(absl::Milliseconds(1));
  }
  return true;
}

bool Contains(const absl::Status& s, const std::string& part) {
  return s.message().find(part) != absl::string_view::npos;
}

TEST(CollectiveWatchdogTest, WaitAllReturnsOnceTheWorkIsDone) {
  Aborts aborts;
  CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
  std::shared_ptr<FakeState> work = Watch(w, 0, "AllReduce #0");
  EXPECT_EQ(w.outstanding(0), 1);
  // Not done yet: the wait's own deadline passes without failing the group.
  absl::Status early = w.WaitAll(0, absl::Now() + absl::Milliseconds(20));
  EXPECT_EQ(early.code(), absl::StatusCode::kDeadlineExceeded) << early;
  EXPECT_TRUE(Contains(early, "the oldest is AllReduce #0")) << early;
  EXPECT_TRUE(w.status().ok());
  work->done = true;
  EXPECT_TRUE(w.WaitAll(0, absl::Now() + absl::Seconds(10)).ok());
  EXPECT_EQ(w.outstanding(0), 0);
  EXPECT_TRUE(Eventually([&] { return work->destroyed.load(); }));
  EXPECT_EQ(w.Stats().watched, 1);
  EXPECT_EQ(w.Stats().finished, 1);
  EXPECT_EQ(aborts.count(), 0);
  // A rank with nothing outstanding does not wait.
  EXPECT_TRUE(w.WaitAll(7, absl::Now()).ok());
}

TEST(CollectiveWatchdogTest, AsyncErrorPoisonsAbortsOnceAndLaterCallsFail) {
  Aborts aborts;
  CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
  std::shared_ptr<FakeState> a = Watch(w, 1, "AllReduce #4");
  std::shared_ptr<FakeState> b = Watch(w, 1, "Broadcast #5");
  {
    absl::MutexLock lock(&a->mu);
    a->async_error = absl::UnavailableError("remote peer closed the connection");
  }
  absl::Status waited = w.WaitAll(1, absl::Now() + absl::Seconds(10));
  EXPECT_EQ(waited.code(), absl::StatusCode::kUnavailable) << waited;
  EXPECT_TRUE(Contains(waited, "NcclAllReduce: AllReduce #4 on rank 1: remote peer closed"))
      << waited;
  ASSERT_EQ(aborts.count(), 1);
  EXPECT_EQ(aborts.first(), waited);
  EXPECT_EQ(w.status(), waited);
  // The aborted work is let go; later work is refused with the real error.
  EXPECT_TRUE(Eventually([&] { return a->destroyed.load() && b->destroyed.load(); }));
  auto late = std::make_shared<FakeState>();
  EXPECT_EQ(w.Watch({1, "AllReduce #6", absl::InfiniteFuture()}, std::make_unique<FakeWork>(late)),
            waited);
  EXPECT_TRUE(late->destroyed);
  EXPECT_EQ(w.WaitAll(0, absl::Now()), waited);
  EXPECT_EQ(w.Fail(absl::InternalError("second")), waited);
  EXPECT_EQ(aborts.count(), 1);
}

TEST(CollectiveWatchdogTest, FailedQueryFailsTheGroup) {
  Aborts aborts;
  CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
  std::shared_ptr<FakeState> work = Watch(w, 0, "AllGather #1");
  {
    absl::MutexLock lock(&work->mu);
    work->query_error = absl::InternalError("cudaEventQuery: an illegal memory access");
  }
  absl::Status waited = w.WaitAll(0, absl::Now() + absl::Seconds(10));
  EXPECT_EQ(waited.code(), absl::StatusCode::kInternal) << waited;
  EXPECT_TRUE(Contains(waited, "AllGather #1 on rank 0: cudaEventQuery")) << waited;
  EXPECT_EQ(aborts.count(), 1);
}

TEST(CollectiveWatchdogTest, TimeoutIsDeadlineExceededNamingRankAndCollective) {
  Aborts aborts;
  CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
  std::shared_ptr<FakeState> work = Watch(w, 3, "AllReduce #2", absl::Milliseconds(50));
  absl::Status waited = w.WaitAll(3, absl::Now() + absl::Seconds(10));
  EXPECT_EQ(waited.code(), absl::StatusCode::kDeadlineExceeded) << waited;
  EXPECT_TRUE(Contains(waited, "NcclAllReduce: AllReduce #2 timed out after 50ms on rank 3"))
      << waited;
  EXPECT_EQ(aborts.count(), 1);
  EXPECT_EQ(aborts.first(), waited);
  EXPECT_EQ(w.status(), waited);
}

TEST(CollectiveWatchdogTest, AnItemBehindTheOldestTimesOutOnItsOwnDeadline) {
  Aborts aborts;
  CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
  Watch(w, 0, "AllReduce #0", absl::Minutes(5));
  Watch(w, 0, "AllReduce #1", absl::Milliseconds(30));
  absl::Status waited = w.WaitAll(0, absl::Now() + absl::Seconds(10));
  EXPECT_EQ(waited.code(), absl::StatusCode::kDeadlineExceeded) << waited;
  EXPECT_TRUE(Contains(waited, "AllReduce #1 timed out after 30ms on rank 0")) << waited;
}

TEST(CollectiveWatchdogTest, ManyItemsFinishInOrderAndOnlyTheOldestIsQueried) {
  Aborts aborts;
  CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
  std::vector<std::shared_ptr<FakeState>> items;
  for (int i = 0; i < 100; ++i) items.push_back(Watch(w, 0, "AllReduce #" + std::to_string(i)));
  std::shared_ptr<FakeState> other_rank = Watch(w, 1, "AllReduce #0");
  // Done out of order: nothing behind a busy oldest item is let go (or
  // even queried), while another rank's work goes its own way.
  items[50]->done = true;
  other_rank->done = true;
  EXPECT_TRUE(w.WaitAll(1, absl::Now() + absl::Seconds(10)).ok());
  EXPECT_TRUE(Eventually([&] { return items[0]->queries.load() >= 3; }));
  EXPECT_EQ(w.outstanding(0), 100);
  for (int i = 1; i < 100; ++i) EXPECT_EQ(items[i]->queries.load(), 0) << i;
  for (int i = 0; i < 50; ++i) items[i]->done = true;
  EXPECT_TRUE(Eventually([&] { return w.outstanding(0) == 49; })) << w.outstanding(0);
  EXPECT_FALSE(items[51]->destroyed);
  for (int i = 51; i < 100; ++i) items[i]->done = true;
  EXPECT_TRUE(w.WaitAll(0, absl::Now() + absl::Seconds(10)).ok());
  EXPECT_EQ(w.Stats().finished, 101);
  EXPECT_EQ(aborts.count(), 0);
}

TEST(CollectiveWatchdogTest, IdleWatchdogDoesNotPoll) {
  Aborts aborts;
  CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
  absl::SleepFor(absl::Milliseconds(30));
  EXPECT_EQ(w.Stats().looks, 0);
  std::shared_ptr<FakeState> work = Watch(w, 0, "AllReduce #0");
  // Busy: it looks again and again (every poll interval).
  EXPECT_TRUE(Eventually([&] { return w.Stats().looks >= 5; }));
  work->done = true;
  ASSERT_TRUE(w.WaitAll(0, absl::Now() + absl::Seconds(10)).ok());
  // Idle again: the thread sleeps on its condition variable.
  const int64_t looks = w.Stats().looks;
  const int queries = work->queries.load();
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_LE(w.Stats().looks, looks + 1);  // At most the look that found it done.
  EXPECT_LE(work->queries.load(), queries + 1);
}

TEST(CollectiveWatchdogTest, ShutdownWaitsForOutstandingWork) {
  Aborts aborts;
  auto w = std::make_unique<CollectiveWatchdog>("NcclAllReduce", Record(&aborts));
  std::shared_ptr<FakeState> work = Watch(*w, 0, "AllReduce #0");
  absl::Notification gone;
  std::thread shutdown([&] {
    w.reset();
    gone.Notify();
  });
  EXPECT_FALSE(gone.WaitForNotificationWithTimeout(absl::Milliseconds(50)));
  work->done = true;
  EXPECT_TRUE(gone.WaitForNotificationWithTimeout(absl::Seconds(10)));
  shutdown.join();
  EXPECT_TRUE(work->destroyed);
  EXPECT_EQ(aborts.count(), 0);
}

TEST(CollectiveWatchdogTest, ShutdownWithHungWorkAbortsAtItsDeadline) {
  Aborts aborts;
  std::shared_ptr<FakeState> work;
  {
    CollectiveWatchdog w("NcclAllReduce", Record(&aborts));
    work = Watch(w, 2, "Broadcast #9", absl::Milliseconds(40));
  }
  EXPECT_TRUE(work->destroyed);
  ASSERT_EQ(aborts.count(), 1);
  EXPECT_EQ(aborts.first().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_TRUE(Contains(aborts.first(), "Broadcast #9 timed out after 40ms on rank 2"))
      << aborts.first();
}

TEST(CollectiveWatchdogTest, RanksFailingTogetherAbortOnceAndBothSeeTheFirstStatus) {
  absl::Notification abort_started, finish_abort;
  std::atomic<int> aborts{0};
  CollectiveWatchdog w("NcclAllReduce", [&](const absl::Status&) {
    ++aborts;
    abort_started.Notify();
    finish_abort.WaitForNotification();
  });
  std::shared_ptr<FakeState> work = Watch(w, 0, "AllReduce #0");
  absl::Status first;
  std::thread rank0([&] { first = w.Fail(absl::AbortedError("rank 0 failed")); });
  abort_started.WaitForNotification();
  // Rank 1 fails while rank 0's abort runs: it must not return before it
  // is done (its tensors may still be in use until then).
  absl::Status second;
  absl::Notification second_returned;
  std::thread rank1([&] {
    second = w.Fail(absl::InternalError("rank 1 failed"));
    second_returned.Notify();
  });
  EXPECT_FALSE(second_returned.WaitForNotificationWithTimeout(absl::Milliseconds(30)));
  finish_abort.Notify();
  rank0.join();
  rank1.join();
  EXPECT_EQ(aborts.load(), 1);
  EXPECT_EQ(first.code(), absl::StatusCode::kAborted);
  EXPECT_EQ(second, first);
  EXPECT_TRUE(work->destroyed);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
