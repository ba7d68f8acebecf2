#include "tools/tfd/strategy_factory.h"

#include "core/device/cpu/cpu_device.h"
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

// Given devices (the GPUs --devices chose), each is one replica. CPU
// logical devices stand in for GPUs here: the factory only places replicas.
TEST(StrategyFactoryTest, PutsOneReplicaOnEachGivenDevice) {
  absl::StatusOr<std::vector<std::unique_ptr<CpuDevice>>> owned = CreateCpuLogicalDevices(2);
  ASSERT_TRUE(owned.ok()) << owned.status();
  std::vector<Device*> devices;
  for (const auto& d : *owned) devices.push_back(d.get());
  const struct {
    const char* flag;
    size_t replicas;
    const char* name;
  } cases[] = {{"one_device", 1, "OneDeviceStrategy"},
               {"mirrored", 2, "MirroredStrategy"},
               {"central_storage", 2, "CentralStorageStrategy"}};
  for (const auto& c : cases) {
    absl::StatusOr<std::unique_ptr<distribute::Strategy>> s = MakeStrategy(c.flag, 1, devices);
    ASSERT_TRUE(s.ok()) << c.flag << ": " << s.status();
    EXPECT_EQ((*s)->name(), c.name);
    const std::vector<Device*> used = (*s)->replica_devices();
    ASSERT_EQ(used.size(), c.replicas) << c.flag;
    for (size_t i = 0; i < used.size(); ++i) EXPECT_EQ(used[i], devices[i]) << c.flag;
  }
  // --replicas counts CPU replicas and does not go with given devices.
  EXPECT_EQ(MakeStrategy("mirrored", 2, devices).status().code(),
            absl::StatusCode::kInvalidArgument);
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
