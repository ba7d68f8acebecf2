// Copies between two GPUs without the host: which pairs of GPUs may read
// each other's memory (PeerAccess), and how a copy between two streams is
// ordered (PeerCopier).
//
// Note [Ordering a copy between GPUs]
// A tensor on GPU A is written by work queued on A's stream; the copy's
// destination was just allocated for B's stream, so its earlier users are
// queued there. The copy is queued on B's stream (so its destination is
// safe, and B's later readers are ordered after it) behind an event
// recorded on A's stream when the copy is issued: the copy reads the
// source only once A's work queued so far has written it. Then A's stream
// waits for an event recorded on B's stream after the copy, so A's later
// work runs only after the copy has read the source: a kernel writing
// the source in place (an optimizer update of a variable) and new work
// given the source's memory once the caller drops it (A's caching
// allocator reuses a block as soon as its last user is queued) are both
// ordered after the copy, exactly as on one stream (Note [One stream per
// device] in cuda_device.cc). Both waits are on the devices
// (cudaStreamWaitEvent): the host does not wait. PyTorch orders its
// copies between GPUs with the same two-way barrier. Logical devices of
// one GPU share its stream: their copies are queued on it and need no
// event.
//
// Plain C++ over EventBackend and PeerCopyBackend: the ordering is tested
// with fakes on every machine (peer_copy_test.cc); cuda_peer_copy.cc
// supplies the CUDA calls.
//
// Thread safety: every method may be called from any thread.
//
//   PeerCopier copier(&events, &backend);
//   TFD_RETURN_IF_ERROR(copier.Copy(src, {0, stream_a}, dst, {1, stream_b}, bytes));
#ifndef TFD_CORE_DEVICE_CUDA_PEER_COPY_H_
#define TFD_CORE_DEVICE_CUDA_PEER_COPY_H_

#include <cstddef>
#include <map>
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

  // Queues on `dst_stream` a copy of `n` bytes from `src` (written by work
  // queued on `src_stream`) into `dst` (allocated for `dst_stream`),
  // ordered both ways as Note [Ordering a copy between GPUs] says, and
  // returns without waiting: the caller may drop or overwrite the source
  // at once through work on `src_stream`. Errors of the backends; after a
  // failure past the copy itself, `src_stream` may not be ordered after
  // the copy, and the error says so.
  absl::Status Copy(const void* src, StreamRef src_stream, void* dst, StreamRef dst_stream,
                    size_t n);

 private:
  // Makes `waiter` wait for the work queued on `signaler` so far.
  absl::Status OrderAfter(StreamRef waiter, StreamRef signaler);

  EventBackend* const events_;
  PeerCopyBackend* const backend_;
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_PEER_COPY_H_
