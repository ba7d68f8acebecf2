// CachingAllocator: device memory for tensors without a device allocation
// per tensor. cudaMalloc and cudaFree are slow and synchronize the device,
// so memory taken from the device is kept after tensors let go of it and
// handed out again; after the first steps of a training loop no request
// reaches the device.
//
// How it works (see Note [Caching allocator] in the .cc for the why):
// - Requests are rounded up to 512 bytes. Those up to 1 MiB are served from
//   2 MiB segments (the small pool); larger ones from 20 MiB segments, or a
//   segment of their own rounded to 2 MiB when 10 MiB or more (the large
//   pool).
// - Each segment is split into blocks. A request takes the smallest free
//   block of its pool and stream that fits (best fit) and splits off the
//   rest; a freed block merges with free neighbours in its segment.
// - Free blocks are kept per stream: a block freed by work on stream S is
//   reused only by S, whose queue orders the old and the new use, so no
//   event or synchronization is needed.
// - Only when no cached block fits is a segment taken from the device; if
//   that fails, wholly free cached segments are given back and the request
//   retried once. EmptyCache() gives back every wholly free segment.
//
// The device is reached only through a DeviceMemoryBackend, so all of the
// bookkeeping above is tested with a fake backend on machines without a GPU
// (caching_allocator_test.cc); cuda_device.cc supplies the cudaMalloc one.
//
// Thread safety: every method may be called from any thread.
//
//   CachingAllocator cache(std::make_unique<CudaMemoryBackend>(0), "GPU:0");
//   TFD_ASSIGN_OR_RETURN(void* p, cache.Allocate(bytes, stream));
//   ... enqueue work using p on `stream` ...
//   cache.Free(p);  // reusable by later work on `stream` at once
//
// This file uses no CUDA header: plain builds compile and test it.
#ifndef TFD_CORE_DEVICE_CUDA_CACHING_ALLOCATOR_H_
#define TFD_CORE_DEVICE_CUDA_CACHING_ALLOCATOR_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/framework/allocator.h"

namespace tfd {

// Identifies a stream to the allocator, which never dereferences it (a
// cudaStream_t for CUDA; any distinct value in tests).
using StreamKey = const void*;

// Where segments come from: a device's raw allocation calls.
class DeviceMemoryBackend {
 public:
  virtual ~DeviceMemoryBackend() = default;
  // `bytes` (> 0) of device memory aligned to at least 512 bytes, or
  // RESOURCE_EXHAUSTED when the device has no room, or another error.
  virtual absl::StatusOr<void*> Malloc(size_t bytes) = 0;
  // Returns memory from Malloc. Must not return before work already queued
  // on any stream stops using it (cudaFree synchronizes the device).
  virtual absl::Status Free(void* ptr, size_t bytes) = 0;
};

struct CachingAllocatorStats {
  int64_t allocated_bytes = 0;       // In blocks handed out (rounded sizes).
  int64_t requested_bytes = 0;       // What callers asked for, unrounded.
  int64_t reserved_bytes = 0;        // In segments taken from the device.
  int64_t peak_allocated_bytes = 0;  // Maxima since creation or ResetPeakStats.
  int64_t peak_reserved_bytes = 0;
  int64_t num_allocs = 0;            // Successful Allocate calls.
  int64_t num_frees = 0;
  int64_t num_device_allocs = 0;     // Backend Malloc calls that succeeded.
  int64_t num_device_frees = 0;
  int64_t num_segments = 0;          // Segments held now.
  int64_t num_ooms = 0;              // Allocate calls that failed.
};

// The same figures as the framework's AllocatorStats (reserved = cached
// and not handed out), for the Allocator views over a CachingAllocator.
AllocatorStats ToAllocatorStats(const CachingAllocatorStats& s);

class CachingAllocator {
 public:
  static constexpr size_t kMinBlockSize = 512;         // Rounding quantum.
  static constexpr size_t kSmallSize = 1 << 20;        // Largest small request.
  static constexpr size_t kSmallSegment = 2 << 20;     // Small-pool segment.
  static constexpr size_t kLargeSegment = 20 << 20;    // Shared large segment.
  static constexpr size_t kMinLargeAlloc = 10 << 20;   // Own segment from here.
  static constexpr size_t kLargeRound = 2 << 20;       // Own segments' quantum.

  // `name` appears in error messages ("GPU:0").
  CachingAllocator(std::unique_ptr<DeviceMemoryBackend> backend, std::string name);
  // Returns every segment to the backend. Blocks still handed out keep
  // their segments alive (they are leaked, not freed under their users).
  ~CachingAllocator();
  CachingAllocator(const CachingAllocator&) = delete;
  CachingAllocator& operator=(const CachingAllocator&) = delete;

  const std::string& name() const { return name_; }

  // A block of at least `bytes` for work on `stream`; 0 bytes gives a
  // unique 512-byte block. RESOURCE_EXHAUSTED, naming the sizes and the
  // allocator's state, when the device has no room even after the cache
  // was emptied; the backend's other errors as they are.
  absl::StatusOr<void*> Allocate(size_t bytes, StreamKey stream);

  // Returns a block from Allocate to its stream's free list. Freeing a
  // pointer this allocator did not hand out is a programming error and
  // aborts. nullptr is ignored.
  void Free(void* ptr);

  // Gives every wholly free segment back to the device. The first backend
  // error is returned after the other segments were tried.
  absl::Status EmptyCache();

  CachingAllocatorStats Stats() const;
  // Restarts the peaks from the current values.
  void ResetPeakStats();

  // The rounded size of the live block at `ptr`, or 0 if there is none.
  size_t AllocationSize(const void* ptr) const;

  // What a request of `bytes` is rounded to, and the size of the segment a
  // fresh block of that size comes from (exposed for tests and tuning).
  static size_t RoundSize(size_t bytes);
  static size_t SegmentSize(size_t rounded);

 private:
  struct Block;
  struct BlockLess {
    bool operator()(const Block* a, const Block* b) const;
  };
  using FreeSet = std::set<Block*, BlockLess>;

  FreeSet& PoolFor(size_t rounded) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Block* FindFree(FreeSet& pool, StreamKey stream, size_t rounded)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::StatusOr<Block*> NewSegment(size_t rounded, StreamKey stream, bool small)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void SplitIfWorthIt(Block* block, size_t rounded, FreeSet& pool)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MergeIntoFree(Block* block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Frees every wholly free segment; the first error, if any.
  absl::Status ReleaseFreeSegments() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void NotePeaks() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<DeviceMemoryBackend> backend_;
  const std::string name_;
  mutable absl::Mutex mu_;
  FreeSet small_free_ ABSL_GUARDED_BY(mu_);
  FreeSet large_free_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<const void*, Block*> live_ ABSL_GUARDED_BY(mu_);
  CachingAllocatorStats stats_ ABSL_GUARDED_BY(mu_);
};

// The framework's Allocator interface over a CachingAllocator, for one
// stream: what a device hands to Tensor::Allocate. Does not own `cache`.
class StreamAllocator final : public Allocator {
 public:
  StreamAllocator(CachingAllocator* cache, StreamKey stream)
      : cache_(cache), stream_(stream) {}

  std::string Name() const override { return cache_->name(); }
  // nullptr when the cache cannot serve the request.
  void* Allocate(size_t bytes) override;
  void Deallocate(void* ptr, size_t bytes) override { cache_->Free(ptr); }
  // bytes_reserved is the cached part: reserved but not allocated.
  AllocatorStats Stats() const override;

 private:
  CachingAllocator* const cache_;
  const StreamKey stream_;
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_CACHING_ALLOCATOR_H_
