#include "core/device/cuda/pinned_host_pool.h"

#include <cstdio>
#include <utility>

#include "absl/strings/str_format.h"
#include "core/framework/status.h"

namespace tfd {

size_t PinnedHostPool::RoundSize(size_t bytes) {
  size_t size = kMinBlockSize;
  while (size < bytes) size <<= 1;
  return size;
}

PinnedHostPool::PinnedHostPool(std::unique_ptr<DeviceMemoryBackend> memory,
                               std::unique_ptr<EventBackend> events, std::string name)
    : memory_(std::move(memory)),
      events_(std::move(events)),
      name_(std::move(name)),
      gate_(events_.get()) {}

PinnedHostPool::~PinnedHostPool() {
  absl::MutexLock lock(&mu_);
  absl::Status s = ReleaseFreeBlocks();
  if (!s.ok()) {
    std::fprintf(stderr, "tfd: PinnedHostPool(%s): %s\n", name_.c_str(), s.ToString().c_str());
  }
  for (auto& [address, block] : blocks_) delete block;
}

PinnedHostPool::Block* PinnedHostPool::FindBlock(const void* ptr) const {
  const uintptr_t p = reinterpret_cast<uintptr_t>(ptr);
  auto it = blocks_.upper_bound(p);
  if (it == blocks_.begin()) return nullptr;
  --it;
  Block* b = it->second;
  if (p >= it->first + b->size) return nullptr;
  return b;
}

void PinnedHostPool::MakeFree(Block* block) {
  block->allocated = false;
  block->streams.clear();
  free_[block->size].push_back(block);
}

absl::Status PinnedHostPool::CollectFinished() {
  std::vector<void*> ready;
  absl::Status s = gate_.Collect(&ready);
  for (void* item : ready) {
    MakeFree(static_cast<Block*>(item));
  }
  stats_.waiting_blocks = gate_.Stats().held;
  stats_.lost_blocks = gate_.Stats().lost;
  return s;
}

absl::Status PinnedHostPool::ReleaseFreeBlocks() {
  absl::Status first;
  for (auto& [size, list] : free_) {
    std::vector<Block*> kept;
    for (Block* b : list) {
      absl::Status s = memory_->Free(b->ptr, b->size);
      if (!s.ok()) {
        if (first.ok()) first = s;
        kept.push_back(b);
        continue;
      }
      ++stats_.num_device_frees;
      stats_.reserved_bytes -= b->size;
      blocks_.erase(reinterpret_cast<uintptr_t>(b->ptr));
      delete b;
    }
    list = std::move(kept);
  }
  return first;
}

absl::StatusOr<void*> PinnedHostPool::Allocate(size_t bytes) {
  const size_t size = RoundSize(bytes);
  absl::MutexLock lock(&mu_);
  TFD_RETURN_IF_ERROR(CollectFinished());
  Block* block = nullptr;
  if (std::vector<Block*>& list = free_[size]; !list.empty()) {
    block = list.back();
    list.pop_back();
    ++stats_.num_reuses;
  } else {
    absl::StatusOr<void*> ptr = memory_->Malloc(size);
    if (!ptr.ok() && absl::IsResourceExhausted(ptr.status())) {
      // Blocks that streams still read, and free blocks of other sizes,
      // may be what the backend lacks: wait for the former, give back
      // both, and try once more.
      std::vector<void*> ready;
      absl::Status waited = gate_.WaitAndCollect(&ready);
      for (void* item : ready) MakeFree(static_cast<Block*>(item));
      stats_.waiting_blocks = gate_.Stats().held;
      stats_.lost_blocks = gate_.Stats().lost;
      absl::Status released = ReleaseFreeBlocks();
      if (!waited.ok()) return waited;
      if (!released.ok()) return released;
      ptr = memory_->Malloc(size);
    }
    if (!ptr.ok()) {
      ++stats_.num_ooms;
      if (!absl::IsResourceExhausted(ptr.status())) return ptr.status();
      return ResourceExhausted("PinnedHostPool(", name_, "): no pinned memory for a request of ",
                               bytes, " bytes (a ", size, "-byte block); ",
                               stats_.allocated_bytes, " bytes handed out, ",
                               stats_.reserved_bytes, " reserved; backend: ",
                               ptr.status().message());
    }
    block = new Block;
    block->ptr = *ptr;
    block->size = size;
    blocks_[reinterpret_cast<uintptr_t>(block->ptr)] = block;
    ++stats_.num_device_allocs;
    stats_.reserved_bytes += size;
  }
  block->allocated = true;
  ++stats_.num_allocs;
  stats_.allocated_bytes += size;
  return block->ptr;
}

absl::Status PinnedHostPool::RecordStream(const void* ptr, StreamRef stream) {
  absl::MutexLock lock(&mu_);
  Block* b = FindBlock(ptr);
  if (b == nullptr || !b->allocated) {
    return NotFound("PinnedHostPool(", name_, "): ", absl::StrFormat("%p", ptr),
                    " is not in a block it handed out");
  }
  for (const StreamRef& s : b->streams) {
    if (s == stream) return absl::OkStatus();
  }
  b->streams.push_back(stream);
  return absl::OkStatus();
}

bool PinnedHostPool::Contains(const void* ptr, size_t n) const {
  absl::MutexLock lock(&mu_);
  const Block* b = FindBlock(ptr);
  if (b == nullptr || !b->allocated) return false;
  const uintptr_t end = reinterpret_cast<uintptr_t>(b->ptr) + b->size;
  return n <= end - reinterpret_cast<uintptr_t>(ptr);
}

absl::Status PinnedHostPool::Free(void* ptr) {
  if (ptr == nullptr) return absl::OkStatus();
  absl::MutexLock lock(&mu_);
  auto it = blocks_.find(reinterpret_cast<uintptr_t>(ptr));
  if (it == blocks_.end() || !it->second->allocated) {
    return InvalidArgument("PinnedHostPool(", name_, "): Free(", absl::StrFormat("%p", ptr),
                           ") of a pointer it did not hand out");
  }
  Block* b = it->second;
  b->allocated = false;
  ++stats_.num_frees;
  stats_.allocated_bytes -= b->size;
  if (b->streams.empty()) {
    MakeFree(b);
    return absl::OkStatus();
  }
  const std::vector<StreamRef> streams = std::move(b->streams);
  b->streams.clear();
  absl::Status s = gate_.Hold(b, streams);
  stats_.waiting_blocks = gate_.Stats().held;
  stats_.lost_blocks = gate_.Stats().lost;
  return s;
}

absl::Status PinnedHostPool::EmptyCache() {
  absl::MutexLock lock(&mu_);
  TFD_RETURN_IF_ERROR(CollectFinished());
  return ReleaseFreeBlocks();
}

PinnedHostPoolStats PinnedHostPool::Stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace tfd
