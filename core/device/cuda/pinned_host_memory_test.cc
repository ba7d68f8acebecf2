// Pinned host tensors: the memory is page-locked (cudaPointerGetAttributes
// says host memory registered with CUDA), round-trips through a GPU, and
// returns to the cache when the last handle goes, so a steady loop
// allocates from the system once. They need a GPU (a driver) and skip,
// saying so, without one.
#include "core/device/cuda/pinned_host_memory.h"

#include <cuda_runtime_api.h>

#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(PinnedHostMemoryTest, TensorsArePinnedAndRoundTrip) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  absl::StatusOr<Tensor> staging = PinnedHostTensor(DT_FLOAT, {64, 33});
  ASSERT_TRUE(staging.ok()) << staging.status();
  cudaPointerAttributes attrs;
  ASSERT_EQ(cudaPointerGetAttributes(&attrs, staging->raw_data()), cudaSuccess);
  EXPECT_EQ(attrs.type, cudaMemoryTypeHost);
  std::vector<double> expected;
  for (int64_t i = 0; i < staging->NumElements(); ++i) {
    staging->data<float>()[i] = static_cast<float>(i) * 0.5f;
    expected.push_back(static_cast<double>(i) * 0.5);
  }
  absl::StatusOr<CudaDevice*> gpu = CudaDevice::Get(0);
  ASSERT_TRUE(gpu.ok()) << gpu.status();
  absl::StatusOr<Tensor> on_gpu = staging->CopyTo(*gpu);
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
  absl::StatusOr<Tensor> back = on_gpu->CopyTo(HostDevice());
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(test::ToDoubles(*back), expected);
}

TEST(PinnedHostMemoryTest, ASteadyLoopIsServedFromTheCache) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  { ASSERT_TRUE(PinnedHostTensor(DT_FLOAT, {1024}).ok()); }
  const int64_t device_allocs = PinnedHostMemory().Stats().num_device_allocs;
  for (int i = 0; i < 100; ++i) {
    absl::StatusOr<Tensor> t = PinnedHostTensor(DT_FLOAT, {1024});
    ASSERT_TRUE(t.ok()) << t.status();
  }
  EXPECT_EQ(PinnedHostMemory().Stats().num_device_allocs, device_allocs);
  EXPECT_EQ(PinnedHostMemory().Stats().allocated_bytes, 0);
}

}  // namespace
}  // namespace tfd
