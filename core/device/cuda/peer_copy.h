// Copies between two GPUs without the host: which pairs of GPUs may read
// each other's memory (PeerAccess), and how a copy between two streams is
// ordered and keeps its source alive (PeerCopier).
//
// Note [Ordering a copy between GPUs]
// A tensor on GPU A is written by work queued on A's stream; the copy's
// destination was just allocated for B's stream, so its earlier users are
// queued there. The copy is queued on B's stream (so its destination is
// safe, and B's later readers are ordered after it) behind an event
// recorded on A's stream when the copy is issued (cudaStreamWaitEvent: the
// device waits, the host and A's stream do not). What is left is the
// source: once the caller drops it, A's caching allocator hands its memory
// to the next work on A's stream, which the copy on B's stream is not
// ordered against. So the copier holds the source's owner until an event
// recorded on B's stream after the copy has completed (EventGate, as
// CrossStreamAllocator and PinnedHostPool hold their memory); a look for
// finished copies is taken at every copy and at Synchronize. Logical
// devices of one GPU share its stream: their copies are queued on it and
// need neither event nor hold.
//
// Plain C++ over EventBackend and PeerCopyBackend: the ordering is tested
// with fakes on every machine (peer_copy_test.cc); cuda_device.cc supplies
// the CUDA calls.
//
// Thread safety: every method may be called from any thread.
//
//   PeerCopier copier(&events, &backend);
//   TFD_RETURN_IF_ERROR(copier.Copy(src, {0, stream_a}, dst, {1, stream_b},
//                                   bytes, src_tensor_buffer));
#ifndef TFD_CORE_DEVICE_CUDA_PEER_COPY_H_
#define TFD_CORE_DEVICE_CUDA_PEER_COPY_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/device/cuda/event_gate.h"

namespace tfd {

// The device calls a copy between GPUs needs besides events.
class PeerCopyBackend {
 public:
  virtual ~PeerCopyBackend() = default;
  // Whether GPU `reader` can access GPU `owner`'s memory directly
  // (cudaDeviceCanAccessPeer).
  virtual absl::StatusOr<bool> CanAccessPeer(int reader, int owner) = 0;
  // Lets GPU `reader` access `owner`'s memory (cudaDeviceEnablePeerAccess
  // with `reader` current); access that is already enabled is no error.
  virtual absl::Status EnablePeerAccess(int reader, int owner) = 0;
  // Makes the work queued on `stream` from now on wait for `event`, which
  // may belong to another GPU (cudaStreamWaitEvent).
  virtual absl::Status StreamWaitEvent(StreamRef stream, EventHandle event) = 0;
  // Queues on `stream` a copy of `n` bytes from `src`, memory of GPU
  // `src_device`, into `dst`, memory of stream.device.
  virtual absl::Status QueueCopy(void* dst, StreamRef stream, const void* src, int src_device,
                                 size_t n) = 0;
};

// Which GPUs read which directly: asked once per ordered pair, access
// enabled on first use.
class PeerAccess {
 public:
  // Does not own `backend`, which must outlive this.
  explicit PeerAccess(PeerCopyBackend* backend);

  // True when GPU `reader` may now access `owner`'s memory: the same GPU,
  // or one the driver connects and whose access is enabled (by this call,
  // the first time). False when they cannot reach each other, or when
  // asking or enabling failed (printed once per pair): the caller copies
  // through the host instead. The answer is kept for the process.
  bool Usable(int reader, int owner);

 private:
  PeerCopyBackend* const backend_;
  absl::Mutex mu_;
  std::map<std::pair<int, int>, bool> usable_ ABSL_GUARDED_BY(mu_);
};

class PeerCopier {
 public:
  // Owns neither; both must outlive the copier.
  PeerCopier(EventBackend* events, PeerCopyBackend* backend);
  // Sources still held are dropped unreleased (leaked), never freed under
  // a copy that may still read them.
  ~PeerCopier();
  PeerCopier(const PeerCopier&) = delete;
  PeerCopier& operator=(const PeerCopier&) = delete;

  // Queues on `dst_stream` a copy of `n` bytes from `src` (written by work
  // queued on `src_stream`) into `dst` (allocated for `dst_stream`),
  // ordered as Note [Ordering a copy between GPUs] says; returns without
  // waiting. `src_owner` keeps the source's memory alive and is released
  // once the copy has run. Errors of the backends; after a failed copy
  // the source is still held when the copy may have been queued.
  absl::Status Copy(const void* src, StreamRef src_stream, void* dst, StreamRef dst_stream,
                    size_t n, std::shared_ptr<const void> src_owner);

  // Releases the sources of finished copies; never blocks.
  absl::Status ReleaseFinished();

  // Sources held now (copies not yet seen finished).
  int64_t held_sources() const;

 private:
  absl::Status ReleaseFinishedLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  EventBackend* const events_;
  PeerCopyBackend* const backend_;
  mutable absl::Mutex mu_;
  // Items are heap-allocated shared_ptr<const void>, one per copy.
  EventGate gate_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_PEER_COPY_H_
