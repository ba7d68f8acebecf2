// Tests of the CUDA device. The device-count and error cases run on every
// CUDA build; the rest needs a GPU and skips, saying so, without one.
#include "core/device/cuda/cuda_device.h"

#include <cstring>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "core/device/cuda/cuda_event.h"
#include "core/device/cuda/cuda_event_backend.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/device/device_registry.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(CudaDeviceTest, CountNeverFailsAndMatchesTheRegistry) {
  const int count = CudaDevice::DeviceCount();
  EXPECT_GE(count, 0);
  EXPECT_EQ(DeviceCount(DeviceType::kGPU), count);
  if (count == 0) {
    absl::StatusOr<Device*> d = FindDevice("/device:GPU:0");
    EXPECT_EQ(d.status().code(), absl::StatusCode::kNotFound) << d.status();
    EXPECT_NE(std::string(d.status().message()).find("0 GPUs are visible"), std::string::npos)
        << d.status();
  }
}

TEST(CudaDeviceTest, BadOrdinalsAreErrors) {
  EXPECT_EQ(CudaDevice::Get(-1).status().code(), absl::StatusCode::kInvalidArgument);
  absl::StatusOr<CudaDevice*> past = CudaDevice::Get(CudaDevice::DeviceCount());
  EXPECT_EQ(past.status().code(), absl::StatusCode::kNotFound) << past.status();
}

TEST(CudaDeviceTest, AsCudaDeviceRefusesTheHost) {
  absl::StatusOr<CudaDevice*> d = AsCudaDevice(HostDevice());
  EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(d.status().message()).find("/device:CPU:0"), std::string::npos);
}

using CudaDeviceGpuTest = test::GpuTest;

TEST_F(CudaDeviceGpuTest, IsTheRegisteredGpuZero) {
  EXPECT_EQ(gpu_->name(), "/device:GPU:0");
  EXPECT_EQ(gpu_->type(), DeviceType::kGPU);
  EXPECT_FALSE(gpu_->host_memory());
  EXPECT_EQ(gpu_->thread_pool(), nullptr);
  absl::StatusOr<Device*> found = FindDevice("GPU:0");
  ASSERT_TRUE(found.ok()) << found.status();
  EXPECT_EQ(*found, gpu_);
  EXPECT_EQ(*CudaDevice::Get(0), gpu_);
  EXPECT_FALSE(gpu_->description().empty());
}

TEST_F(CudaDeviceGpuTest, TensorsRoundTripThroughDeviceMemory) {
  std::vector<float> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = 0.5f * i - 7;
  Tensor host = test::AsTensor<float>(values, {10, 100});
  absl::StatusOr<Tensor> on_gpu = host.CopyTo(gpu_);
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
  EXPECT_EQ(on_gpu->device(), gpu_);
  // Device to device, then a view of rows 3..5, then back.
  absl::StatusOr<Tensor> copy = on_gpu->CopyTo(gpu_);
  ASSERT_TRUE(copy.ok()) << copy.status();
  absl::StatusOr<Tensor> rows = copy->Slice(3, 5);
  ASSERT_TRUE(rows.ok());
  absl::StatusOr<Tensor> back = rows->CopyTo(HostDevice());
  ASSERT_TRUE(back.ok()) << back.status();
  std::vector<float> expected(values.begin() + 300, values.begin() + 500);
  test::ExpectTensorEqual(*back, test::AsTensor<float>(expected, {2, 100}));
}

TEST_F(CudaDeviceGpuTest, ZerosAndMemsetFillDeviceMemory) {
  absl::StatusOr<Tensor> z = Tensor::Zeros(DT_INT32, {257}, gpu_);
  ASSERT_TRUE(z.ok()) << z.status();
  ASSERT_TRUE(gpu_->Memset(z->data<int32_t>() + 1, 0x01, 4).ok());
  absl::StatusOr<Tensor> back = z->CopyTo(HostDevice());
  ASSERT_TRUE(back.ok()) << back.status();
  std::vector<int32_t> expected(257, 0);
  expected[1] = 0x01010101;
  test::ExpectTensorEqual(*back, test::AsTensor<int32_t>(expected, {257}));
}

TEST_F(CudaDeviceGpuTest, EmptyTensorsNeedNoCopies) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(DT_FLOAT, {0, 5}, gpu_);
  ASSERT_TRUE(t.ok()) << t.status();
  absl::StatusOr<Tensor> back = t->CopyTo(HostDevice());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->NumElements(), 0);
}

TEST_F(CudaDeviceGpuTest, SteadyAllocationUsesTheCache) {
  ASSERT_TRUE(gpu_->Synchronize().ok());
  // Warm up, then a loop of same-sized tensors must not reach cudaMalloc.
  { absl::StatusOr<Tensor> t = Tensor::Allocate(DT_FLOAT, {1024, 1024}, gpu_); }
  const int64_t before = gpu_->caching_allocator().Stats().num_device_allocs;
  for (int i = 0; i < 50; ++i) {
    absl::StatusOr<Tensor> t = Tensor::Allocate(DT_FLOAT, {1024, 1024}, gpu_);
    ASSERT_TRUE(t.ok()) << t.status();
  }
  EXPECT_EQ(gpu_->caching_allocator().Stats().num_device_allocs, before);
  const AllocatorStats s = gpu_->allocator()->Stats();
  EXPECT_GE(s.peak_bytes_in_use, 4 << 20);
}

TEST_F(CudaDeviceGpuTest, ImpossibleAllocationIsResourceExhausted) {
  absl::StatusOr<Tensor> t = Tensor::Allocate(DT_FLOAT, {int64_t{1} << 46}, gpu_);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kResourceExhausted) << t.status();
  // The device stays usable, and no stale error leaks into later calls.
  absl::StatusOr<Tensor> small = Tensor::Zeros(DT_FLOAT, {16}, gpu_);
  ASSERT_TRUE(small.ok()) << small.status();
  EXPECT_TRUE(gpu_->Synchronize().ok());
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
}

TEST_F(CudaDeviceGpuTest, EventsOrderAndTimeTheStream) {
  absl::StatusOr<CudaEvent> start = CudaEvent::Create(0, /*timing=*/true);
  absl::StatusOr<CudaEvent> stop = CudaEvent::Create(0, /*timing=*/true);
  ASSERT_TRUE(start.ok() && stop.ok());
  absl::StatusOr<Tensor> big = Tensor::Allocate(DT_FLOAT, {64 << 20}, gpu_);
  ASSERT_TRUE(big.ok()) << big.status();
  ASSERT_TRUE(start->Record(gpu_->stream()).ok());
  ASSERT_TRUE(gpu_->Memset(big->raw_data(), 0, big->TotalBytes()).ok());
  ASSERT_TRUE(stop->Record(gpu_->stream()).ok());
  absl::StatusOr<float> ms = CudaEvent::ElapsedMs(*start, *stop);
  ASSERT_TRUE(ms.ok()) << ms.status();
  EXPECT_GT(*ms, 0.0f);
  absl::StatusOr<bool> done = stop->IsDone();
  ASSERT_TRUE(done.ok());
  EXPECT_TRUE(*done);
}

// The stream runs a host function that sleeps, so an event recorded after
// it is not ready when queried.
void HoldStream(cudaStream_t stream) {
  ASSERT_EQ(cudaLaunchHostFunc(
                stream, [](void*) { absl::SleepFor(absl::Milliseconds(200)); }, nullptr),
            cudaSuccess);
}

TEST_F(CudaDeviceGpuTest, EventNotReadyLeavesNoLastError) {
  // cudaEventQuery stores cudaErrorNotReady as the thread's last error; a
  // kernel launched next would report it as its own failure.
  absl::StatusOr<CudaEvent> event = CudaEvent::Create(0);
  ASSERT_TRUE(event.ok()) << event.status();
  HoldStream(gpu_->stream());
  ASSERT_TRUE(event->Record(gpu_->stream()).ok());
  absl::StatusOr<bool> done = event->IsDone();
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_FALSE(*done);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);

  CudaEventBackend* backend = CudaEventBackend::Get();
  absl::StatusOr<EventHandle> handle = backend->Create(0);
  ASSERT_TRUE(handle.ok()) << handle.status();
  HoldStream(gpu_->stream());
  ASSERT_TRUE(backend->Record(*handle, StreamRef{0, gpu_->stream()}).ok());
  absl::StatusOr<bool> queried = backend->Query(*handle);
  ASSERT_TRUE(queried.ok()) << queried.status();
  EXPECT_FALSE(*queried);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
  ASSERT_TRUE(gpu_->Synchronize().ok());
  backend->Destroy(*handle);
}

TEST_F(CudaDeviceGpuTest, ActivateClearsAStaleLastError) {
  // A failed runtime call inside a library leaves its error behind; the
  // next launch check must not see it.
  void* p = nullptr;
  ASSERT_NE(cudaMalloc(&p, size_t{1} << 62), cudaSuccess);
  ASSERT_NE(cudaPeekAtLastError(), cudaSuccess);
  ASSERT_TRUE(gpu_->Activate().ok());
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess);
}

TEST_F(CudaDeviceGpuTest, CublasHandleIsBoundToTheStream) {
  absl::Status s = gpu_->WithCublas([this](cublasHandle_t h) -> absl::Status {
    cudaStream_t stream = nullptr;
    if (cublasGetStream(h, &stream) != CUBLAS_STATUS_SUCCESS) {
      return absl::InternalError("cublasGetStream failed");
    }
    EXPECT_EQ(stream, gpu_->stream());
    return absl::OkStatus();
  });
  EXPECT_TRUE(s.ok()) << s;
}

TEST_F(CudaDeviceGpuTest, LogicalDevicesShareThePhysicalGpu) {
  auto logical = CudaDevice::CreateLogical(0, 2);
  ASSERT_TRUE(logical.ok()) << logical.status();
  ASSERT_EQ(logical->size(), 2u);
  CudaDevice* physical = *CudaDevice::Get(0);
  for (int i = 0; i < 2; ++i) {
    CudaDevice* d = (*logical)[i];
    EXPECT_NE(d, physical);
    EXPECT_EQ(d->name(), "/device:GPU:" + std::to_string(i));
    EXPECT_EQ(d->ordinal(), 0);
    EXPECT_TRUE(d->is_logical());
    EXPECT_EQ(d->stream(), physical->stream());
    EXPECT_EQ(&d->caching_allocator(), &physical->caching_allocator());
  }
  EXPECT_FALSE(physical->is_logical());
  // Made once for the process.
  EXPECT_EQ(*CudaDevice::CreateLogical(0, 2), *logical);
  EXPECT_EQ(CudaDevice::CreateLogical(0, 0).status().code(), absl::StatusCode::kInvalidArgument);
  // The whole split: GPU 0 in two, every other GPU one logical device,
  // numbered on from GPU:2 (TensorFlow's numbering across GPUs).
  std::vector<int> counts(CudaDevice::DeviceCount(), 1);
  counts[0] = 2;
  auto all = CudaDevice::CreateLogical(counts);
  ASSERT_TRUE(all.ok()) << all.status();
  ASSERT_EQ(all->size(), counts.size() + 1);
  EXPECT_EQ((*all)[0], (*logical)[0]);
  EXPECT_EQ((*all)[1], (*logical)[1]);
  for (size_t j = 2; j < all->size(); ++j) {
    EXPECT_EQ((*all)[j]->name(), "/device:GPU:" + std::to_string(j));
    EXPECT_EQ((*all)[j]->ordinal(), static_cast<int>(j) - 1);
  }
  // Another split would give a second device the name of one that exists.
  EXPECT_EQ(CudaDevice::CreateLogical(0, 3).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(CudaDevice::CreateLogical(std::vector<int>(counts.size() + 1, 1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  // A tensor moves between logical devices and back unchanged.
  Tensor x = test::AsTensor<float>({1, 2, 3}, TensorShape({3}));
  auto on0 = x.CopyTo((*logical)[0]);
  ASSERT_TRUE(on0.ok());
  auto on1 = on0->CopyTo((*logical)[1]);
  ASSERT_TRUE(on1.ok()) << on1.status();
  test::ExpectTensorEqual(*on1->CopyTo(HostDevice()), x);
  bool ran = false;
  EXPECT_TRUE((*logical)[1]->WithCublas([&](cublasHandle_t) {
    ran = true;
    return absl::OkStatus();
  }).ok());
  EXPECT_TRUE(ran);
}

}  // namespace
}  // namespace tfd
