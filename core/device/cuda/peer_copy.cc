#include "core/device/cuda/peer_copy.h"

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"

namespace tfd {

PeerAccess::PeerAccess(PeerCopyBackend* backend) : backend_(backend) {}

bool PeerAccess::Usable(int reader, int owner) {
  if (reader == owner) return true;
  absl::MutexLock lock(&mu_);
  auto it = usable_.find({reader, owner});
  if (it != usable_.end()) return it->second;
  bool usable = false;
  std::string failure;
  absl::StatusOr<bool> can = backend_->CanAccessPeer(reader, owner);
  if (!can.ok()) {
    failure = can.status().ToString();
  } else if (*can) {
    const absl::Status enabled = backend_->EnablePeerAccess(reader, owner);
    usable = enabled.ok();
    if (!usable) failure = enabled.ToString();
  }
  // GPUs that are simply not connected are no failure: staging is their
  // normal path. A failed driver call is worth a line.
  if (!failure.empty()) {
    std::fprintf(stderr,
                 "tfd: GPU %d cannot read GPU %d's memory directly (%s); copies between them "
                 "go through host memory\n",
                 reader, owner, failure.c_str());
  }
  usable_[{reader, owner}] = usable;
  return usable;
}

PeerCopier::PeerCopier(EventBackend* events, PeerCopyBackend* backend)
    : events_(events), backend_(backend) {}

absl::Status PeerCopier::OrderAfter(StreamRef waiter, StreamRef signaler) {
  TFD_ASSIGN_OR_RETURN(EventHandle event, events_->Create(signaler.device));
  absl::Status s = events_->Record(event, signaler);
  if (s.ok()) s = backend_->StreamWaitEvent(waiter, event);
  // The wait keeps what it needs; CUDA releases the event once it is done.
  events_->Destroy(event);
  return s;
}

absl::Status PeerCopier::Copy(const void* src, StreamRef src_stream, void* dst,
                              StreamRef dst_stream, size_t n) {
  if (n == 0) return absl::OkStatus();
  if (src_stream == dst_stream) {
    // Logical devices of one GPU: the stream orders everything.
    return backend_->QueueCopy(dst, dst_stream, src, src_stream.device, n);
  }
  // 1. The copy waits for the work that wrote the source.
  TFD_RETURN_IF_ERROR(OrderAfter(dst_stream, src_stream));
  // 2. The copy, on the destination's stream.
  TFD_RETURN_IF_ERROR(backend_->QueueCopy(dst, dst_stream, src, src_stream.device, n));
  // 3. The source's later writers and new owners wait for the copy.
  absl::Status s = OrderAfter(src_stream, dst_stream);
  if (!s.ok()) {
    return absl::Status(s.code(), absl::StrCat("a copy from GPU ", src_stream.device, " to GPU ",
                                               dst_stream.device,
                                               " was queued, but GPU ", src_stream.device,
                                               "'s later work could not be ordered after it: ",
                                               s.message()));
  }
  return absl::OkStatus();
}

}  // namespace tfd
