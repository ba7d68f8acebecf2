// FakeGpu: a GPU-typed device over host memory, for testing placement in
// builds without CUDA. There are two, so that strategies can replicate over
// distinct GPU-typed devices and copy between them. Kernels registered for DeviceType::kGPU by a test
// run on it and can read their inputs directly; Execute treats it as any
// device outside host memory, so every host<->device copy goes through it
// and is counted (per device here, process-wide in device_counters.h).
// Its memory comes from a CachingAllocator over host memory, so that tests
// see the cache misses a real GPU's allocator would have. Test-only.
//
// Its copy queue (CopyHostToDeviceAsync) is lazy on purpose: the bytes land
// in the destination only when a fence of that copy or a later one is
// waited for, or at Synchronize(), as a real copy stream may run whenever
// it likes. Code that reads an asynchronously copied tensor without
// waiting therefore reads stale bytes, and tests see it.
//
//   FakeGpu* gpu = FakeGpu::Get();
//   SetDefaultDevice(gpu);
//   EXPECT_EQ(Execute1("MyOp", {x})->device(), gpu);
#ifndef TFD_CORE_FRAMEWORK_FAKE_GPU_TESTUTIL_H_
#define TFD_CORE_FRAMEWORK_FAKE_GPU_TESTUTIL_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/device/cuda/caching_allocator.h"
#include "core/framework/device.h"

namespace tfd {
namespace test {

class FakeGpu : public Device {
 public:
  // Fake GPU `index` (0, the one tests use, or 1), made on first use and
  // never deleted (devices outlive their tensors); another index aborts.
  // Named /device:GPU:9 and /device:GPU:10, so that they cannot be taken
  // for a real GPU where a GPU library is linked too. Under
  // --config=fake_gpu_suite, which links none, Get() is the device
  // registry's GPU:0 (fake_gpu_suite.cc) and is named /device:GPU:0, as
  // that GPU is on a GPU machine; Get(1) is then /device:GPU:1, which the
  // registry does not list.
  static FakeGpu* Get(int index = 0);

  // A CachingAllocator's view, as a CudaDevice's (caching_allocator.h).
  Allocator* allocator() override;
  absl::Status CopyHostToDevice(const void* src, void* dst, size_t n) override;
  absl::Status CopyDeviceToHost(const void* src, void* dst, size_t n) override;
  absl::Status CopyDeviceToDevice(const void* src, void* dst, size_t n) override;
  absl::Status Memset(void* dst, int value, size_t n) override;
  // Lands every queued asynchronous copy.
  absl::Status Synchronize() override;

  Allocator* async_copy_allocator() override;
  absl::StatusOr<std::shared_ptr<DeviceFence>> CopyHostToDeviceAsync(const void* src, void* dst,
                                                                   size_t n) override;
  absl::Status WaitForFence(const DeviceFence* fence) override;

  // Copies made so far in each direction.
  int copies_to_device() const { return to_device_.load(); }
  int copies_to_host() const { return to_host_.load(); }
  // Asynchronous copies queued, fences waited for, copies not landed yet.
  int async_copies() const { return async_copies_.load(); }
  int fence_waits() const { return fence_waits_.load(); }
  int pending_async_copies() const;

  // Drops the queued copies into [ptr, ptr + n) (their buffer is freed).
  void ForgetCopiesInto(const void* ptr, size_t n);

 private:
  struct PendingCopy {
    int64_t seq = 0;
    char* dst = nullptr;
    std::vector<char> bytes;  // The source as it was when queued.
  };

  explicit FakeGpu(int id);
  // Lands the queued copies up to `seq`, in order.
  void LandThrough(int64_t seq);

  const std::unique_ptr<CachingAllocator> cache_;
  const std::unique_ptr<Allocator> allocator_;
  const std::unique_ptr<Allocator> async_copy_allocator_;
  std::atomic<int> to_device_{0};
  std::atomic<int> to_host_{0};
  std::atomic<int> async_copies_{0};
  std::atomic<int> fence_waits_{0};
  mutable absl::Mutex mu_;
  std::deque<PendingCopy> pending_ ABSL_GUARDED_BY(mu_);
  int64_t next_seq_ ABSL_GUARDED_BY(mu_) = 1;
};

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_FAKE_GPU_TESTUTIL_H_
