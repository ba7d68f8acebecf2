#include "core/framework/fake_gpu_testutil.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/device/cpu/cpu_allocator.h"
#include "core/framework/device_counters.h"

namespace tfd {
namespace test {
namespace {

struct FakeFence : DeviceFence {
  FakeFence(const FakeGpu* gpu, int64_t seq) : gpu(gpu), seq(seq) {}
  const FakeGpu* gpu;
  int64_t seq;
};

// Host memory whose pending copies are dropped when it is freed, as a
// device must not let a queued copy write memory that was handed back.
class AsyncCopyAllocator final : public Allocator {
 public:
  explicit AsyncCopyAllocator(FakeGpu* gpu) : gpu_(gpu) {}
  std::string Name() const override { return "fake_gpu_async_copy"; }
  void* Allocate(size_t bytes) override { return CpuAllocator()->Allocate(bytes); }
  void Deallocate(void* ptr, size_t bytes) override {
    gpu_->ForgetCopiesInto(ptr, bytes);
    CpuAllocator()->Deallocate(ptr, bytes);
  }
  AllocatorStats Stats() const override { return CpuAllocator()->Stats(); }

 private:
  FakeGpu* const gpu_;
};

// Segments of the fake GPU's caching allocator: host memory, aligned as
// cudaMalloc's is.
class HostSegments final : public DeviceMemoryBackend {
 public:
  absl::StatusOr<void*> Malloc(size_t bytes) override {
    void* p = std::aligned_alloc(kSegmentAlignment, bytes);
    if (p == nullptr) return absl::ResourceExhaustedError("fake GPU: host memory exhausted");
    return p;
  }
  absl::Status Free(void* ptr, size_t) override {
    std::free(ptr);
    return absl::OkStatus();
  }

 private:
  // CachingAllocator's sizes are multiples of it, as aligned_alloc wants.
  static constexpr size_t kSegmentAlignment = CachingAllocator::kMinBlockSize;
};

// The one stream of a fake GPU, as the allocator sees it.
const char fake_stream = 0;

// The ordinal of Get(0); Get(1) has the next one (see the header).
#ifdef TFD_FAKE_GPU_IS_REGISTRY_GPU0
constexpr int kFirstOrdinal = 0;
#else
constexpr int kFirstOrdinal = 9;
#endif

}  // namespace

FakeGpu::FakeGpu(int id)
    : Device(DeviceType::kGPU, id),
      cache_(std::make_unique<CachingAllocator>(std::make_unique<HostSegments>(), name())),
      allocator_(std::make_unique<StreamAllocator>(cache_.get(), &fake_stream)),
      async_copy_allocator_(std::make_unique<AsyncCopyAllocator>(this)) {}

FakeGpu* FakeGpu::Get(int index) {
  static FakeGpu* const gpus[] = {new FakeGpu(kFirstOrdinal), new FakeGpu(kFirstOrdinal + 1)};
  if (index < 0 || index > 1) {
    std::fprintf(stderr, "FakeGpu::Get(%d): there are fake GPUs 0 and 1 only\n", index);
    std::abort();
  }
  return gpus[index];
}

Allocator* FakeGpu::allocator() { return allocator_.get(); }

absl::Status FakeGpu::CopyHostToDevice(const void* src, void* dst, size_t n) {
  ++to_device_;
  CountDeviceEvent(DeviceEvent::kCopyToDevice);
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status FakeGpu::CopyDeviceToHost(const void* src, void* dst, size_t n) {
  ++to_host_;
  CountDeviceEvent(DeviceEvent::kCopyToHost);
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status FakeGpu::CopyDeviceToDevice(const void* src, void* dst, size_t n) {
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status FakeGpu::Memset(void* dst, int value, size_t n) {
  if (n > 0) std::memset(dst, value, n);
  return absl::OkStatus();
}

absl::Status FakeGpu::Synchronize() {
  CountDeviceEvent(DeviceEvent::kSynchronize);
  absl::MutexLock lock(&mu_);
  LandThrough(next_seq_);
  return absl::OkStatus();
}

Allocator* FakeGpu::async_copy_allocator() { return async_copy_allocator_.get(); }

absl::StatusOr<std::shared_ptr<DeviceFence>> FakeGpu::CopyHostToDeviceAsync(const void* src,
                                                                           void* dst, size_t n) {
  ++async_copies_;
  CountDeviceEvent(DeviceEvent::kPrefetchCopyToDevice);
  absl::MutexLock lock(&mu_);
  PendingCopy copy;
  copy.seq = next_seq_++;
  copy.dst = static_cast<char*>(dst);
  copy.bytes.assign(static_cast<const char*>(src), static_cast<const char*>(src) + n);
  pending_.push_back(std::move(copy));
  return std::shared_ptr<DeviceFence>(std::make_shared<FakeFence>(this, pending_.back().seq));
}

absl::Status FakeGpu::WaitForFence(const DeviceFence* fence) {
  if (fence == nullptr) return absl::OkStatus();
  auto* fake = dynamic_cast<const FakeFence*>(fence);
  if (fake == nullptr || fake->gpu != this) {
    return absl::InvalidArgumentError(name() + ": cannot wait for a fence made by another device");
  }
  ++fence_waits_;
  absl::MutexLock lock(&mu_);
  LandThrough(fake->seq);
  return absl::OkStatus();
}

void FakeGpu::LandThrough(int64_t seq) {
  while (!pending_.empty() && pending_.front().seq <= seq) {
    PendingCopy& c = pending_.front();
    if (!c.bytes.empty()) std::memcpy(c.dst, c.bytes.data(), c.bytes.size());
    pending_.pop_front();
  }
}

int FakeGpu::pending_async_copies() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(pending_.size());
}

void FakeGpu::ForgetCopiesInto(const void* ptr, size_t n) {
  const char* begin = static_cast<const char*>(ptr);
  absl::MutexLock lock(&mu_);
  for (PendingCopy& c : pending_) {
    if (c.dst >= begin && c.dst < begin + n) c.bytes.clear();
  }
}

}  // namespace test
}  // namespace tfd
