#include "tools/tfd/strategy_factory.h"

#include "gtest/gtest.h"

namespace tfd {
namespace cli {
namespace {

TEST(StrategyFactoryTest, MakesEachStrategyByName) {
  const struct {
    const char* flag;
    int replicas;
    const char* name;
  } cases[] = {{"one_device", 1, "OneDeviceStrategy"},
               {"mirrored", 1, "MirroredStrategy"},
               {"mirrored", 2, "MirroredStrategy"},
               {"central_storage", 2, "CentralStorageStrategy"}};
  for (const auto& c : cases) {
    absl::StatusOr<std::unique_ptr<distribute::Strategy>> s = MakeStrategy(c.flag, c.replicas);
    ASSERT_TRUE(s.ok()) << c.flag << ": " << s.status();
    EXPECT_EQ((*s)->name(), c.name);
    EXPECT_EQ((*s)->num_replicas_in_sync(), c.replicas) << c.flag;
    EXPECT_EQ((*s)->replica_devices().size(), static_cast<size_t>(c.replicas)) << c.flag;
  }
}

TEST(StrategyFactoryTest, RefusesBadRequests) {
  EXPECT_EQ(MakeStrategy("parameter_server", 1).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeStrategy("mirrored", 0).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeStrategy("one_device", 2).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace cli
}  // namespace tfd
