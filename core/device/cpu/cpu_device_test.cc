#include "core/device/cpu/cpu_device.h"

#include <cstring>

#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(CpuDeviceTest, HostDeviceUsesAllCores) {
  Device* host = HostDevice();
  EXPECT_EQ(host->name(), "/device:CPU:0");
  EXPECT_TRUE(host->host_memory());
  ASSERT_NE(host->thread_pool(), nullptr);
  EXPECT_EQ(host->thread_pool()->NumThreads(), NumAvailableCpus());
}

TEST(CpuDeviceTest, LogicalDevicesSplitTheCores) {
  const int cpus = NumAvailableCpus();
  auto devices = CreateCpuLogicalDevices(2);
  ASSERT_TRUE(devices.ok()) << devices.status();
  ASSERT_EQ(devices->size(), 2u);
  int threads = 0;
  for (const auto& d : *devices) threads += d->thread_pool()->NumThreads();
  // Disjoint shares when there are enough cores; one thread each otherwise.
  EXPECT_EQ(threads, cpus >= 2 ? cpus : 2);
  if (cpus >= 2) {
    for (int c : (*devices)[0]->thread_pool()->cpus()) {
      for (int d : (*devices)[1]->thread_pool()->cpus()) EXPECT_NE(c, d);
    }
  }
  EXPECT_EQ(CreateCpuLogicalDevices(0).status().code(), absl::StatusCode::kInvalidArgument);
  auto overridden = CreateCpuLogicalDevices(3, 1);
  ASSERT_TRUE(overridden.ok());
  EXPECT_EQ((*overridden)[2]->thread_pool()->NumThreads(), 1);
}

TEST(CpuDeviceTest, CopiesAndMemsetAreHostMemory) {
  CpuDevice d(0, 1);
  char src[8] = "abcdefg";
  char dst[8] = {};
  ASSERT_TRUE(d.CopyHostToDevice(src, dst, 8).ok());
  EXPECT_STREQ(dst, "abcdefg");
  ASSERT_TRUE(d.Memset(dst, 0, 8).ok());
  EXPECT_EQ(dst[3], 0);
  void* p = d.allocator()->Allocate(100);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % kTensorAlignment, 0u);
  EXPECT_GE(d.allocator()->Stats().bytes_in_use, 100);
  d.allocator()->Deallocate(p, 100);
}

}  // namespace
}  // namespace tfd
