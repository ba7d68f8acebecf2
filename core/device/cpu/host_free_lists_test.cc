#include "core/device/cpu/host_free_lists.h"

#include <cstdlib>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(HostSizeClassTest, SmallestClassThatHoldsTheRequest) {
  EXPECT_EQ(HostSizeClass(0), 0);
  EXPECT_EQ(HostSizeClass(1), 0);
  EXPECT_EQ(HostSizeClass(64), 0);
  EXPECT_EQ(HostSizeClass(65), 1);
  EXPECT_EQ(HostSizeClass(128), 1);
  EXPECT_EQ(HostSizeClass(129), 2);
  EXPECT_EQ(HostSizeClass(4096), 6);
  EXPECT_EQ(HostSizeClass(kLargestCachedHostBlock), kNumHostSizeClasses - 1);
  EXPECT_EQ(HostSizeClass(kLargestCachedHostBlock + 1), -1);
  for (size_t bytes = 0; bytes <= kLargestCachedHostBlock; bytes += 7) {
    const int c = HostSizeClass(bytes);
    ASSERT_GE(c, 0);
    EXPECT_GE(HostSizeClassBytes(c), bytes) << bytes;
    if (c > 0) EXPECT_LT(HostSizeClassBytes(c - 1), bytes) << bytes;
  }
}

// Blocks for the lists to hold; freed by the test.
std::vector<void*> Blocks(int n, int size_class) {
  std::vector<void*> blocks;
  for (int i = 0; i < n; ++i) {
    blocks.push_back(std::aligned_alloc(kSmallestHostBlock, HostSizeClassBytes(size_class)));
  }
  return blocks;
}

TEST(HostFreeListsTest, PopReturnsTheLastPushedBlockOfItsClass) {
  HostFreeLists lists(1 << 20);
  EXPECT_EQ(lists.Pop(0), nullptr);
  std::vector<void*> small = Blocks(2, 0);
  std::vector<void*> big = Blocks(1, 3);
  ASSERT_TRUE(lists.Push(0, small[0]));
  ASSERT_TRUE(lists.Push(0, small[1]));
  ASSERT_TRUE(lists.Push(3, big[0]));
  EXPECT_EQ(lists.bytes(), 2 * 64 + 512u);
  EXPECT_EQ(lists.Pop(1), nullptr);
  EXPECT_EQ(lists.Pop(3), big[0]);
  EXPECT_EQ(lists.Pop(0), small[1]);
  EXPECT_EQ(lists.Pop(0), small[0]);
  EXPECT_EQ(lists.Pop(0), nullptr);
  EXPECT_EQ(lists.bytes(), 0u);
  for (void* p : small) std::free(p);
  std::free(big[0]);
}

TEST(HostFreeListsTest, CapacityRefusesTheBlockThatWouldPassIt) {
  HostFreeLists lists(4 * 128);
  std::vector<void*> blocks = Blocks(6, 1);
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(lists.Push(1, blocks[i])) << i;
  EXPECT_FALSE(lists.Push(1, blocks[4]));
  EXPECT_EQ(lists.bytes(), 4 * 128u);
  // Room comes back as blocks leave.
  EXPECT_EQ(lists.Pop(1), blocks[3]);
  EXPECT_TRUE(lists.Push(1, blocks[5]));
  EXPECT_FALSE(lists.Push(1, blocks[4]));
  std::free(blocks[3]);
  std::free(blocks[4]);
  int drained = 0;
  lists.Drain([&](void* block, int size_class) {
    EXPECT_EQ(size_class, 1);
    std::free(block);
    ++drained;
  });
  EXPECT_EQ(drained, 4);
  EXPECT_EQ(lists.bytes(), 0u);
}

}  // namespace
}  // namespace tfd
