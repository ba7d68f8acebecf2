// The host allocator: 64-byte aligned blocks (a cache line, and what
// AVX-512 loads and oneDNN's kernels want) from the C heap, with usage
// counters.
//
// Small blocks (up to kLargestCachedHostBlock, 64 KiB) are recycled: a
// freed block goes to a per-thread free list of its size class
// (host_free_lists.h) and the next request of that class on that thread
// takes it back, with no lock and no call into the C heap. What the lists
// hold is bounded per thread (kHostCacheBytesPerThread) and in total
// (kHostCacheBytes); a block past either bound, and every larger block,
// goes straight back to the system. A thread's lists are freed when it
// exits. Stats().bytes_reserved is what the lists hold (in class sizes).
//
// Under AddressSanitizer nothing is cached, so a use after free of a
// tensor's buffer is still reported.
//
// Thread safety: Allocate and Deallocate may be called from any threads;
// a block may be freed on another thread than the one that allocated it.
#ifndef TFD_CORE_DEVICE_CPU_CPU_ALLOCATOR_H_
#define TFD_CORE_DEVICE_CPU_CPU_ALLOCATOR_H_

#include <cstddef>

#include "core/framework/allocator.h"

namespace tfd {

constexpr size_t kHostCacheBytesPerThread = size_t{1} << 20;
constexpr size_t kHostCacheBytes = size_t{16} << 20;

// The process-wide host allocator. Never deleted.
Allocator* CpuAllocator();

// Whether CpuAllocator() recycles small blocks (false under ASan).
bool HostBlockCacheEnabled();

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CPU_CPU_ALLOCATOR_H_
