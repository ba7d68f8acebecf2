#include "core/distribute/testing/free_port.h"

#include <set>

#include "gtest/gtest.h"

namespace tfd {
namespace testing {
namespace {

TEST(FreePortTest, PortsAreDistinctAndValid) {
  absl::StatusOr<std::vector<int>> ports = PickFreePorts(5);
  ASSERT_TRUE(ports.ok()) << ports.status();
  ASSERT_EQ(ports->size(), 5u);
  std::set<int> distinct(ports->begin(), ports->end());
  EXPECT_EQ(distinct.size(), 5u);
  for (int port : *ports) {
    EXPECT_GT(port, 0);
    EXPECT_LT(port, 65536);
  }
}

}  // namespace
}  // namespace testing
}  // namespace tfd
