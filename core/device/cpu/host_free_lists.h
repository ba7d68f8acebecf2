// HostFreeLists: one thread's cache of freed small host blocks, by size
// class, for the host allocator (cpu_allocator.h) to hand out again.
//
// Why: nearly every op allocates a small output on the host, and a 64-byte
// aligned allocation from the C heap (memalign) splits and frees chunk
// remainders on every call, which made malloc and free a fifth of a small
// op's dispatch time. A block of the right class taken from a list costs a
// few loads and stores.
//
// Size classes are powers of two from kSmallestHostBlock (64 bytes, the
// tensor alignment) to kLargestCachedHostBlock; a request is served by the
// smallest class that holds it, so blocks of one class are interchangeable.
// Larger requests are not cached (HostSizeClass returns -1).
//
// The lists are threaded through the free blocks themselves (the first
// word of a free block points at the next one), so caching allocates
// nothing. The lists hold at most `capacity_bytes` (counted in class
// sizes); Push refuses a block past that and the caller frees it.
//
// Thread safety: none; each thread owns its own lists.
//
//   HostFreeLists lists(1 << 20);
//   const int c = HostSizeClass(bytes);
//   void* p = lists.Pop(c);
//   if (p == nullptr) p = std::aligned_alloc(64, HostSizeClassBytes(c));
//   ...
//   if (!lists.Push(c, p)) std::free(p);
#ifndef TFD_CORE_DEVICE_CPU_HOST_FREE_LISTS_H_
#define TFD_CORE_DEVICE_CPU_HOST_FREE_LISTS_H_

#include <cstddef>
#include <cstdint>

namespace tfd {

constexpr size_t kSmallestHostBlock = 64;
constexpr size_t kLargestCachedHostBlock = size_t{64} << 10;
constexpr int kNumHostSizeClasses = 11;  // 64 B, 128 B, ..., 64 KiB.

// The class serving a request of `bytes` (0 for 0 to 64 bytes), or -1 when
// it is larger than kLargestCachedHostBlock.
inline int HostSizeClass(size_t bytes) {
  if (bytes <= kSmallestHostBlock) return 0;
  if (bytes > kLargestCachedHostBlock) return -1;
  // ceil(log2(bytes)) - log2(64), for bytes in (64, 64 KiB].
  return 64 - __builtin_clzll(static_cast<unsigned long long>(bytes - 1)) - 6;
}

// The block size of class `size_class` (0 <= size_class < kNumHostSizeClasses).
inline size_t HostSizeClassBytes(int size_class) { return kSmallestHostBlock << size_class; }

class HostFreeLists {
 public:
  explicit HostFreeLists(size_t capacity_bytes) : capacity_(capacity_bytes) {}
  // The blocks still held are the owner's to free first (Drain).
  ~HostFreeLists() = default;
  HostFreeLists(const HostFreeLists&) = delete;
  HostFreeLists& operator=(const HostFreeLists&) = delete;

  // The block freed last in `size_class`, or nullptr when there is none.
  void* Pop(int size_class) {
    Node* n = heads_[size_class];
    if (n == nullptr) return nullptr;
    heads_[size_class] = n->next;
    bytes_ -= HostSizeClassBytes(size_class);
    return n;
  }

  // Keeps `block` (of HostSizeClassBytes(size_class) bytes, 8-aligned) for
  // a later Pop; false, keeping nothing, when that would pass the capacity.
  bool Push(int size_class, void* block) {
    const size_t size = HostSizeClassBytes(size_class);
    if (bytes_ + size > capacity_) return false;
    Node* n = static_cast<Node*>(block);
    n->next = heads_[size_class];
    heads_[size_class] = n;
    bytes_ += size;
    return true;
  }

  // Bytes held, in class sizes.
  size_t bytes() const { return bytes_; }

  // Empties the lists, handing each block and its class to `release`.
  template <typename Release>
  void Drain(Release release) {
    for (int c = 0; c < kNumHostSizeClasses; ++c) {
      while (void* block = Pop(c)) release(block, c);
    }
  }

 private:
  struct Node {
    Node* next;
  };
  const size_t capacity_;
  size_t bytes_ = 0;
  Node* heads_[kNumHostSizeClasses] = {};
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CPU_HOST_FREE_LISTS_H_
