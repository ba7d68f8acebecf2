// Tensor::CopyToAsync and the Device hooks behind it: on the FakeGpu, whose
// copy queue lands bytes only when a fence is waited for, and on a device
// that keeps the synchronous defaults.
#include <cstring>
#include <memory>

#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_testutil.h"
#include "core/device/cpu/cpu_allocator.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::AsTensor;
using test::ExpectTensorEqual;
using test::FakeGpu;

// A GPU-typed device over host memory with none of the async hooks.
class SyncGpu : public Device {
 public:
  SyncGpu() : Device(DeviceType::kGPU, 7) {}
  Allocator* allocator() override { return CpuAllocator(); }
  absl::Status CopyHostToDevice(const void* src, void* dst, size_t n) override {
    std::memcpy(dst, src, n);
    return absl::OkStatus();
  }
  absl::Status CopyDeviceToHost(const void* src, void* dst, size_t n) override {
    std::memcpy(dst, src, n);
    return absl::OkStatus();
  }
  absl::Status CopyDeviceToDevice(const void* src, void* dst, size_t n) override {
    std::memcpy(dst, src, n);
    return absl::OkStatus();
  }
  absl::Status Memset(void* dst, int value, size_t n) override {
    std::memset(dst, value, n);
    return absl::OkStatus();
  }
};

TEST(AsyncCopyTest, FakeGpuCopyLandsWhenTheFenceIsWaitedFor) {
  FakeGpu* gpu = FakeGpu::Get();
  const int before = gpu->async_copies();
  std::shared_ptr<DeviceFence> ready;
  absl::StatusOr<Tensor> on_gpu;
  {
    Tensor host = AsTensor<float>({1.5f, -2.0f, 3.25f, 4.0f}, {2, 2});
    on_gpu = host.CopyToAsync(gpu, &ready);
    ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
    // The source may be overwritten and dropped at once.
    host.flat<float>()[0] = 99.0f;
  }
  EXPECT_EQ(on_gpu->device(), gpu);
  EXPECT_EQ(on_gpu->shape(), TensorShape({2, 2}));
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(gpu->async_copies(), before + 1);
  EXPECT_GE(gpu->pending_async_copies(), 1);
  ASSERT_TRUE(gpu->WaitForFence(ready.get()).ok());
  EXPECT_EQ(gpu->pending_async_copies(), 0);
  ExpectTensorEqual(*on_gpu, AsTensor<float>({1.5f, -2.0f, 3.25f, 4.0f}, {2, 2}));
}

TEST(AsyncCopyTest, WaitingForALaterFenceLandsEarlierCopies) {
  FakeGpu* gpu = FakeGpu::Get();
  std::shared_ptr<DeviceFence> first, second;
  auto a = AsTensor<int32_t>({1, 2, 3}, {3}).CopyToAsync(gpu, &first);
  auto b = AsTensor<int32_t>({4, 5}, {2}).CopyToAsync(gpu, &second);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(gpu->WaitForFence(second.get()).ok());
  ExpectTensorEqual(*a, AsTensor<int32_t>({1, 2, 3}, {3}));
  ExpectTensorEqual(*b, AsTensor<int32_t>({4, 5}, {2}));
}

TEST(AsyncCopyTest, DroppingTheResultBeforeTheWaitIsSafe) {
  FakeGpu* gpu = FakeGpu::Get();
  std::shared_ptr<DeviceFence> ready;
  {
    auto t = AsTensor<float>(std::vector<float>(1000, 1.0f), {1000}).CopyToAsync(gpu, &ready);
    ASSERT_TRUE(t.ok());
  }
  // The pending copy into the freed buffer must not land.
  EXPECT_TRUE(gpu->WaitForFence(ready.get()).ok());
  EXPECT_TRUE(gpu->Synchronize().ok());
}

TEST(AsyncCopyTest, HostDevicesAndEmptyTensorsNeedNoFence) {
  std::shared_ptr<DeviceFence> ready;
  Tensor host = AsTensor<float>({1, 2}, {2});
  auto copy = host.CopyToAsync(HostDevice(), &ready);
  ASSERT_TRUE(copy.ok());
  EXPECT_EQ(ready, nullptr);
  EXPECT_FALSE(copy->SharesBufferWith(host));
  ExpectTensorEqual(*copy, host);

  auto empty = Tensor(DT_FLOAT, {0, 3}).CopyToAsync(FakeGpu::Get(), &ready);
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(ready, nullptr);
  EXPECT_EQ(empty->shape(), TensorShape({0, 3}));
}

TEST(AsyncCopyTest, DefaultHooksCopySynchronously) {
  SyncGpu gpu;
  std::shared_ptr<DeviceFence> ready;
  auto t = AsTensor<double>({2.5, 3.5}, {2}).CopyToAsync(&gpu, &ready);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(ready, nullptr);
  EXPECT_EQ(t->device(), &gpu);
  EXPECT_EQ(test::ToHost(*t).data<double>()[1], 3.5);
  EXPECT_TRUE(gpu.WaitForFence(nullptr).ok());
}

TEST(AsyncCopyTest, FencesBelongToTheirDevice) {
  SyncGpu other;
  std::shared_ptr<DeviceFence> ready;
  auto t = AsTensor<float>({1}, {1}).CopyToAsync(FakeGpu::Get(), &ready);
  ASSERT_TRUE(t.ok());
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ(other.WaitForFence(ready.get()).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(FakeGpu::Get()->WaitForFence(ready.get()).ok());
}

// The second fake GPU has its own copy queue: strategies copy between the
// two, and one's fence is no use to the other.
TEST(AsyncCopyTest, TheTwoFakeGpusQueueTheirOwnCopies) {
  FakeGpu* first = FakeGpu::Get(0);
  FakeGpu* second = FakeGpu::Get(1);
  ASSERT_NE(first, second);
  EXPECT_NE(first->name(), second->name());
  EXPECT_EQ(second->type(), DeviceType::kGPU);
  ASSERT_TRUE(first->Synchronize().ok());
  std::shared_ptr<DeviceFence> ready;
  auto t = AsTensor<float>({7, 8}, {2}).CopyToAsync(second, &ready);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->device(), second);
  EXPECT_EQ(second->pending_async_copies(), 1);
  EXPECT_EQ(first->pending_async_copies(), 0);
  EXPECT_EQ(first->WaitForFence(ready.get()).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(second->WaitForFence(ready.get()).ok());
  ExpectTensorEqual(*t, AsTensor<float>({7, 8}, {2}));
  // Between the two, a copy goes through the host, as between real GPUs
  // without peer access.
  const int to_host = second->copies_to_host();
  const int to_first = first->copies_to_device();
  absl::StatusOr<Tensor> moved = t->CopyTo(first);
  ASSERT_TRUE(moved.ok()) << moved.status();
  EXPECT_EQ(moved->device(), first);
  EXPECT_EQ(second->copies_to_host(), to_host + 1);
  EXPECT_EQ(first->copies_to_device(), to_first + 1);
  ExpectTensorEqual(*moved, AsTensor<float>({7, 8}, {2}));
}

TEST(AsyncCopyTest, BadInputsAreErrors) {
  std::shared_ptr<DeviceFence> ready;
  FakeGpu* gpu = FakeGpu::Get();
  Tensor strings(DT_STRING, {2});
  EXPECT_EQ(strings.CopyToAsync(gpu, &ready).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor().CopyToAsync(gpu, &ready).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(AsTensor<float>({1}, {1}).CopyToAsync(nullptr, &ready).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto on_gpu = AsTensor<float>({1}, {1}).CopyTo(gpu);
  ASSERT_TRUE(on_gpu.ok());
  EXPECT_EQ(on_gpu->CopyToAsync(gpu, &ready).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(AsyncCopyTest, StringTensorsAreNeverCopiedToADevice) {
  FakeGpu* gpu = FakeGpu::Get();
  Tensor strings(DT_STRING, {2});
  strings.data<std::string>()[0] = "a string longer than the small-string buffer";
  const int copies = gpu->copies_to_device();
  for (const absl::Status& status :
       {strings.CopyTo(gpu).status(),
        [&] {
          std::shared_ptr<DeviceFence> ready;
          return strings.CopyToAsync(gpu, &ready).status();
        }()}) {
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_NE(status.message().find("string tensor of shape [2]"), std::string::npos) << status;
    EXPECT_NE(status.message().find(gpu->name()), std::string::npos) << status;
  }
  EXPECT_EQ(gpu->copies_to_device(), copies);
  // To the host they are deep copies.
  absl::StatusOr<Tensor> host = strings.CopyTo(HostDevice());
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_FALSE(host->SharesBufferWith(strings));
  EXPECT_EQ(host->data<std::string>()[0], strings.data<std::string>()[0]);
}

}  // namespace
}  // namespace tfd
