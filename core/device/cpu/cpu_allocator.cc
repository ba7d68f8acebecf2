#include "core/device/cpu/cpu_allocator.h"

#include <cstdlib>

namespace tfd {
namespace {

class AlignedCpuAllocator : public Allocator {
 public:
  std::string Name() const override { return "cpu"; }

  void* Allocate(size_t bytes) override {
    // aligned_alloc wants a size that is a multiple of the alignment.
    const size_t rounded =
        (bytes + kTensorAlignment - 1) / kTensorAlignment * kTensorAlignment;
    void* p = std::aligned_alloc(kTensorAlignment,
                                 rounded == 0 ? kTensorAlignment : rounded);
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
    std::free(ptr);
  }

  AllocatorStats Stats() const override {
    AllocatorStats s;
    s.num_allocs = num_allocs_.load();
    s.bytes_in_use = in_use_.load();
    s.peak_bytes_in_use = peak_.load();
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

}  // namespace tfd
