#include "core/device/cuda/staged_copy.h"

#include <vector>

#include "core/framework/status.h"

namespace tfd {

StagedCopier::StagedCopier(EventBackend* events, StagedCopyBackend* backend,
                           PinnedHostPool* pinned)
    : events_(events), backend_(backend), pinned_(pinned) {}

absl::Status StagedCopier::Copy(const void* src, StreamRef src_stream, void* dst,
                                StreamRef dst_stream, size_t n) {
  if (n == 0) return absl::OkStatus();
  absl::StatusOr<void*> staging = pinned_->Allocate(n);
  if (!staging.ok()) {
    if (!absl::IsResourceExhausted(staging.status())) return staging.status();
    return CopyAndWait(src, src_stream, dst, dst_stream, n);
  }
  absl::Status s = QueueThrough(*staging, src, src_stream, dst, dst_stream, n);
  if (!s.ok()) {
    // A half that was queued may still use the block, and the pool may not
    // know of it: let both streams finish before the block can be reused.
    // Their own errors add nothing to the first one.
    (void)backend_->SynchronizeStream(src_stream);
    (void)backend_->SynchronizeStream(dst_stream);
  }
  const absl::Status freed = pinned_->Free(*staging);
  return s.ok() ? freed : s;
}

absl::Status StagedCopier::QueueThrough(void* staging, const void* src, StreamRef src_stream,
                                        void* dst, StreamRef dst_stream, size_t n) {
  // 1. Into the block, on the source's stream.
  TFD_RETURN_IF_ERROR(backend_->QueueDeviceToHost(staging, src, n, src_stream));
  TFD_RETURN_IF_ERROR(pinned_->RecordStream(staging, src_stream));
  // 2. The destination's stream waits for that copy.
  TFD_ASSIGN_OR_RETURN(EventHandle event, events_->Create(src_stream.device));
  absl::Status s = events_->Record(event, src_stream);
  if (s.ok()) s = backend_->StreamWaitEvent(dst_stream, event);
  // The wait keeps what it needs; CUDA releases the event once it is done.
  events_->Destroy(event);
  TFD_RETURN_IF_ERROR(s);
  // 3. Out of the block, on the destination's stream.
  TFD_RETURN_IF_ERROR(backend_->QueueHostToDevice(dst, staging, n, dst_stream));
  return pinned_->RecordStream(staging, dst_stream);
}

absl::Status StagedCopier::CopyAndWait(const void* src, StreamRef src_stream, void* dst,
                                       StreamRef dst_stream, size_t n) {
  std::vector<char> host(n);
  TFD_RETURN_IF_ERROR(backend_->QueueDeviceToHost(host.data(), src, n, src_stream));
  TFD_RETURN_IF_ERROR(backend_->SynchronizeStream(src_stream));
  TFD_RETURN_IF_ERROR(backend_->QueueHostToDevice(dst, host.data(), n, dst_stream));
  // `host` is freed on return: the copy must have read it.
  return backend_->SynchronizeStream(dst_stream);
}

}  // namespace tfd
