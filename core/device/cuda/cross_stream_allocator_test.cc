// CrossStreamAllocator over a fake device: a buffer the reader stream used
// goes back to the writer's cache only after the reader got past that use;
// running out of room waits for those buffers; event errors leak a buffer
// rather than let two streams share it. Runs everywhere, GPU or not.
#include "core/device/cuda/cross_stream_allocator.h"

#include <cstdlib>
#include <map>
#include <memory>

#include "core/device/cuda/fake_event_backend_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FakeEventBackend;

// Device memory from the heap, at most `capacity` bytes.
class HeapBackend : public DeviceMemoryBackend {
 public:
  explicit HeapBackend(size_t capacity) : capacity_(capacity) {}
  ~HeapBackend() override {
    for (auto& [p, n] : live_) std::free(p);
  }
  absl::StatusOr<void*> Malloc(size_t bytes) override {
    if (in_use_ + bytes > capacity_) return absl::ResourceExhaustedError("fake device is full");
    void* p = std::aligned_alloc(512, bytes);
    in_use_ += bytes;
    live_[p] = bytes;
    return p;
  }
  absl::Status Free(void* ptr, size_t bytes) override {
    in_use_ -= bytes;
    live_.erase(ptr);
    std::free(ptr);
    return absl::OkStatus();
  }

 private:
  size_t capacity_;
  size_t in_use_ = 0;
  std::map<void*, size_t> live_;
};

constexpr size_t kMiB = 1 << 20;
const int kTags[2] = {};
const StreamRef kCopy{0, &kTags[0]};
const StreamRef kCompute{0, &kTags[1]};

struct Fixture {
  explicit Fixture(size_t capacity = 64 * kMiB)
      : cache(std::make_unique<HeapBackend>(capacity), "GPU:0"),
        alloc(&cache, &events, kCopy, kCompute) {}
  FakeEventBackend events;
  CachingAllocator cache;
  CrossStreamAllocator alloc;
};

TEST(CrossStreamAllocatorTest, BlocksBelongToTheWriterStream) {
  Fixture f;
  void* p = f.alloc.Allocate(1000);
  ASSERT_NE(p, nullptr);
  // The compute stream's own allocations never get the copy stream's block.
  f.alloc.Deallocate(p, 1000);
  auto q = f.cache.Allocate(1000, kCompute.stream);
  ASSERT_TRUE(q.ok());
  EXPECT_NE(*q, p);
  f.cache.Free(*q);
  EXPECT_EQ(f.alloc.Name(), "GPU:0 (copy stream)");
}

TEST(CrossStreamAllocatorTest, BufferIsReusedOnlyAfterTheReaderIsDone) {
  Fixture f;
  void* p = f.alloc.Allocate(4096);
  ASSERT_NE(p, nullptr);
  f.events.Enqueue(kCompute);  // a kernel reading p
  f.alloc.Deallocate(p, 4096);
  EXPECT_EQ(f.alloc.waiting_blocks(), 1);
  void* q = f.alloc.Allocate(4096);
  ASSERT_NE(q, nullptr);
  EXPECT_NE(q, p) << "the copy stream would overwrite what a kernel still reads";
  f.events.CompleteAll(kCompute);
  void* r = f.alloc.Allocate(4096);
  EXPECT_EQ(r, p);
  EXPECT_EQ(f.alloc.waiting_blocks(), 0);
  f.alloc.Deallocate(q, 4096);
  f.alloc.Deallocate(r, 4096);
}

TEST(CrossStreamAllocatorTest, UnreadBufferComesBackAtOnce) {
  Fixture f;
  void* p = f.alloc.Allocate(4096);
  f.alloc.Deallocate(p, 4096);  // nothing queued on the reader
  EXPECT_EQ(f.alloc.Allocate(4096), p);
}

TEST(CrossStreamAllocatorTest, OutOfRoomWaitsForReadersThenRetries) {
  Fixture f(/*capacity=*/2 * kMiB);  // one small segment
  void* a = f.alloc.Allocate(kMiB);
  void* b = f.alloc.Allocate(kMiB);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  f.events.Enqueue(kCompute);
  f.alloc.Deallocate(a, kMiB);
  void* c = f.alloc.Allocate(kMiB);
  EXPECT_EQ(c, a);
  EXPECT_GE(f.events.synchronizations(), 1);
  EXPECT_EQ(f.events.completed(kCompute), 1);
  // Still nothing to wait for and no room: a plain failure.
  EXPECT_EQ(f.alloc.Allocate(kMiB), nullptr);
  f.alloc.Deallocate(b, kMiB);
  f.alloc.Deallocate(c, kMiB);
}

TEST(CrossStreamAllocatorTest, EventErrorLeaksTheBufferInsteadOfSharingIt) {
  Fixture f;
  void* p = f.alloc.Allocate(4096);
  f.events.Enqueue(kCompute);
  f.events.set_fail_record(true);
  f.alloc.Deallocate(p, 4096);
  f.events.set_fail_record(false);
  f.events.CompleteAll(kCompute);
  void* q = f.alloc.Allocate(4096);
  EXPECT_NE(q, p);
  EXPECT_EQ(f.alloc.waiting_blocks(), 0);
  f.alloc.Deallocate(q, 4096);
}

TEST(CrossStreamAllocatorTest, StatsCountTheCache) {
  Fixture f;
  void* p = f.alloc.Allocate(1000);
  AllocatorStats s = f.alloc.Stats();
  EXPECT_EQ(s.num_allocs, 1);
  EXPECT_EQ(s.bytes_in_use, 1024);
  f.alloc.Deallocate(p, 1000);
  // In use until the gate hands it back at the next Allocate.
  EXPECT_EQ(f.alloc.Stats().bytes_in_use, 1024);
  void* q = f.alloc.Allocate(1000);
  EXPECT_EQ(f.alloc.Stats().bytes_in_use, 1024);
  f.alloc.Deallocate(q, 1000);
}

}  // namespace
}  // namespace tfd
