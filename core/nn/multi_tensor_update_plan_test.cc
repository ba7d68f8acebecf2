#include "core/nn/multi_tensor_update_plan.h"

#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

// Devices that exist only as types and ids.
class FakeDevice : public Device {
 public:
  FakeDevice(DeviceType type, int id) : Device(type, id) {}
  Allocator* allocator() override { return nullptr; }
  absl::Status CopyHostToDevice(const void*, void*, size_t) override { return absl::OkStatus(); }
  absl::Status CopyDeviceToHost(const void*, void*, size_t) override { return absl::OkStatus(); }
  absl::Status CopyDeviceToDevice(const void*, void*, size_t) override { return absl::OkStatus(); }
  absl::Status Memset(void*, int, size_t) override { return absl::OkStatus(); }
};

bool Always(const Device*, DataType) { return true; }

TEST(MultiTensorUpdatePlanTest, GpuVariablesGroupByDeviceAndDtypeInOrder) {
  FakeDevice gpu0(DeviceType::kGPU, 0), gpu1(DeviceType::kGPU, 1);
  std::vector<UpdateTarget> targets = {
      {DT_FLOAT, &gpu0}, {DT_HALF, &gpu0}, {DT_FLOAT, &gpu1}, {DT_FLOAT, &gpu0}, {DT_HALF, &gpu0}};
  MultiTensorPlan plan = PlanMultiTensorUpdates(targets, Always);
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_EQ(plan.groups[0].dtype, DT_FLOAT);
  EXPECT_EQ(plan.groups[0].device, &gpu0);
  EXPECT_EQ(plan.groups[0].members, (std::vector<int>{0, 3}));
  EXPECT_EQ(plan.groups[1].dtype, DT_HALF);
  EXPECT_EQ(plan.groups[1].members, (std::vector<int>{1, 4}));
  EXPECT_EQ(plan.groups[2].device, &gpu1);
  EXPECT_EQ(plan.groups[2].members, (std::vector<int>{2}));
  EXPECT_TRUE(plan.singles.empty());
}

TEST(MultiTensorUpdatePlanTest, OneGroupPerLaunchTableOfVariables) {
  FakeDevice gpu(DeviceType::kGPU, 0);
  constexpr int kMax = kMaxVariablesPerGroup;
  std::vector<UpdateTarget> targets(2 * kMax + 4, UpdateTarget{DT_FLOAT, &gpu});
  MultiTensorPlan plan = PlanMultiTensorUpdates(targets, Always);
  ASSERT_EQ(plan.groups.size(), 3u);
  EXPECT_EQ(plan.groups[0].members.size(), static_cast<size_t>(kMax));
  EXPECT_EQ(plan.groups[1].members.size(), static_cast<size_t>(kMax));
  EXPECT_EQ(plan.groups[2].members.size(), 4u);
  EXPECT_EQ(plan.groups[1].members.front(), kMax);
  EXPECT_EQ(plan.groups[2].members.back(), 2 * kMax + 3);
}

TEST(MultiTensorUpdatePlanTest, ResNet50sVariablesAreOneGroup) {
  FakeDevice gpu(DeviceType::kGPU, 0);
  std::vector<UpdateTarget> targets(214, UpdateTarget{DT_FLOAT, &gpu});
  MultiTensorPlan plan = PlanMultiTensorUpdates(targets, Always);
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].members.size(), 214u);
}

TEST(MultiTensorUpdatePlanTest, HostVariablesAndUngroupableDtypesStayOneByOne) {
  FakeDevice cpu(DeviceType::kCPU, 0), gpu(DeviceType::kGPU, 0);
  std::vector<UpdateTarget> targets = {
      {DT_FLOAT, &cpu}, {DT_FLOAT, &gpu}, {DT_DOUBLE, &gpu}, {DT_FLOAT, nullptr}};
  std::vector<std::pair<const Device*, DataType>> asked;
  auto only_float = [&](const Device* d, DataType dtype) {
    asked.emplace_back(d, dtype);
    return dtype == DT_FLOAT;
  };
  MultiTensorPlan plan = PlanMultiTensorUpdates(targets, only_float);
  ASSERT_EQ(plan.groups.size(), 1u);
  EXPECT_EQ(plan.groups[0].members, (std::vector<int>{1}));
  EXPECT_EQ(plan.singles, (std::vector<int>{0, 2, 3}));
  // The host is never asked about: its path does not change.
  for (const auto& [device, dtype] : asked) EXPECT_EQ(device, &gpu);
  EXPECT_TRUE(PlanMultiTensorUpdates({}, Always).groups.empty());
}

}  // namespace
}  // namespace nn
}  // namespace tfd
