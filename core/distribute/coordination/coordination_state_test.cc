#include "core/distribute/coordination/coordination_state.h"

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace coordination {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

const char kW0[] = "/job:worker/replica:0/task:0";
const char kW1[] = "/job:worker/replica:0/task:1";
const char kW2[] = "/job:worker/replica:0/task:2";

std::vector<std::string> ThreeWorkers() { return {kW0, kW1, kW2}; }

TEST(CoordinationStateTest, RefusesATaskNotInTheClusterSpec) {
  CoordinationState state(ThreeWorkers(), {});
  absl::Status status = state.RegisterTask("/job:worker/replica:0/task:7", 1);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("task:7 is not in the cluster spec"));
  EXPECT_THAT(status.message(), HasSubstr(kW2));
}

TEST(CoordinationStateTest, BarrierReleasesEveryTaskOnceAllArrive) {
  CoordinationState state(ThreeWorkers(), {});
  std::vector<absl::Status> results(3);
  std::vector<std::thread> threads;
  const std::vector<std::string> tasks = ThreeWorkers();
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(state.RegisterTask(tasks[i], i).ok());
  }
  for (int i = 0; i < 3; ++i) {
    threads.emplace_back([&, i] {
      absl::SleepFor(absl::Milliseconds(20 * i));
      results[i] = state.Barrier("init", tasks[i], absl::Seconds(10));
    });
  }
  for (auto& t : threads) t.join();
  for (const absl::Status& s : results) EXPECT_TRUE(s.ok()) << s;
}

TEST(CoordinationStateTest, BarrierTimeoutNamesTheMissingTasks) {
  CoordinationState state(ThreeWorkers(), {});
  ASSERT_TRUE(state.RegisterTask(kW0, 1).ok());
  ASSERT_TRUE(state.RegisterTask(kW1, 1).ok());
  const absl::Time start = absl::Now();
  absl::Status status = state.Barrier("init", kW0, absl::Milliseconds(200));
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr("barrier 'init' timed out"));
  EXPECT_THAT(status.message(), HasSubstr(std::string(kW1) + ", " + kW2 + " (never registered)"));
  // The job failed: the next barrier reports the same error at once.
  EXPECT_EQ(state.Barrier("next", kW1, absl::Seconds(10)), status);
}

TEST(CoordinationStateTest, BarrierNeedsRegistration) {
  CoordinationState state(ThreeWorkers(), {});
  EXPECT_EQ(state.Barrier("init", kW0, absl::Seconds(1)).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(CoordinationStateTest, GetWaitsForTheValue) {
  CoordinationState state(ThreeWorkers(), {});
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(50));
    ASSERT_TRUE(state.SetKeyValue("gloo/rank/1", std::string("addr\0x", 6)).ok());
  });
  absl::StatusOr<std::string> value = state.GetKeyValue("gloo/rank/1", absl::Seconds(10));
  setter.join();
  ASSERT_TRUE(value.ok()) << value.status();
  EXPECT_EQ(*value, std::string("addr\0x", 6));
}

TEST(CoordinationStateTest, GetTimeoutNamesTheKey) {
  CoordinationState state(ThreeWorkers(), {});
  absl::StatusOr<std::string> value = state.GetKeyValue("nccl/id", absl::Milliseconds(50));
  EXPECT_EQ(value.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(value.status().message(), HasSubstr("key 'nccl/id' was not set within 50ms"));
}

TEST(CoordinationStateTest, SilentTaskIsDeclaredUnavailableAndWakesWaiters) {
  CoordinationServiceOptions options;
  options.heartbeat_timeout = absl::Milliseconds(300);
  CoordinationState state(ThreeWorkers(), options);
  ASSERT_TRUE(state.RegisterTask(kW0, 1).ok());
  ASSERT_TRUE(state.RegisterTask(kW1, 1).ok());
  ASSERT_TRUE(state.RegisterTask(kW2, 1).ok());
  // kW0 keeps heartbeating while waiting; kW1 and kW2 go silent. Every
  // wait is long, so only the heartbeat watcher can end it.
  std::atomic<bool> done{false};
  std::thread heartbeats([&] {
    while (!done) {
      (void)state.Heartbeat(kW0, 1);
      absl::SleepFor(absl::Milliseconds(50));
    }
  });
  const absl::Time start = absl::Now();
  absl::StatusOr<std::string> value = state.GetKeyValue("never", absl::Seconds(30));
  const absl::Duration waited = absl::Now() - start;
  done = true;
  heartbeats.join();
  EXPECT_EQ(value.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(value.status().message(), HasSubstr("is unavailable: no heartbeat"));
  EXPECT_THAT(value.status().message(), Not(HasSubstr(kW0)));
  EXPECT_LT(waited, absl::Seconds(3));
  // Heartbeats of the healthy task still succeed; the job has failed.
  EXPECT_TRUE(state.Heartbeat(kW0, 1).ok());
  EXPECT_EQ(state.JobError(), value.status());
}

TEST(CoordinationStateTest, HeartbeatFromAnOldIncarnationIsRefused) {
  CoordinationState state(ThreeWorkers(), {});
  ASSERT_TRUE(state.RegisterTask(kW0, 1).ok());
  ASSERT_TRUE(state.RegisterTask(kW0, 2).ok());  // Restarted.
  EXPECT_TRUE(state.Heartbeat(kW0, 2).ok());
  EXPECT_EQ(state.Heartbeat(kW0, 1).code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(state.Heartbeat(kW1, 1).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(CoordinationStateTest, ShutdownWaitsForEveryTask) {
  CoordinationState state({kW0, kW1}, {});
  ASSERT_TRUE(state.RegisterTask(kW0, 1).ok());
  ASSERT_TRUE(state.RegisterTask(kW1, 1).ok());
  absl::Status alone = state.ShutdownTask(kW0, absl::Milliseconds(50));
  EXPECT_EQ(alone.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(alone.message(), HasSubstr("tasks still running: " + std::string(kW1)));
  std::thread other([&] { EXPECT_TRUE(state.ShutdownTask(kW1, absl::Seconds(10)).ok()); });
  EXPECT_TRUE(state.ShutdownTask(kW0, absl::Seconds(10)).ok());
  other.join();
}

TEST(CoordinationStateTest, ShutdownEndsWhenAPeerIsDeclaredDead) {
  CoordinationServiceOptions options;
  options.heartbeat_timeout = absl::Milliseconds(300);
  CoordinationState state({kW0, kW1}, options);
  ASSERT_TRUE(state.RegisterTask(kW0, 1).ok());
  ASSERT_TRUE(state.RegisterTask(kW1, 1).ok());
  // kW0 shuts down (no heartbeats expected from it); kW1 went silent.
  const absl::Time start = absl::Now();
  absl::Status status = state.ShutdownTask(kW0, absl::Seconds(30));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(status.message(), HasSubstr(std::string(kW1) + " is unavailable"));
}

TEST(CoordinationStateTest, StopWakesWaiters) {
  CoordinationState state(ThreeWorkers(), {});
  std::thread stopper([&] {
    absl::SleepFor(absl::Milliseconds(50));
    state.Stop();
  });
  absl::StatusOr<std::string> value = state.GetKeyValue("k", absl::Seconds(30));
  stopper.join();
  EXPECT_EQ(value.status().code(), absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace coordination
}  // namespace tfd
