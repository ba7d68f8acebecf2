#include "core/framework/determinism.h"

#include <cstdlib>
#include <thread>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(DeterminismTest, ParsesTensorFlowsValues) {
  EXPECT_FALSE(ParseDeterministicOpsSwitch(nullptr));
  EXPECT_TRUE(ParseDeterministicOpsSwitch("1"));
  EXPECT_TRUE(ParseDeterministicOpsSwitch("true"));
  EXPECT_TRUE(ParseDeterministicOpsSwitch("TRUE"));
  EXPECT_TRUE(ParseDeterministicOpsSwitch("True"));
  EXPECT_FALSE(ParseDeterministicOpsSwitch("0"));
  EXPECT_FALSE(ParseDeterministicOpsSwitch("false"));
  EXPECT_FALSE(ParseDeterministicOpsSwitch("FALSE"));
  EXPECT_FALSE(ParseDeterministicOpsSwitch(""));
}

TEST(DeterminismTest, UnknownValuesLeaveItOff) {
  EXPECT_FALSE(ParseDeterministicOpsSwitch("yes"));
  EXPECT_FALSE(ParseDeterministicOpsSwitch("2"));
  EXPECT_FALSE(ParseDeterministicOpsSwitch(" 1"));
}

TEST(DeterminismTest, OffByDefaultAndEnableWins) {
  // Bazel's test environment does not set TF_DETERMINISTIC_OPS.
  ASSERT_EQ(std::getenv("TF_DETERMINISTIC_OPS"), nullptr);
  EXPECT_FALSE(OpDeterminismEnabled());
  EnableOpDeterminism();
  EXPECT_TRUE(OpDeterminismEnabled());
  // The environment is not read again once the switch is decided.
  ASSERT_EQ(setenv("TF_DETERMINISTIC_OPS", "0", 1), 0);
  EXPECT_TRUE(OpDeterminismEnabled());
  EnableOpDeterminism(false);
  EXPECT_FALSE(OpDeterminismEnabled());
  ASSERT_EQ(unsetenv("TF_DETERMINISTIC_OPS"), 0);
}

TEST(DeterminismTest, ConcurrentTogglesAndReadsSeeOneOfTheValues) {
  EnableOpDeterminism(false);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      for (int i = 0; i < 1000; ++i) {
        if (t % 2 == 0) {
          EnableOpDeterminism(i % 2 == 0);
        } else {
          (void)OpDeterminismEnabled();
        }
      }
    });
  }
  for (std::thread& th : threads) th.join();
  // Each writer's last store is false (i = 999), so the last value is too.
  EXPECT_FALSE(OpDeterminismEnabled());
}

}  // namespace
}  // namespace tfd
