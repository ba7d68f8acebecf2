// Tests of logical GPU numbering over two fake physical GPUs
// (FakeGpu::Get(0) and Get(1)): every logical device gets its own name,
// numbered across the physical GPUs in order, as in TensorFlow.
#include "core/device/logical_devices.h"

#include <set>
#include <string>
#include <vector>

#include "core/framework/fake_gpu_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FakeGpu;

// A logical device over a fake physical GPU: its own name, the physical
// GPU's memory and copies (so copies through it are counted there).
class LogicalFakeGpu final : public Device {
 public:
  LogicalFakeGpu(FakeGpu* physical, int id) : Device(DeviceType::kGPU, id), physical_(physical) {}
  FakeGpu* physical() const { return physical_; }
  Allocator* allocator() override { return physical_->allocator(); }
  absl::Status CopyHostToDevice(const void* src, void* dst, size_t n) override {
    return physical_->CopyHostToDevice(src, dst, n);
  }
  absl::Status CopyDeviceToHost(const void* src, void* dst, size_t n) override {
    return physical_->CopyDeviceToHost(src, dst, n);
  }
  absl::Status CopyDeviceToDevice(const void* src, void* dst, size_t n) override {
    return physical_->CopyDeviceToDevice(src, dst, n);
  }
  absl::Status Memset(void* dst, int value, size_t n) override {
    return physical_->Memset(dst, value, n);
  }

 private:
  FakeGpu* const physical_;
};

LogicalDeviceTable::Maker FakeMaker(int* made) {
  return [made](int physical, int id) -> Device* {
    ++*made;
    return new LogicalFakeGpu(FakeGpu::Get(physical), id);
  };
}

TEST(LogicalDevicesTest, FirstIdsCountAcrossPhysicalGpus) {
  EXPECT_EQ(*FirstLogicalIds({1}), std::vector<int>({0}));
  EXPECT_EQ(*FirstLogicalIds({2, 3}), std::vector<int>({0, 2}));
  EXPECT_EQ(*FirstLogicalIds({1, 2, 1}), std::vector<int>({0, 1, 3}));
  EXPECT_EQ(FirstLogicalIds({}).status().code(), absl::StatusCode::kInvalidArgument);
  absl::Status zero = FirstLogicalIds({2, 0}).status();
  EXPECT_EQ(zero.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(zero.message().find("physical GPU 1 needs at least 1 logical device, got 0"),
            absl::string_view::npos)
      << zero;
}

// The bug this guards against: both physical GPUs split in two used to
// give two /device:GPU:0 and two /device:GPU:1.
TEST(LogicalDevicesTest, TwoPhysicalGpusSplitInTwoGiveFourNames) {
  int made = 0;
  LogicalDeviceTable table(FakeMaker(&made));
  absl::StatusOr<std::vector<LogicalDevice>> all = table.Create({2, 2});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ(made, 4);
  std::set<std::string> names;
  for (int j = 0; j < 4; ++j) {
    const LogicalDevice& d = (*all)[j];
    EXPECT_EQ(d.device->name(), "/device:GPU:" + std::to_string(j));
    EXPECT_EQ(d.device->id(), j);
    EXPECT_EQ(d.physical, j / 2);
    EXPECT_EQ(static_cast<LogicalFakeGpu*>(d.device)->physical(), FakeGpu::Get(j / 2));
    names.insert(d.device->name());
  }
  EXPECT_EQ(names.size(), 4u);

  // GPU:2 is physical GPU 1's: a copy through it lands there.
  FakeGpu* gpu1 = FakeGpu::Get(1);
  const int before = gpu1->copies_to_device();
  const int before0 = FakeGpu::Get(0)->copies_to_device();
  float src = 3.5f, dst = 0.0f;
  ASSERT_TRUE((*all)[2].device->CopyHostToDevice(&src, &dst, sizeof(float)).ok());
  EXPECT_EQ(dst, 3.5f);
  EXPECT_EQ(gpu1->copies_to_device(), before + 1);
  EXPECT_EQ(FakeGpu::Get(0)->copies_to_device(), before0);
}

TEST(LogicalDevicesTest, AnUnsplitGpuIsOneLogicalDeviceNumberedInOrder) {
  int made = 0;
  LogicalDeviceTable table(FakeMaker(&made));
  absl::StatusOr<std::vector<LogicalDevice>> all = table.Create({1, 3});
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), 4u);
  EXPECT_EQ((*all)[0].physical, 0);
  EXPECT_EQ((*all)[0].device->name(), "/device:GPU:0");
  for (int j = 1; j < 4; ++j) {
    EXPECT_EQ((*all)[j].physical, 1);
    EXPECT_EQ((*all)[j].device->name(), "/device:GPU:" + std::to_string(j));
  }
}

TEST(LogicalDevicesTest, TheFirstConfigurationIsKept) {
  int made = 0;
  LogicalDeviceTable table(FakeMaker(&made));
  // A bad configuration fixes nothing.
  EXPECT_EQ(table.Create({0, 2}).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(made, 0);
  absl::StatusOr<std::vector<LogicalDevice>> first = table.Create({2, 1});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(made, 3);

  // The same counts again: the same devices, none made.
  absl::StatusOr<std::vector<LogicalDevice>> again = table.Create({2, 1});
  ASSERT_TRUE(again.ok()) << again.status();
  ASSERT_EQ(again->size(), first->size());
  for (size_t j = 0; j < first->size(); ++j) EXPECT_EQ((*again)[j].device, (*first)[j].device);
  EXPECT_EQ(made, 3);

  // Other counts would name a second set of devices GPU:0...: refused.
  absl::Status other = table.Create({1, 2}).status();
  EXPECT_EQ(other.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(other.message().find("already configured as [2, 1]"), absl::string_view::npos) << other;
  EXPECT_NE(other.message().find("to [1, 2]"), absl::string_view::npos) << other;
  EXPECT_EQ(made, 3);
}

}  // namespace
}  // namespace tfd
