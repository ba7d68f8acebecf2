#include "core/framework/env_switch.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(ParseEnvSwitchTest, UnsetOrEmptyGiveTheDefault) {
  EXPECT_TRUE(ParseEnvSwitch("V", nullptr, true, "v"));
  EXPECT_FALSE(ParseEnvSwitch("V", nullptr, false, "v"));
  EXPECT_TRUE(ParseEnvSwitch("V", "", true, "v"));
  EXPECT_FALSE(ParseEnvSwitch("V", "", false, "v"));
}

TEST(ParseEnvSwitchTest, OnAndOffInAnyCase) {
  for (const char* on : {"1", "true", "TRUE", "True"}) {
    EXPECT_TRUE(ParseEnvSwitch("V", on, false, "v")) << on;
  }
  for (const char* off : {"0", "false", "FALSE", "False"}) {
    EXPECT_FALSE(ParseEnvSwitch("V", off, true, "v")) << off;
  }
}

TEST(ParseEnvSwitchTest, AnythingElseGivesTheDefault) {
  for (const char* other : {"yes", "2", " 1", "on"}) {
    EXPECT_TRUE(ParseEnvSwitch("V", other, true, "v")) << other;
    EXPECT_FALSE(ParseEnvSwitch("V", other, false, "v")) << other;
  }
}

TEST(EnvSwitchTest, StartsFromTheEnvironment) {
  ASSERT_EQ(setenv("TFD_ENV_SWITCH_TEST_ON", "true", 1), 0);
  EnvSwitch on("TFD_ENV_SWITCH_TEST_ON", false, "the test setting");
  EXPECT_TRUE(on.enabled());
  unsetenv("TFD_ENV_SWITCH_TEST_UNSET");
  EnvSwitch unset("TFD_ENV_SWITCH_TEST_UNSET", true, "the test setting");
  EXPECT_TRUE(unset.enabled());
}

TEST(EnvSwitchTest, ReadsTheEnvironmentOnce) {
  ASSERT_EQ(setenv("TFD_ENV_SWITCH_TEST_ONCE", "1", 1), 0);
  EnvSwitch s("TFD_ENV_SWITCH_TEST_ONCE", false, "the test setting");
  EXPECT_TRUE(s.enabled());
  ASSERT_EQ(setenv("TFD_ENV_SWITCH_TEST_ONCE", "0", 1), 0);
  EXPECT_TRUE(s.enabled());
}

TEST(EnvSwitchTest, SetWinsOverTheEnvironmentBeforeAndAfterTheFirstRead) {
  ASSERT_EQ(setenv("TFD_ENV_SWITCH_TEST_SET", "1", 1), 0);
  EnvSwitch before("TFD_ENV_SWITCH_TEST_SET", false, "the test setting");
  before.set(false);
  EXPECT_FALSE(before.enabled());
  EnvSwitch after("TFD_ENV_SWITCH_TEST_SET", false, "the test setting");
  EXPECT_TRUE(after.enabled());
  after.set(false);
  EXPECT_FALSE(after.enabled());
  after.set(true);
  EXPECT_TRUE(after.enabled());
}

}  // namespace
}  // namespace tfd
