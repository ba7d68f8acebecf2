// PinnedHostPool over fake pinned memory and fake events: a freed block
// that a stream read is reused only after that stream got past the read;
// rounding, lookups inside blocks, many blocks in flight, out-of-memory
// recovery, errors and statistics. Runs everywhere, GPU or not.
#include "core/device/cuda/pinned_host_pool.h"

#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <thread>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/device/cuda/fake_event_backend_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FakeEventBackend;

// Host memory from a bounded budget, standing in for cudaHostAlloc.
struct FakeMemory {
  ~FakeMemory() {
    for (auto& [p, n] : live) std::free(p);
  }
  absl::Mutex mu;
  size_t capacity = 1 << 30;
  size_t in_use = 0;
  int mallocs = 0;
  int frees = 0;
  bool broken = false;
  std::map<void*, size_t> live;
};

class FakeMemoryBackend : public DeviceMemoryBackend {
 public:
  explicit FakeMemoryBackend(std::shared_ptr<FakeMemory> m) : m_(std::move(m)) {}
  absl::StatusOr<void*> Malloc(size_t bytes) override {
    absl::MutexLock lock(&m_->mu);
    if (m_->broken) return absl::InternalError("fake pinned memory broke");
    if (m_->in_use + bytes > m_->capacity) return absl::ResourceExhaustedError("fake: full");
    void* p = std::aligned_alloc(512, bytes);
    m_->in_use += bytes;
    ++m_->mallocs;
    m_->live[p] = bytes;
    return p;
  }
  absl::Status Free(void* ptr, size_t bytes) override {
    absl::MutexLock lock(&m_->mu);
    auto it = m_->live.find(ptr);
    if (it == m_->live.end() || it->second != bytes) return absl::InternalError("fake: bad free");
    m_->live.erase(it);
    m_->in_use -= bytes;
    ++m_->frees;
    std::free(ptr);
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<FakeMemory> m_;
};

const int kTags[3] = {};
const StreamRef kStream{0, &kTags[0]};
const StreamRef kGpu1Stream{1, &kTags[1]};

class PinnedHostPoolTest : public ::testing::Test {
 protected:
  PinnedHostPoolTest() {
    auto events = std::make_unique<FakeEventBackend>();
    events_ = events.get();
    pool_ = std::make_unique<PinnedHostPool>(std::make_unique<FakeMemoryBackend>(memory_),
                                             std::move(events), "test_pinned");
  }

  // A copy that reads `block` queued on `s`, as CudaDevice does.
  void QueueRead(void* block, StreamRef s) {
    events_->Enqueue(s);
    ASSERT_TRUE(pool_->RecordStream(block, s).ok());
  }

  std::shared_ptr<FakeMemory> memory_ = std::make_shared<FakeMemory>();
  FakeEventBackend* events_;
  std::unique_ptr<PinnedHostPool> pool_;
};

TEST_F(PinnedHostPoolTest, RoundsToPowersOfTwo) {
  EXPECT_EQ(PinnedHostPool::RoundSize(0), 512u);
  EXPECT_EQ(PinnedHostPool::RoundSize(4), 512u);
  EXPECT_EQ(PinnedHostPool::RoundSize(512), 512u);
  EXPECT_EQ(PinnedHostPool::RoundSize(513), 1024u);
  EXPECT_EQ(PinnedHostPool::RoundSize(800 * 1024), 1024u * 1024);
}

TEST_F(PinnedHostPoolTest, BlockWithoutStreamsIsReusedAtOnce) {
  auto a = pool_->Allocate(100);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(pool_->Free(*a).ok());
  auto b = pool_->Allocate(300);  // same rounded size
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*a, *b);
  EXPECT_EQ(pool_->Stats().num_reuses, 1);
  EXPECT_EQ(memory_->mallocs, 1);
}

TEST_F(PinnedHostPoolTest, BlockIsNotReusedWhileAStreamStillReadsIt) {
  auto a = pool_->Allocate(1000);
  ASSERT_TRUE(a.ok());
  QueueRead(*a, kStream);
  ASSERT_TRUE(pool_->Free(*a).ok());
  EXPECT_EQ(pool_->Stats().waiting_blocks, 1);
  auto b = pool_->Allocate(1000);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(*a, *b) << "reused a block whose copy had not run";
  ASSERT_TRUE(pool_->Free(*b).ok());
  events_->CompleteAll(kStream);
  // Now both come back: b at once (no stream), a after its copy finished.
  std::set<void*> got;
  for (int i = 0; i < 2; ++i) {
    auto c = pool_->Allocate(1000);
    ASSERT_TRUE(c.ok());
    got.insert(*c);
  }
  EXPECT_EQ(got, (std::set<void*>{*a, *b}));
  EXPECT_EQ(memory_->mallocs, 2);
  EXPECT_EQ(pool_->Stats().waiting_blocks, 0);
}

TEST_F(PinnedHostPoolTest, ReuseWaitsForEveryStreamThatUsedTheBlock) {
  auto a = pool_->Allocate(64);
  ASSERT_TRUE(a.ok());
  QueueRead(*a, kStream);
  QueueRead(static_cast<char*>(*a) + 10, kGpu1Stream);  // inside the block
  QueueRead(*a, kStream);  // recorded twice, waited for once
  ASSERT_TRUE(pool_->Free(*a).ok());
  events_->CompleteAll(kStream);
  auto b = pool_->Allocate(64);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(*a, *b);
  events_->CompleteAll(kGpu1Stream);
  auto c = pool_->Allocate(64);
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*a, *c);
}

TEST_F(PinnedHostPoolTest, ManyBlocksInFlight) {
  std::vector<void*> first;
  for (int i = 0; i < 16; ++i) {
    auto p = pool_->Allocate(4096);
    ASSERT_TRUE(p.ok());
    std::memset(*p, i, 4096);
    QueueRead(*p, kStream);
    ASSERT_TRUE(pool_->Free(*p).ok());
    first.push_back(*p);
  }
  EXPECT_EQ(pool_->Stats().waiting_blocks, 16);
  EXPECT_EQ(memory_->mallocs, 16);  // none could be reused yet
  events_->CompleteAll(kStream);
  std::set<void*> again;
  for (int i = 0; i < 16; ++i) {
    auto p = pool_->Allocate(4096);
    ASSERT_TRUE(p.ok());
    again.insert(*p);
  }
  EXPECT_EQ(again, std::set<void*>(first.begin(), first.end()));
  EXPECT_EQ(memory_->mallocs, 16);
  EXPECT_EQ(pool_->Stats().num_reuses, 16);
}

TEST_F(PinnedHostPoolTest, ContainsFindsRangesInsideLiveBlocks) {
  auto a = pool_->Allocate(1000);  // a 1024-byte block
  ASSERT_TRUE(a.ok());
  char* p = static_cast<char*>(*a);
  EXPECT_TRUE(pool_->Contains(p, 1000));
  EXPECT_TRUE(pool_->Contains(p + 24, 1000));
  EXPECT_FALSE(pool_->Contains(p + 25, 1000));
  EXPECT_FALSE(pool_->Contains(p - 1, 1));
  int on_stack = 0;
  EXPECT_FALSE(pool_->Contains(&on_stack, sizeof(on_stack)));
  ASSERT_TRUE(pool_->Free(*a).ok());
  EXPECT_FALSE(pool_->Contains(p, 1)) << "a free block is not the caller's";
}

TEST_F(PinnedHostPoolTest, BadPointersAreErrorsNotCrashes) {
  int x = 0;
  EXPECT_EQ(pool_->Free(&x).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(pool_->RecordStream(&x, kStream).code(), absl::StatusCode::kNotFound);
  auto a = pool_->Allocate(10);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(pool_->Free(static_cast<char*>(*a) + 8).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(pool_->Free(*a).ok());
  EXPECT_EQ(pool_->Free(*a).code(), absl::StatusCode::kInvalidArgument) << "double free";
  EXPECT_TRUE(pool_->Free(nullptr).ok());
}

TEST_F(PinnedHostPoolTest, OutOfMemoryWaitsForBlocksInUseThenRetries) {
  memory_->capacity = 2 * 4096;
  auto a = pool_->Allocate(4096);
  auto b = pool_->Allocate(2048);
  ASSERT_TRUE(a.ok() && b.ok());
  QueueRead(*a, kStream);
  ASSERT_TRUE(pool_->Free(*a).ok());
  ASSERT_TRUE(pool_->Free(*b).ok());
  // 8 KiB does not fit beside the cached blocks: the pool waits for the
  // read of `a`, gives both back and retries.
  auto c = pool_->Allocate(8192);
  ASSERT_TRUE(c.ok()) << c.status();
  EXPECT_EQ(events_->completed(kStream), 1);
  EXPECT_GE(events_->synchronizations(), 1);
  EXPECT_EQ(memory_->frees, 2);
  EXPECT_EQ(pool_->Stats().reserved_bytes, 8192);
}

TEST_F(PinnedHostPoolTest, OutOfMemorySaysWhat) {
  memory_->capacity = 1024;
  auto a = pool_->Allocate(4096);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_NE(a.status().message().find("test_pinned"), std::string::npos) << a.status();
  EXPECT_NE(a.status().message().find("4096"), std::string::npos) << a.status();
  EXPECT_EQ(pool_->Stats().num_ooms, 1);
}

TEST_F(PinnedHostPoolTest, BackendErrorsPassThrough) {
  memory_->broken = true;
  auto a = pool_->Allocate(10);
  EXPECT_EQ(a.status().code(), absl::StatusCode::kInternal);
}

TEST_F(PinnedHostPoolTest, RecordErrorMeansTheBlockIsNeverReused) {
  auto a = pool_->Allocate(10);
  ASSERT_TRUE(a.ok());
  QueueRead(*a, kStream);
  events_->set_fail_record(true);
  EXPECT_EQ(pool_->Free(*a).code(), absl::StatusCode::kInternal);
  events_->set_fail_record(false);
  events_->CompleteAll(kStream);
  auto b = pool_->Allocate(10);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(pool_->Stats().lost_blocks, 1);
}

TEST_F(PinnedHostPoolTest, QueryErrorIsReportedOnceAndTheBlockIsLost) {
  auto a = pool_->Allocate(10);
  ASSERT_TRUE(a.ok());
  QueueRead(*a, kStream);
  ASSERT_TRUE(pool_->Free(*a).ok());
  events_->set_fail_query(true);
  EXPECT_EQ(pool_->Allocate(10).status().code(), absl::StatusCode::kInternal);
  events_->set_fail_query(false);
  auto b = pool_->Allocate(10);
  ASSERT_TRUE(b.ok());
  EXPECT_NE(*a, *b);
  EXPECT_EQ(pool_->Stats().lost_blocks, 1);
}

TEST_F(PinnedHostPoolTest, StatsAndEmptyCache) {
  auto a = pool_->Allocate(100);
  auto b = pool_->Allocate(5000);
  ASSERT_TRUE(a.ok() && b.ok());
  PinnedHostPoolStats s = pool_->Stats();
  EXPECT_EQ(s.allocated_bytes, 512 + 8192);
  EXPECT_EQ(s.reserved_bytes, 512 + 8192);
  EXPECT_EQ(s.num_allocs, 2);
  QueueRead(*b, kStream);
  ASSERT_TRUE(pool_->Free(*a).ok());
  ASSERT_TRUE(pool_->Free(*b).ok());
  s = pool_->Stats();
  EXPECT_EQ(s.allocated_bytes, 0);
  EXPECT_EQ(s.num_frees, 2);
  EXPECT_EQ(s.waiting_blocks, 1);
  ASSERT_TRUE(pool_->EmptyCache().ok());
  EXPECT_EQ(pool_->Stats().reserved_bytes, 8192) << "the waiting block stays";
  events_->CompleteAll(kStream);
  ASSERT_TRUE(pool_->EmptyCache().ok());
  EXPECT_EQ(pool_->Stats().reserved_bytes, 0);
  EXPECT_EQ(memory_->in_use, 0u);
}

TEST_F(PinnedHostPoolTest, ThreadsShareThePool) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([this, t] {
      const StreamRef s{0, &kTags[t % 3]};
      for (int i = 0; i < 200; ++i) {
        auto p = pool_->Allocate(64 + 512 * (i % 4));
        ASSERT_TRUE(p.ok());
        std::memset(*p, t, 64);
        events_->Enqueue(s);
        ASSERT_TRUE(pool_->RecordStream(*p, s).ok());
        ASSERT_TRUE(pool_->Free(*p).ok());
        if (i % 8 == 0) events_->CompleteAll(s);
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(pool_->Stats().num_allocs, 800);
  EXPECT_EQ(pool_->Stats().allocated_bytes, 0);
}

}  // namespace
}  // namespace tfd
