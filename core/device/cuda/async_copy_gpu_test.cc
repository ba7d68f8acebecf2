// Host-to-device copies that do not wait, on a real GPU: values survive
// the caller overwriting its source at once while many copies are in
// flight (pinned staging blocks under reuse pressure), pinned tensors are
// read in place and their blocks kept until the copy ran, and copies on
// the copy stream are ordered by their fences. Skips without a GPU.
#include <cstring>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/device/cuda/pinned_host_memory.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

class AsyncCopyGpuTest : public test::GpuTest {
 protected:
  // `n` floats: a sawtooth of quarters plus `offset`.
  static std::vector<float> Pattern(int64_t n, float offset) {
    std::vector<float> v(n);
    for (int64_t i = 0; i < n; ++i) v[i] = 0.25f * static_cast<float>(i % 4096) + offset;
    return v;
  }

  static void ExpectOnHost(const Tensor& on_gpu, const std::vector<float>& want) {
    absl::StatusOr<Tensor> back = on_gpu.CopyTo(HostDevice());
    ASSERT_TRUE(back.ok()) << back.status();
    ASSERT_EQ(back->NumElements(), static_cast<int64_t>(want.size()));
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(back->data<float>()[i], want[i]) << "element " << i;
    }
  }

};

TEST_F(AsyncCopyGpuTest, SourceOverwrittenAtOnceWithManyCopiesInFlight) {
  // A slow kernel is not available here, so pressure comes from volume:
  // hundreds of copies queued behind each other, each source overwritten
  // and freed as soon as CopyTo returns.
  const std::vector<int64_t> sizes = {1, 7, 128, 1000, 65536, 262144};
  std::vector<Tensor> on_gpu;
  std::vector<std::vector<float>> want;
  for (int round = 0; round < 50; ++round) {
    for (int64_t n : sizes) {
      const std::vector<float> values = Pattern(n, static_cast<float>(round));
      Tensor host(DT_FLOAT, {n});
      std::memcpy(host.raw_data(), values.data(), n * sizeof(float));
      absl::StatusOr<Tensor> t = host.CopyTo(gpu_);
      ASSERT_TRUE(t.ok()) << t.status();
      std::memset(host.raw_data(), 0xff, n * sizeof(float));  // NaNs
      on_gpu.push_back(*t);
      want.push_back(values);
    }
  }
  for (size_t i = 0; i < on_gpu.size(); ++i) ExpectOnHost(on_gpu[i], want[i]);
  ASSERT_TRUE(gpu_->Synchronize().ok());
  EXPECT_EQ(PinnedHostMemory().Stats().lost_blocks, 0);
}

TEST_F(AsyncCopyGpuTest, PinnedSourceIsReadInPlaceAndKeptUntilCopied) {
  const int64_t n = 1 << 18;
  std::vector<Tensor> on_gpu;
  std::vector<std::vector<float>> want;
  for (int round = 0; round < 20; ++round) {
    absl::StatusOr<Tensor> pinned = PinnedHostTensor(DT_FLOAT, {n});
    ASSERT_TRUE(pinned.ok()) << pinned.status();
    const std::vector<float> values = Pattern(n, 100.0f + round);
    std::memcpy(pinned->raw_data(), values.data(), n * sizeof(float));
    ASSERT_TRUE(PinnedHostMemory().Contains(pinned->raw_data(), n * sizeof(float)));
    absl::StatusOr<Tensor> t = pinned->CopyTo(gpu_);
    ASSERT_TRUE(t.ok()) << t.status();
    on_gpu.push_back(*t);
    want.push_back(values);
    // Dropping `pinned` now frees its block; the next round must not get
    // it back before this copy has read it.
  }
  for (size_t i = 0; i < on_gpu.size(); ++i) ExpectOnHost(on_gpu[i], want[i]);
}

TEST_F(AsyncCopyGpuTest, CopyStreamCopiesAreOrderedByTheirFences) {
  std::vector<Tensor> on_gpu;
  std::vector<std::vector<float>> want;
  for (int round = 0; round < 30; ++round) {
    const int64_t n = 50000 + round;
    const std::vector<float> values = Pattern(n, -static_cast<float>(round));
    Tensor host(DT_FLOAT, {n});
    std::memcpy(host.raw_data(), values.data(), n * sizeof(float));
    std::shared_ptr<DeviceFence> ready;
    absl::StatusOr<Tensor> t = host.CopyToAsync(gpu_, &ready);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_NE(ready, nullptr);
    ASSERT_TRUE(gpu_->WaitForFence(ready.get()).ok());
    // A device->device copy on the compute stream, queued right after the
    // wait, must see the copied bytes.
    absl::StatusOr<Tensor> copy = t->CopyTo(gpu_);
    ASSERT_TRUE(copy.ok()) << copy.status();
    on_gpu.push_back(*copy);
    want.push_back(values);
  }
  for (size_t i = 0; i < on_gpu.size(); ++i) ExpectOnHost(on_gpu[i], want[i]);
}

TEST_F(AsyncCopyGpuTest, CopyStreamBuffersAreReusedAfterTheirReaders) {
  // Buffers freed right after a compute-stream read are recycled by the
  // copy stream; values read later must still be the first ones.
  const int64_t n = 1 << 16;
  std::vector<Tensor> kept;
  std::vector<std::vector<float>> want;
  for (int round = 0; round < 40; ++round) {
    const std::vector<float> values = Pattern(n, 7.0f * round);
    Tensor host(DT_FLOAT, {n});
    std::memcpy(host.raw_data(), values.data(), n * sizeof(float));
    std::shared_ptr<DeviceFence> ready;
    absl::StatusOr<Tensor> t = host.CopyToAsync(gpu_, &ready);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_TRUE(gpu_->WaitForFence(ready.get()).ok());
    absl::StatusOr<Tensor> copy = t->CopyTo(gpu_);  // the reader
    ASSERT_TRUE(copy.ok());
    kept.push_back(*copy);
    want.push_back(values);
    // `t` goes here, with its reader merely queued.
  }
  for (size_t i = 0; i < kept.size(); ++i) ExpectOnHost(kept[i], want[i]);
}

TEST_F(AsyncCopyGpuTest, ForeignFencesAreRefused) {
  struct OtherFence : DeviceFence {};
  OtherFence other;
  EXPECT_EQ(gpu_->WaitForFence(&other).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(gpu_->WaitForFence(nullptr).ok());
}

}  // namespace
}  // namespace tfd
