#include "core/device/cpu/cpu_allocator.h"

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "absl/synchronization/barrier.h"
#include "core/device/cpu/host_free_lists.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

bool Aligned(const void* p) {
  return reinterpret_cast<uintptr_t>(p) % kTensorAlignment == 0;
}

TEST(CpuAllocatorTest, BlocksOfEverySizeAreAlignedAndWritable) {
  Allocator* a = CpuAllocator();
  for (size_t bytes : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{1000},
                       kLargestCachedHostBlock, kLargestCachedHostBlock + 1,
                       size_t{3} << 20}) {
    void* p = a->Allocate(bytes);
    ASSERT_NE(p, nullptr) << bytes;
    EXPECT_TRUE(Aligned(p)) << bytes;
    std::memset(p, 0xab, bytes);
    a->Deallocate(p, bytes);
  }
}

TEST(CpuAllocatorTest, CountsBytesInUse) {
  Allocator* a = CpuAllocator();
  const AllocatorStats before = a->Stats();
  void* p = a->Allocate(100);
  void* q = a->Allocate(size_t{1} << 20);
  const AllocatorStats during = a->Stats();
  EXPECT_EQ(during.bytes_in_use - before.bytes_in_use, 100 + (1 << 20));
  EXPECT_EQ(during.num_allocs - before.num_allocs, 2);
  EXPECT_GE(during.peak_bytes_in_use, during.bytes_in_use);
  a->Deallocate(p, 100);
  a->Deallocate(q, size_t{1} << 20);
  EXPECT_EQ(a->Stats().bytes_in_use, before.bytes_in_use);
}

TEST(CpuAllocatorTest, AFreedSmallBlockServesTheNextRequestOfItsClass) {
  if (!HostBlockCacheEnabled()) GTEST_SKIP() << "no block cache under AddressSanitizer";
  Allocator* a = CpuAllocator();
  void* p = a->Allocate(100);  // The 128-byte class.
  const int64_t reserved = a->Stats().bytes_reserved;
  a->Deallocate(p, 100);
  EXPECT_EQ(a->Stats().bytes_reserved, reserved + 128);
  void* q = a->Allocate(120);
  EXPECT_EQ(q, p);
  EXPECT_EQ(a->Stats().bytes_reserved, reserved);
  a->Deallocate(q, 120);
}

TEST(CpuAllocatorTest, ABigBlockIsNotKept) {
  if (!HostBlockCacheEnabled()) GTEST_SKIP() << "no block cache under AddressSanitizer";
  Allocator* a = CpuAllocator();
  const int64_t reserved = a->Stats().bytes_reserved;
  void* p = a->Allocate(kLargestCachedHostBlock + 1);
  a->Deallocate(p, kLargestCachedHostBlock + 1);
  EXPECT_EQ(a->Stats().bytes_reserved, reserved);
}

// Allocates `total` bytes in blocks of the largest cached class, then
// frees them all.
void AllocateAndFree(size_t total) {
  Allocator* a = CpuAllocator();
  std::vector<void*> blocks;
  for (size_t i = 0; i < total / kLargestCachedHostBlock; ++i) {
    blocks.push_back(a->Allocate(kLargestCachedHostBlock));
  }
  for (void* p : blocks) a->Deallocate(p, kLargestCachedHostBlock);
}

TEST(CpuAllocatorTest, AThreadKeepsAtMostItsShare) {
  if (!HostBlockCacheEnabled()) GTEST_SKIP() << "no block cache under AddressSanitizer";
  const int64_t before = CpuAllocator()->Stats().bytes_reserved;
  AllocateAndFree(4 * kHostCacheBytesPerThread);
  const int64_t after = CpuAllocator()->Stats().bytes_reserved;
  EXPECT_GT(after, before);
  EXPECT_LE(after - before, static_cast<int64_t>(kHostCacheBytesPerThread));
  // A steady loop is served from the lists: nothing more is kept.
  AllocateAndFree(4 * kHostCacheBytesPerThread);
  EXPECT_EQ(CpuAllocator()->Stats().bytes_reserved, after);
}

TEST(CpuAllocatorTest, AllThreadsTogetherKeepAtMostTheTotalBound) {
  if (!HostBlockCacheEnabled()) GTEST_SKIP() << "no block cache under AddressSanitizer";
  // Enough threads, each filling its own lists, to pass the total twice.
  const int threads = 2 * kHostCacheBytes / kHostCacheBytesPerThread;
  const int64_t before = CpuAllocator()->Stats().bytes_reserved;
  absl::Barrier* filled = new absl::Barrier(threads + 1);
  absl::Barrier* checked = new absl::Barrier(threads + 1);
  std::vector<std::thread> workers;
  for (int i = 0; i < threads; ++i) {
    workers.emplace_back([&] {
      AllocateAndFree(2 * kHostCacheBytesPerThread);
      if (filled->Block()) delete filled;
      if (checked->Block()) delete checked;
    });
  }
  if (filled->Block()) delete filled;
  const int64_t reserved = CpuAllocator()->Stats().bytes_reserved;
  EXPECT_LE(reserved, static_cast<int64_t>(kHostCacheBytes));
  EXPECT_GE(reserved - before, static_cast<int64_t>(kHostCacheBytes / 2));
  if (checked->Block()) delete checked;
  for (std::thread& t : workers) t.join();
  // Exiting threads give their blocks back to the system.
  EXPECT_EQ(CpuAllocator()->Stats().bytes_reserved, before);
}

TEST(CpuAllocatorTest, ABlockMayBeFreedOnAnotherThread) {
  Allocator* a = CpuAllocator();
  void* p = nullptr;
  std::thread([&] { p = a->Allocate(200); }).join();
  ASSERT_NE(p, nullptr);
  std::memset(p, 1, 200);
  a->Deallocate(p, 200);
  void* q = a->Allocate(200);
  if (HostBlockCacheEnabled()) {
    EXPECT_EQ(q, p);
  }
  a->Deallocate(q, 200);
}

}  // namespace
}  // namespace tfd
