// Copies between GPUs and between logical devices of one GPU on a real
// device: right after each CopyTo the source is overwritten in place, and
// then dropped and its memory reused, by work on the source's stream, so
// a copy that the source's stream was not ordered against reads the wrong
// bytes (Note [Ordering a copy between GPUs] in peer_copy.h). Skips,
// saying why, without a GPU (or without two for the two-GPU case).
#include <cuda_runtime_api.h>

#include <cstdint>
#include <vector>

#include "core/device/cuda/cuda_device.h"
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
  int can = 0;
  ASSERT_EQ(cudaDeviceCanAccessPeer(&can, 1, 0), cudaSuccess);
  // Peer copies where the driver connects the GPUs, staging otherwise;
  // both must deliver the bytes.
  EXPECT_EQ(gpu1->CanCopyFromPeer(gpu0), can != 0);
  CopyAndReuse(gpu0, gpu1, 6);
  CopyAndReuse(gpu1, gpu0, 6);
}

}  // namespace
}  // namespace tfd
