#include "tools/tfd/multi_worker_train.h"

#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cli {
namespace {

using ::testing::HasSubstr;

absl::Status RunWith(const TrainFlags& flags, const std::string& tf_config) {
  return RunMultiWorkerTrain(flags, stdout, distribute::EnvFromMap({{"TF_CONFIG", tf_config}}));
}

TrainFlags MultiWorkerFlags() {
  TrainFlags flags;
  flags.strategy = "multi_worker_mirrored";
  return flags;
}

TEST(MultiWorkerTrainTest, OptionsComeFromTheFlags) {
  TrainFlags flags = MultiWorkerFlags();
  flags.startup_timeout_s = 7;
  flags.heartbeat_timeout_s = 2;
  flags.collective_timeout_s = 30;
  const distribute::MultiWorkerMirroredStrategyOptions options = MultiWorkerOptions(flags);
  EXPECT_EQ(options.local_replicas, 1);
  EXPECT_EQ(options.startup_timeout, absl::Seconds(7));
  EXPECT_EQ(options.heartbeat_timeout, absl::Seconds(2));
  // Several beats within the timeout, at most one a second.
  EXPECT_EQ(options.heartbeat_interval, absl::Milliseconds(500));
  EXPECT_EQ(options.communication.timeout, absl::Seconds(30));
  flags.heartbeat_timeout_s = 60;
  EXPECT_EQ(MultiWorkerOptions(flags).heartbeat_interval, absl::Seconds(1));
}

// Each role's refusal, before any job starts.
TEST(MultiWorkerTrainTest, RefusedRolesAreClearErrors) {
  struct Case {
    std::string tf_config;
    absl::StatusCode code;
    std::string message;
  };
  const std::vector<Case> cases = {
      {R"({"cluster": {"worker": ["localhost:1"], "ps": ["localhost:2"]},
           "task": {"type": "ps", "index": 0}})",
       absl::StatusCode::kInvalidArgument, "has a ps job"},
      {R"({"cluster": {"worker": ["localhost:1"], "ps": ["localhost:2"]},
           "task": {"type": "worker", "index": 0}})",
       absl::StatusCode::kInvalidArgument, "has a ps job"},
      // The evaluator evaluates the chief's checkpoints: it needs their
      // directory.
      {R"({"cluster": {"worker": ["localhost:1"], "evaluator": ["localhost:2"]},
           "task": {"type": "evaluator", "index": 0}})",
       absl::StatusCode::kInvalidArgument, "--checkpoint_dir"},
      {R"({"cluster": {"worker": ["localhost:1"]}, "task": {"type": "driver", "index": 0}})",
       absl::StatusCode::kInvalidArgument, "TF_CONFIG"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.tf_config);
    absl::Status s = RunWith(MultiWorkerFlags(), c.tf_config);
    EXPECT_EQ(s.code(), c.code) << s;
    EXPECT_THAT(s.message(), HasSubstr(c.message));
  }
}

}  // namespace
}  // namespace cli
}  // namespace tfd
