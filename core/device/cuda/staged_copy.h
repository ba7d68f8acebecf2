// StagedCopier: a copy between two GPUs that cannot read each other's
// memory, staged through pinned host memory without the host waiting.
//
// Note [Staging a copy between GPUs]
// Both halves are queued, never waited for:
//   1. on the source's stream, a device->host copy of the source into a
//      pinned block of a PinnedHostPool. Being on that stream, it reads
//      the source after the work that wrote it, and the source's later
//      writers (an in-place update, new work given its memory once the
//      caller drops it) run after it, exactly as on one stream;
//   2. an event recorded on the source's stream after it, which the
//      destination's stream waits for (cudaStreamWaitEvent);
//   3. on the destination's stream, a host->device copy of the block into
//      the destination (allocated for that stream, so its earlier users
//      are done and its later readers come after).
// The block is recorded on both streams before it is freed, so the pool
// hands it out again only once both copies have run. Unlike a peer copy
// (peer_copy.h) nothing has to make the source's stream wait for the
// destination's: the source is read on its own stream.
//
// When the pool has no pinned memory left the copy goes through pageable
// memory and waits for both streams, as copies through the host always did.
//
// Plain C++ over StagedCopyBackend, EventBackend and PinnedHostPool, so the
// ordering is tested with fakes on every machine (staged_copy_test.cc);
// cuda_peer_copy.cc supplies the CUDA calls.
//
// Thread safety: Copy may be called from any thread.
//
//   StagedCopier copier(&events, &backend, &pinned);
//   TFD_RETURN_IF_ERROR(copier.Copy(src, {0, stream_a}, dst, {1, stream_b}, bytes));
#ifndef TFD_CORE_DEVICE_CUDA_STAGED_COPY_H_
#define TFD_CORE_DEVICE_CUDA_STAGED_COPY_H_

#include <cstddef>

#include "absl/status/status.h"
#include "core/device/cuda/event_gate.h"
#include "core/device/cuda/pinned_host_pool.h"

namespace tfd {

// The device calls a staged copy needs besides events.
class StagedCopyBackend {
 public:
  virtual ~StagedCopyBackend() = default;
  // Queues on `stream` a copy of `n` bytes from `src`, memory of
  // stream.device, into host memory `dst` (cudaMemcpyAsync).
  virtual absl::Status QueueDeviceToHost(void* dst, const void* src, size_t n,
                                         StreamRef stream) = 0;
  // Queues on `stream` a copy of `n` bytes from host memory `src` into
  // `dst`, memory of stream.device.
  virtual absl::Status QueueHostToDevice(void* dst, const void* src, size_t n,
                                         StreamRef stream) = 0;
  // Makes the work queued on `stream` from now on wait for `event`, which
  // may belong to another GPU (cudaStreamWaitEvent).
  virtual absl::Status StreamWaitEvent(StreamRef stream, EventHandle event) = 0;
  // Waits on the host for everything queued on `stream`.
  virtual absl::Status SynchronizeStream(StreamRef stream) = 0;
};

class StagedCopier {
 public:
  // Owns none of them; all must outlive the copier.
  StagedCopier(EventBackend* events, StagedCopyBackend* backend, PinnedHostPool* pinned);

  // Queues a copy of `n` bytes from `src` (memory of src_stream.device,
  // written by work queued on `src_stream`) into `dst` (memory of
  // dst_stream.device, allocated for `dst_stream`) as Note [Staging a copy
  // between GPUs] says, and returns without waiting: the caller may drop
  // or overwrite the source at once through work on `src_stream`. Without
  // pinned memory it waits instead. The errors of the backends and the
  // pool; after a failure, both streams have been waited for (so the
  // staging block is no longer in use) before the block is freed.
  absl::Status Copy(const void* src, StreamRef src_stream, void* dst, StreamRef dst_stream,
                    size_t n);

 private:
  // Steps 1-3 of the Note through `staging`.
  absl::Status QueueThrough(void* staging, const void* src, StreamRef src_stream, void* dst,
                            StreamRef dst_stream, size_t n);
  // Through pageable host memory, waiting for both copies.
  absl::Status CopyAndWait(const void* src, StreamRef src_stream, void* dst,
                           StreamRef dst_stream, size_t n);

  EventBackend* const events_;
  StagedCopyBackend* const backend_;
  PinnedHostPool* const pinned_;
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_STAGED_COPY_H_
