// TF_DETERMINISTIC_OPS as read by a process: set here before the first
// query, since the variable is read once.
#include <cstdlib>

#include "core/framework/determinism.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(DeterminismEnvTest, TrueInTheEnvironmentTurnsItOn) {
  ASSERT_EQ(setenv("TF_DETERMINISTIC_OPS", "True", 1), 0);
  EXPECT_TRUE(OpDeterminismEnabled());
  // EnableOpDeterminism still overrides the environment.
  EnableOpDeterminism(false);
  EXPECT_FALSE(OpDeterminismEnabled());
}

}  // namespace
}  // namespace tfd
