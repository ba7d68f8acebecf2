#include "core/device/cpu/cpu_allocator.h"

#include <atomic>
#include <cstdint>
#include <cstdlib>

#include "core/device/cpu/host_free_lists.h"

// Under ASan a recycled block would hide a use after free: no cache.
#if defined(__SANITIZE_ADDRESS__)
#define TFD_HOST_BLOCK_CACHE 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TFD_HOST_BLOCK_CACHE 0
#endif
#endif
#ifndef TFD_HOST_BLOCK_CACHE
#define TFD_HOST_BLOCK_CACHE 1
#endif

namespace tfd {
namespace {

// Bytes all threads' free lists hold together.
std::atomic<int64_t> cached_bytes{0};

void* SystemAllocate(size_t bytes) {
  // aligned_alloc wants a size that is a multiple of the alignment.
  const size_t rounded =
      (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
  return std::aligned_alloc(kTensorAlignment, rounded == 0 ? kTensorAlignment : rounded);
}

// A thread's free lists, emptied into the system when the thread exits.
// Note [Lists after thread exit]: a tensor may be freed on a thread after
// its lists were destroyed (by another thread_local's destructor, or at
// process exit by a static); `state` (trivially destructible, so readable
// then) sends such blocks straight to the system.
enum class ListsState : uint8_t { kUnborn, kLive, kDead };
thread_local ListsState state = ListsState::kUnborn;

struct ThreadLists {
  HostFreeLists lists{kHostCacheBytesPerThread};
  ThreadLists() { state = ListsState::kLive; }
  ~ThreadLists() {
    state = ListsState::kDead;
    lists.Drain([](void* block, int size_class) {
      cached_bytes.fetch_sub(HostSizeClassBytes(size_class), std::memory_order_relaxed);
      std::free(block);
    });
  }
};

// This thread's lists; nullptr once they are gone.
HostFreeLists* MyLists() {
  if (state == ListsState::kDead) return nullptr;
  thread_local ThreadLists mine;
  return &mine.lists;
}

void* CachedAllocate(size_t bytes) {
  const int size_class = HostSizeClass(bytes);
  if (size_class < 0) return SystemAllocate(bytes);
  HostFreeLists* lists = MyLists();
  if (lists != nullptr) {
    if (void* block = lists->Pop(size_class)) {
      cached_bytes.fetch_sub(HostSizeClassBytes(size_class), std::memory_order_relaxed);
      return block;
    }
  }
  // The whole class, so that the block can serve any request of it later.
  return SystemAllocate(HostSizeClassBytes(size_class));
}

void CachedDeallocate(void* ptr, size_t bytes) {
  const int size_class = HostSizeClass(bytes);
  HostFreeLists* lists = size_class < 0 ? nullptr : MyLists();
  if (lists != nullptr) {
    const int64_t size = HostSizeClassBytes(size_class);
    // Claim room under the process-wide bound first; give it back if the
    // bound or this thread's own is full.
    if (cached_bytes.fetch_add(size, std::memory_order_relaxed) + size <=
            static_cast<int64_t>(kHostCacheBytes) &&
        lists->Push(size_class, ptr)) {
      return;
    }
    cached_bytes.fetch_sub(size, std::memory_order_relaxed);
  }
  std::free(ptr);
}

class AlignedCpuAllocator : public Allocator {
 public:
  std::string Name() const override { return "cpu"; }

  void* Allocate(size_t bytes) override {
    void* p = TFD_HOST_BLOCK_CACHE ? CachedAllocate(bytes) : SystemAllocate(bytes);
    if (p == nullptr) return nullptr;
    num_allocs_.fetch_add(1, std::memory_order_relaxed);
    const int64_t now =
        in_use_.fetch_add(bytes, std::memory_order_relaxed) + bytes;
    int64_t peak = peak_.load(std::memory_order_relaxed);
    while (now > peak && !peak_.compare_exchange_weak(peak, now)) {
    }
    return p;
  }

  void Deallocate(void* ptr, size_t bytes) override {
    if (ptr == nullptr) return;
    in_use_.fetch_sub(bytes, std::memory_order_relaxed);
    if (TFD_HOST_BLOCK_CACHE) {
      CachedDeallocate(ptr, bytes);
    } else {
      std::free(ptr);
    }
  }

  AllocatorStats Stats() const override {
    AllocatorStats s;
    s.num_allocs = num_allocs_.load();
    s.bytes_in_use = in_use_.load();
    s.peak_bytes_in_use = peak_.load();
    s.bytes_reserved = cached_bytes.load();
    return s;
  }

 private:
  std::atomic<int64_t> num_allocs_{0};
  std::atomic<int64_t> in_use_{0};
  std::atomic<int64_t> peak_{0};
};

}  // namespace

Allocator* CpuAllocator() {
  static Allocator* const allocator = new AlignedCpuAllocator();
  return allocator;
}

bool HostBlockCacheEnabled() { return TFD_HOST_BLOCK_CACHE; }

}  // namespace tfd
