// Note [Caching allocator]
// The scheme is the one PyTorch's CUDA allocator made standard, because
// training allocates the same shapes every step:
// - Two pools keep small tensors (biases, scalars) from carving up the big
//   segments that activations need, which would leave large requests with
//   no contiguous room.
// - In the small pool any remainder of 512 bytes or more is split off; in
//   the large pool only remainders above 1 MiB are, since a large block
//   with a sliver cut off is still useful whereas many slivers are not.
// - Best fit (smallest free block >= request, per stream) keeps the big
//   free blocks for big requests.
// - Blocks never move between streams: stream order then guarantees that a
//   block's previous user has finished before its next one starts.
#include "core/device/cuda/caching_allocator.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <tuple>

#include "core/framework/device_counters.h"
#include <vector>

#include "core/framework/status.h"

namespace tfd {

struct CachingAllocator::Block {
  void* ptr = nullptr;
  size_t size = 0;
  StreamKey stream = nullptr;
  bool small = false;      // Which pool its segment belongs to.
  bool allocated = false;
  size_t requested = 0;    // While allocated: the caller's unrounded size.
  Block* prev = nullptr;   // Neighbours in the same segment, by address.
  Block* next = nullptr;
};

bool CachingAllocator::BlockLess::operator()(const Block* a, const Block* b) const {
  const std::less<const void*> less;
  if (a->stream != b->stream) return less(a->stream, b->stream);
  if (a->size != b->size) return a->size < b->size;
  return less(a->ptr, b->ptr);
}

size_t CachingAllocator::RoundSize(size_t bytes) {
  if (bytes < kMinBlockSize) return kMinBlockSize;
  return (bytes + kMinBlockSize - 1) / kMinBlockSize * kMinBlockSize;
}

size_t CachingAllocator::SegmentSize(size_t rounded) {
  if (rounded <= kSmallSize) return kSmallSegment;
  if (rounded < kMinLargeAlloc) return kLargeSegment;
  return (rounded + kLargeRound - 1) / kLargeRound * kLargeRound;
}

CachingAllocator::CachingAllocator(std::unique_ptr<DeviceMemoryBackend> backend,
                                   std::string name)
    : backend_(std::move(backend)), name_(std::move(name)) {}

CachingAllocator::~CachingAllocator() {
  absl::MutexLock lock(&mu_);
  absl::Status s = ReleaseFreeSegments();
  if (!s.ok()) {
    std::fprintf(stderr, "tfd: CachingAllocator(%s): %s\n", name_.c_str(),
                 s.ToString().c_str());
  }
  // Blocks of segments still in use are leaked with them; free their
  // bookkeeping only.
  std::vector<Block*> rest(small_free_.begin(), small_free_.end());
  rest.insert(rest.end(), large_free_.begin(), large_free_.end());
  for (auto& [ptr, block] : live_) rest.push_back(block);
  for (Block* b : rest) delete b;
}

CachingAllocator::FreeSet& CachingAllocator::PoolFor(size_t rounded) {
  return rounded <= kSmallSize ? small_free_ : large_free_;
}

CachingAllocator::Block* CachingAllocator::FindFree(FreeSet& pool, StreamKey stream,
                                                    size_t rounded) {
  Block key;
  key.stream = stream;
  key.size = rounded;
  key.ptr = nullptr;
  auto it = pool.lower_bound(&key);
  if (it == pool.end() || (*it)->stream != stream) return nullptr;
  Block* block = *it;
  pool.erase(it);
  return block;
}

absl::StatusOr<CachingAllocator::Block*> CachingAllocator::NewSegment(size_t rounded,
                                                                      StreamKey stream,
                                                                      bool small) {
  const size_t segment = SegmentSize(rounded);
  absl::StatusOr<void*> ptr = backend_->Malloc(segment);
  if (!ptr.ok() && absl::IsResourceExhausted(ptr.status())) {
    // Memory cached on other streams (or in the other pool) may be what
    // the device lacks: give back whatever is wholly free and try again.
    absl::Status released = ReleaseFreeSegments();
    if (!released.ok()) return released;
    ptr = backend_->Malloc(segment);
  }
  if (!ptr.ok()) {
    ++stats_.num_ooms;
    if (!absl::IsResourceExhausted(ptr.status())) return ptr.status();
    return ResourceExhausted(
        "CachingAllocator(", name_, "): out of memory: a request of ", rounded,
        " bytes needs a new ", segment, "-byte segment; ", stats_.allocated_bytes,
        " bytes allocated, ", stats_.reserved_bytes - stats_.allocated_bytes,
        " cached on other streams or fragmented, ", stats_.reserved_bytes,
        " reserved in ", stats_.num_segments, " segments; device: ",
        ptr.status().message());
  }
  ++stats_.num_device_allocs;
  CountDeviceEvent(DeviceEvent::kDeviceAllocation);  // A cache miss (device_counters.h).
  ++stats_.num_segments;
  stats_.reserved_bytes += segment;
  Block* block = new Block;
  block->ptr = *ptr;
  block->size = segment;
  block->stream = stream;
  block->small = small;
  return block;
}

void CachingAllocator::SplitIfWorthIt(Block* block, size_t rounded, FreeSet& pool) {
  const size_t rest = block->size - rounded;
  const bool worth_it = block->small ? rest >= kMinBlockSize : rest > kSmallSize;
  if (!worth_it) return;
  Block* tail = new Block;
  tail->ptr = static_cast<char*>(block->ptr) + rounded;
  tail->size = rest;
  tail->stream = block->stream;
  tail->small = block->small;
  tail->prev = block;
  tail->next = block->next;
  if (block->next != nullptr) block->next->prev = tail;
  block->next = tail;
  block->size = rounded;
  pool.insert(tail);
}

absl::StatusOr<void*> CachingAllocator::Allocate(size_t bytes, StreamKey stream) {
  const size_t rounded = RoundSize(bytes);
  const bool small = rounded <= kSmallSize;
  absl::MutexLock lock(&mu_);
  FreeSet& pool = PoolFor(rounded);
  Block* block = FindFree(pool, stream, rounded);
  if (block == nullptr) {
    TFD_ASSIGN_OR_RETURN(block, NewSegment(rounded, stream, small));
  }
  SplitIfWorthIt(block, rounded, pool);
  block->allocated = true;
  block->requested = bytes;
  live_[block->ptr] = block;
  ++stats_.num_allocs;
  stats_.allocated_bytes += block->size;
  stats_.requested_bytes += bytes;
  NotePeaks();
  return block->ptr;
}

void CachingAllocator::MergeIntoFree(Block* block) {
  FreeSet& pool = block->small ? small_free_ : large_free_;
  // Absorb a free neighbour on each side; the survivor keeps the lower
  // address.
  if (Block* prev = block->prev; prev != nullptr && !prev->allocated) {
    pool.erase(prev);
    prev->size += block->size;
    prev->next = block->next;
    if (block->next != nullptr) block->next->prev = prev;
    delete block;
    block = prev;
  }
  if (Block* next = block->next; next != nullptr && !next->allocated) {
    pool.erase(next);
    block->size += next->size;
    block->next = next->next;
    if (next->next != nullptr) next->next->prev = block;
    delete next;
  }
  pool.insert(block);
}

void CachingAllocator::Free(void* ptr) {
  if (ptr == nullptr) return;
  absl::MutexLock lock(&mu_);
  auto it = live_.find(ptr);
  if (it == live_.end()) {
    std::fprintf(stderr, "tfd: CachingAllocator(%s): Free(%p) of a pointer it did not hand out\n",
                 name_.c_str(), ptr);
    std::abort();
  }
  Block* block = it->second;
  live_.erase(it);
  ++stats_.num_frees;
  stats_.allocated_bytes -= block->size;
  stats_.requested_bytes -= block->requested;
  block->allocated = false;
  block->requested = 0;
  MergeIntoFree(block);
}

absl::Status CachingAllocator::ReleaseFreeSegments() {
  absl::Status first;
  for (FreeSet* pool : {&small_free_, &large_free_}) {
    for (auto it = pool->begin(); it != pool->end();) {
      Block* b = *it;
      // A free block with no neighbours is a whole segment (merging
      // guarantees free neighbours never stay apart).
      if (b->prev != nullptr || b->next != nullptr) {
        ++it;
        continue;
      }
      absl::Status s = backend_->Free(b->ptr, b->size);
      if (!s.ok()) {
        if (first.ok()) first = s;
        ++it;
        continue;
      }
      ++stats_.num_device_frees;
      --stats_.num_segments;
      stats_.reserved_bytes -= b->size;
      it = pool->erase(it);
      delete b;
    }
  }
  return first;
}

absl::Status CachingAllocator::EmptyCache() {
  absl::MutexLock lock(&mu_);
  return ReleaseFreeSegments();
}

void CachingAllocator::NotePeaks() {
  stats_.peak_allocated_bytes = std::max(stats_.peak_allocated_bytes, stats_.allocated_bytes);
  stats_.peak_reserved_bytes = std::max(stats_.peak_reserved_bytes, stats_.reserved_bytes);
}

CachingAllocatorStats CachingAllocator::Stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

void CachingAllocator::ResetPeakStats() {
  absl::MutexLock lock(&mu_);
  stats_.peak_allocated_bytes = stats_.allocated_bytes;
  stats_.peak_reserved_bytes = stats_.reserved_bytes;
}

size_t CachingAllocator::AllocationSize(const void* ptr) const {
  absl::MutexLock lock(&mu_);
  auto it = live_.find(ptr);
  return it == live_.end() ? 0 : it->second->size;
}

AllocatorStats ToAllocatorStats(const CachingAllocatorStats& s) {
  AllocatorStats out;
  out.num_allocs = s.num_allocs;
  out.bytes_in_use = s.allocated_bytes;
  out.peak_bytes_in_use = s.peak_allocated_bytes;
  out.bytes_reserved = s.reserved_bytes - s.allocated_bytes;
  return out;
}

void* StreamAllocator::Allocate(size_t bytes) {
  absl::StatusOr<void*> p = cache_->Allocate(bytes, stream_);
  return p.ok() ? *p : nullptr;
}

AllocatorStats StreamAllocator::Stats() const {
  return ToAllocatorStats(cache_->Stats());
}

}  // namespace tfd
