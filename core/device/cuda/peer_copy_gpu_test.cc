// Copies between GPUs and between logical devices of one GPU on a real
// device: right after each CopyTo the source is overwritten in place, and
// then dropped and its memory reused, by work on the source's stream, so
// a copy that the source's stream was not ordered against reads the wrong
// bytes (Note [Ordering a copy between GPUs] in peer_copy.h; Note
// [Staging a copy between GPUs] in staged_copy.h). Skips, saying why,
// without a GPU (or without two for the two-GPU case).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_peer_copy.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

// 16 MiB: long enough for a copy to still be running when the next
// work on the source's stream is queued.
constexpr int64_t kElements = int64_t{4} << 20;

std::vector<int32_t> Pattern(int seed) {
  std::vector<int32_t> v(kElements);
  for (int64_t i = 0; i < kElements; ++i) v[i] = static_cast<int32_t>(i * 2654435761u + seed);
  return v;
}

// Copies a fresh tensor from `from` to `to` `rounds` times; each time the
// source is overwritten in place at once, then dropped and memory of its
// size overwritten on `from`. Checks every copy.
void CopyAndReuse(CudaDevice* from, CudaDevice* to, int rounds) {
  std::vector<Tensor> copies;
  for (int r = 0; r < rounds; ++r) {
    const Tensor host = test::AsTensor<int32_t>(Pattern(r), TensorShape({kElements}));
    absl::StatusOr<Tensor> copied;
    {
      absl::StatusOr<Tensor> source = host.CopyTo(from);  // Still queued.
      ASSERT_TRUE(source.ok()) << source.status();
      copied = source->CopyTo(to);
      ASSERT_TRUE(copied.ok()) << copied.status();
      EXPECT_EQ(copied->device(), to);
      // An in-place write of the source, as an optimizer update does.
      ASSERT_TRUE(from->Memset(source->raw_data(), 0x5A, source->TotalBytes()).ok());
    }
    // The source's block is likely handed out again right here.
    absl::StatusOr<Tensor> scribble = Tensor::Allocate(DT_INT32, TensorShape({kElements}), from);
    ASSERT_TRUE(scribble.ok()) << scribble.status();
    ASSERT_TRUE(from->Memset(scribble->raw_data(), 0xA5, scribble->TotalBytes()).ok());
    copies.push_back(*std::move(copied));
  }
  for (int r = 0; r < rounds; ++r) {
    SCOPED_TRACE(testing::Message() << "round " << r);
    absl::StatusOr<Tensor> back = copies[r].CopyTo(HostDevice());
    ASSERT_TRUE(back.ok()) << back.status();
    const int32_t* got = back->data<int32_t>();
    const std::vector<int32_t> want = Pattern(r);
    int64_t wrong = 0;
    for (int64_t i = 0; i < kElements; ++i) wrong += got[i] != want[i];
    EXPECT_EQ(wrong, 0);
  }
}

TEST(PeerCopyGpuTest, LogicalDevicesOfOneGpuCopyOnItsStream) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  absl::StatusOr<std::vector<CudaDevice*>> logical = CudaDevice::CreateLogical(0, 2);
  ASSERT_TRUE(logical.ok()) << logical.status();
  CudaDevice* a = (*logical)[0];
  CudaDevice* b = (*logical)[1];
  EXPECT_TRUE(b->CanCopyFromPeer(a));
  EXPECT_TRUE(a->CanCopyFromPeer(b));
  CopyAndReuse(a, b, 4);
  CopyAndReuse(b, a, 4);
}

TEST(PeerCopyGpuTest, TwoGpusCopyPeerToPeerOrThroughTheHost) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  if (CudaDevice::DeviceCount() < 2) GTEST_SKIP() << "needs 2 CUDA devices";
  CudaDevice* gpu0 = *CudaDevice::Get(0);
  CudaDevice* gpu1 = *CudaDevice::Get(1);
  // Peer copies where the driver connects the GPUs, staged through pinned
  // memory otherwise; both are queued and must deliver the bytes.
  EXPECT_TRUE(gpu1->CanCopyFromPeer(gpu0));
  EXPECT_TRUE(gpu0->CanCopyFromPeer(gpu1));
  CopyAndReuse(gpu0, gpu1, 6);
  CopyAndReuse(gpu1, gpu0, 6);
}

// The staged path between two streams of one GPU (it needs no second
// GPU): the source is overwritten on its stream right after the copy is
// queued, and the host waits only for the destination's stream, so a copy
// out of the block not ordered after the copy into it, or a copy into it
// not ordered before the overwrite, reads the wrong bytes.
TEST(PeerCopyGpuTest, StagedCopyIsOrderedOnBothStreams) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  cudaStream_t a = nullptr, b = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking), cudaSuccess);
  ASSERT_EQ(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking), cudaSuccess);
  const size_t bytes = kElements * sizeof(int32_t);
  void* src = nullptr;
  void* dst = nullptr;
  ASSERT_EQ(cudaMalloc(&src, bytes), cudaSuccess);
  ASSERT_EQ(cudaMalloc(&dst, bytes), cudaSuccess);
  for (int r = 0; r < 4; ++r) {
    SCOPED_TRACE(testing::Message() << "round " << r);
    const std::vector<int32_t> want = Pattern(r);
    ASSERT_EQ(cudaMemcpyAsync(src, want.data(), bytes, cudaMemcpyHostToDevice, a), cudaSuccess);
    ASSERT_EQ(cudaMemsetAsync(dst, 0, bytes, b), cudaSuccess);
    const absl::Status s = CudaStagedCopier().Copy(src, StreamRef{0, a}, dst, StreamRef{0, b}, bytes);
    ASSERT_TRUE(s.ok()) << s;
    ASSERT_EQ(cudaMemsetAsync(src, 0x5A, bytes, a), cudaSuccess);
    ASSERT_EQ(cudaStreamSynchronize(b), cudaSuccess);
    std::vector<int32_t> got(kElements);
    ASSERT_EQ(cudaMemcpy(got.data(), dst, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    int64_t wrong = 0;
    for (int64_t i = 0; i < kElements; ++i) wrong += got[i] != want[i];
    EXPECT_EQ(wrong, 0);
    ASSERT_EQ(cudaStreamSynchronize(a), cudaSuccess);
  }
  cudaFree(src);
  cudaFree(dst);
  cudaStreamDestroy(a);
  cudaStreamDestroy(b);
}

}  // namespace
}  // namespace tfd
