// CrossStreamAllocator: device memory that one stream writes and another
// reads: the buffers a GPU's copy stream fills for its compute stream
// (the input pipeline's prefetch to the device).
//
// The caching allocator reuses a block only on the stream it was made for,
// which orders each reuse after the previous user's work (Note [One stream
// per device] in cuda_device.cc). A prefetched buffer breaks that rule: the
// copy stream writes it and kernels on the compute stream read it. So its
// blocks belong to the writer stream, and freeing one does not hand it to
// the cache at once: an event is recorded on the reader stream (after the
// kernels that read it were queued) and the block goes back to the writer's
// cache only when that event has completed (EventGate). The next copy into
// it therefore cannot overwrite data a kernel still reads, and neither
// stream waits for the other's unrelated work. A buffer freed before any
// reader used it is safe too: its next writer is the same copy stream,
// queued behind the copy that filled it.
//
// When the cache has no room, the allocator waits (on the host) for the
// blocks still in use by readers, returns them and tries again once.
//
// Plain C++ over CachingAllocator and EventBackend: tested with fakes on
// every machine (cross_stream_allocator_test.cc).
//
// Thread safety: every method may be called from any thread.
#ifndef TFD_CORE_DEVICE_CUDA_CROSS_STREAM_ALLOCATOR_H_
#define TFD_CORE_DEVICE_CUDA_CROSS_STREAM_ALLOCATOR_H_

#include <string>

#include "absl/synchronization/mutex.h"
#include "core/device/cuda/caching_allocator.h"
#include "core/device/cuda/event_gate.h"
#include "core/framework/allocator.h"

namespace tfd {

class CrossStreamAllocator final : public Allocator {
 public:
  // Blocks come from `cache` for `writer` and are read on `reader`. Owns
  // none of them; all must outlive the allocator.
  CrossStreamAllocator(CachingAllocator* cache, EventBackend* events, StreamRef writer,
                       StreamRef reader);

  std::string Name() const override;
  // nullptr when the cache cannot serve the request even after waiting
  // for the blocks readers still use (or when an event failed; the error
  // is printed, as Allocator has no Status).
  void* Allocate(size_t bytes) override;
  // Hands the block back once the reader's work queued so far is done.
  void Deallocate(void* ptr, size_t bytes) override;
  // bytes_reserved is the cache's, as StreamAllocator reports it.
  AllocatorStats Stats() const override;

  // Blocks freed but still waiting for the reader.
  int64_t waiting_blocks() const;

 private:
  // Returns the blocks whose readers are done to the cache.
  void ReturnFinished(bool wait) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  CachingAllocator* const cache_;
  const StreamRef writer_;
  const StreamRef reader_;
  mutable absl::Mutex mu_;
  EventGate gate_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_CROSS_STREAM_ALLOCATOR_H_
