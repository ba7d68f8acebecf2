// Allocator: where tensor memory comes from. Implementations live with
// their devices: core/device/cpu (64-byte aligned host memory) and
// core/device/cuda (a caching allocator). Allocators are thread-safe and
// outlive every tensor they allocated.
#ifndef TFD_CORE_FRAMEWORK_ALLOCATOR_H_
#define TFD_CORE_FRAMEWORK_ALLOCATOR_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

namespace tfd {

constexpr size_t kTensorAlignment = 64;

struct AllocatorStats {
  int64_t num_allocs = 0;
  int64_t bytes_in_use = 0;
  int64_t peak_bytes_in_use = 0;
  int64_t bytes_reserved = 0;  // Held by a cache but not in use (CUDA).
};

class Allocator {
 public:
  virtual ~Allocator() = default;
  virtual std::string Name() const = 0;
  // Returns nullptr when the memory cannot be had; never throws. A request
  // for 0 bytes returns a valid, unique pointer.
  virtual void* Allocate(size_t bytes) = 0;
  virtual void Deallocate(void* ptr, size_t bytes) = 0;
  virtual AllocatorStats Stats() const = 0;
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_ALLOCATOR_H_
