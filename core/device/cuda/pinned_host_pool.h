// PinnedHostPool: page-locked host blocks for host<->device copies that do
// not wait, reused only once the streams that read them are done with them
// (the scheme of PyTorch's CachingHostAllocator).
//
// A host-to-device copy from pageable memory cannot be asynchronous: the
// driver must stage it, and the caller may overwrite its buffer at once.
// So the copy is staged here instead: Allocate a block, fill it, queue the
// DMA, RecordStream(block, stream), Free(block). Free does not make the
// block reusable: an event is recorded then on every stream the block was
// recorded on (EventGate), and the block goes back to its free list only
// after those events have completed. A pinned tensor made from this pool
// (pinned_host_memory.h) is copied from directly, and the same rule keeps
// its block from being reused while a copy still reads it.
//
// Blocks are rounded up to a power of two (at least 512 bytes) and reused
// by requests of the same rounded size; each is one backend allocation
// (cudaHostAlloc). When the backend runs out, the pool first waits for the
// blocks still in use by streams, gives every free block back and retries
// once.
//
// The pinned memory and the events are reached through DeviceMemoryBackend
// and EventBackend, so all of the bookkeeping is tested with fakes on
// machines without a GPU (pinned_host_pool_test.cc).
//
// Thread safety: every method may be called from any thread.
//
//   TFD_ASSIGN_OR_RETURN(void* staging, pool.Allocate(n));
//   std::memcpy(staging, src, n);              // src may be reused now
//   ... cudaMemcpyAsync(dst, staging, n, cudaMemcpyHostToDevice, stream) ...
//   TFD_RETURN_IF_ERROR(pool.RecordStream(staging, {ordinal, stream}));
//   TFD_RETURN_IF_ERROR(pool.Free(staging));  // reused after the copy ran
//
// This file uses no CUDA header: plain builds compile and test it.
#ifndef TFD_CORE_DEVICE_CUDA_PINNED_HOST_POOL_H_
#define TFD_CORE_DEVICE_CUDA_PINNED_HOST_POOL_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/device/cuda/caching_allocator.h"
#include "core/device/cuda/event_gate.h"

namespace tfd {

struct PinnedHostPoolStats {
  int64_t allocated_bytes = 0;    // In blocks handed out (rounded sizes).
  int64_t reserved_bytes = 0;     // In blocks taken from the backend.
  int64_t waiting_blocks = 0;     // Freed, waiting for streams to finish.
  int64_t num_allocs = 0;         // Successful Allocate calls.
  int64_t num_frees = 0;
  int64_t num_reuses = 0;         // Allocations served by a cached block.
  int64_t num_device_allocs = 0;  // Backend Malloc calls that succeeded.
  int64_t num_device_frees = 0;
  int64_t num_ooms = 0;           // Allocate calls that failed.
  int64_t lost_blocks = 0;        // Never reused after an event error.
};

class PinnedHostPool {
 public:
  static constexpr size_t kMinBlockSize = 512;

  // `name` appears in error messages ("pinned_host").
  PinnedHostPool(std::unique_ptr<DeviceMemoryBackend> memory, std::unique_ptr<EventBackend> events,
                 std::string name);
  // Gives the free blocks back to the backend. Blocks handed out or still
  // waiting for streams are leaked, not freed under their users.
  ~PinnedHostPool();
  PinnedHostPool(const PinnedHostPool&) = delete;
  PinnedHostPool& operator=(const PinnedHostPool&) = delete;

  // A block of at least `bytes` (0 gives a unique 512-byte block).
  // RESOURCE_EXHAUSTED, naming the sizes, when the backend has no room even
  // after the pool waited for its blocks in use and emptied its cache; the
  // backend's other errors as they are; an event error met while looking
  // for finished blocks.
  absl::StatusOr<void*> Allocate(size_t bytes);

  // Notes that work queued on `stream` uses the block that holds `ptr`
  // (anywhere inside it): once freed, the block is reused only after the
  // work queued on `stream` up to the Free has finished. NOT_FOUND when
  // `ptr` lies in no block handed out by this pool.
  absl::Status RecordStream(const void* ptr, StreamRef stream);

  // True when [ptr, ptr + n) lies inside one block handed out now: the
  // memory is pinned and this pool controls when it is reused.
  bool Contains(const void* ptr, size_t n) const;

  // Returns a block from Allocate (its start); nullptr is ignored.
  // INVALID_ARGUMENT for a pointer the pool did not hand out (nothing
  // changes). When an event cannot be recorded the block is never reused
  // and the event error is returned.
  absl::Status Free(void* ptr);

  // Gives every free block back to the backend (blocks waiting for
  // streams stay). The first backend error, after the others were tried.
  absl::Status EmptyCache();

  PinnedHostPoolStats Stats() const;

  // What a request of `bytes` is rounded to.
  static size_t RoundSize(size_t bytes);

 private:
  struct Block {
    void* ptr = nullptr;
    size_t size = 0;
    bool allocated = false;
    std::vector<StreamRef> streams;  // Recorded since the last Allocate.
  };

  // Moves blocks whose streams are done to the free lists.
  absl::Status CollectFinished() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void MakeFree(Block* block) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status ReleaseFreeBlocks() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Block* FindBlock(const void* ptr) const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::unique_ptr<DeviceMemoryBackend> memory_;
  const std::unique_ptr<EventBackend> events_;
  const std::string name_;
  mutable absl::Mutex mu_;
  EventGate gate_ ABSL_GUARDED_BY(mu_);
  // Every block the pool owns, by address, for lookups inside blocks.
  std::map<uintptr_t, Block*> blocks_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<size_t, std::vector<Block*>> free_ ABSL_GUARDED_BY(mu_);
  PinnedHostPoolStats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_PINNED_HOST_POOL_H_
