#include "core/device/cuda/peer_copy.h"

#include <cstdio>
#include <string>
#include <vector>

#include "core/framework/status.h"

namespace tfd {
namespace {

using SourceOwner = std::shared_ptr<const void>;

}  // namespace

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
    : events_(events), backend_(backend), gate_(events) {}

PeerCopier::~PeerCopier() = default;

absl::Status PeerCopier::Copy(const void* src, StreamRef src_stream, void* dst,
                              StreamRef dst_stream, size_t n, SourceOwner src_owner) {
  if (n == 0) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  const absl::Status released = ReleaseFinishedLocked();
  if (src_stream == dst_stream) {
    // Logical devices of one GPU: the stream orders everything, and the
    // source's next user is queued behind the copy.
    TFD_RETURN_IF_ERROR(backend_->QueueCopy(dst, dst_stream, src, src_stream.device, n));
    return released;
  }
  // 1. The copy waits for the work that wrote the source.
  TFD_ASSIGN_OR_RETURN(EventHandle written, events_->Create(src_stream.device));
  absl::Status s = events_->Record(written, src_stream);
  if (s.ok()) s = backend_->StreamWaitEvent(dst_stream, written);
  // The wait keeps what it needs; CUDA releases the event once it is done.
  events_->Destroy(written);
  TFD_RETURN_IF_ERROR(s);
  // 2. The copy, on the destination's stream.
  s = backend_->QueueCopy(dst, dst_stream, src, src_stream.device, n);
  // 3. The source lives until the destination's stream has run the copy.
  // Held even when queueing failed: part of it may have been queued.
  auto* owner = new SourceOwner(std::move(src_owner));
  const absl::Status held = gate_.Hold(owner, {dst_stream});
  // On a failed hold the gate drops `owner` without handing it back: it
  // leaks, rather than free memory a copy may still read.
  TFD_RETURN_IF_ERROR(s);
  TFD_RETURN_IF_ERROR(held);
  return released;
}

absl::Status PeerCopier::ReleaseFinished() {
  absl::MutexLock lock(&mu_);
  return ReleaseFinishedLocked();
}

absl::Status PeerCopier::ReleaseFinishedLocked() {
  std::vector<void*> done;
  const absl::Status s = gate_.Collect(&done);
  for (void* owner : done) delete static_cast<SourceOwner*>(owner);
  return s;
}

int64_t PeerCopier::held_sources() const {
  absl::MutexLock lock(&mu_);
  return gate_.Stats().held;
}

}  // namespace tfd
