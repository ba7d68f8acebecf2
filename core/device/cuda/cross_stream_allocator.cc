#include "core/device/cuda/cross_stream_allocator.h"

#include <cstdio>
#include <vector>

namespace tfd {

CrossStreamAllocator::CrossStreamAllocator(CachingAllocator* cache, EventBackend* events,
                                           StreamRef writer, StreamRef reader)
    : cache_(cache), writer_(writer), reader_(reader), gate_(events) {}

std::string CrossStreamAllocator::Name() const { return cache_->name() + " (copy stream)"; }

void CrossStreamAllocator::ReturnFinished(bool wait) {
  std::vector<void*> ready;
  absl::Status s = wait ? gate_.WaitAndCollect(&ready) : gate_.Collect(&ready);
  for (void* p : ready) cache_->Free(p);
  if (!s.ok()) {
    std::fprintf(stderr, "tfd: %s: a buffer is never reused: %s\n", Name().c_str(),
                 s.ToString().c_str());
  }
}

void* CrossStreamAllocator::Allocate(size_t bytes) {
  absl::MutexLock lock(&mu_);
  ReturnFinished(/*wait=*/false);
  absl::StatusOr<void*> p = cache_->Allocate(bytes, writer_.stream);
  if (!p.ok() && absl::IsResourceExhausted(p.status()) && gate_.Stats().held > 0) {
    ReturnFinished(/*wait=*/true);
    p = cache_->Allocate(bytes, writer_.stream);
  }
  return p.ok() ? *p : nullptr;
}

void CrossStreamAllocator::Deallocate(void* ptr, size_t bytes) {
  if (ptr == nullptr) return;
  absl::MutexLock lock(&mu_);
  const absl::Status s = gate_.Hold(ptr, {reader_});
  if (!s.ok()) {
    // Leaked: the reader may still use it and nothing can tell when not.
    std::fprintf(stderr, "tfd: %s: a buffer of %zu bytes is never reused: %s\n", Name().c_str(),
                 bytes, s.ToString().c_str());
  }
}

AllocatorStats CrossStreamAllocator::Stats() const {
  return ToAllocatorStats(cache_->Stats());
}

int64_t CrossStreamAllocator::waiting_blocks() const {
  absl::MutexLock lock(&mu_);
  return gate_.Stats().held;
}

}  // namespace tfd
