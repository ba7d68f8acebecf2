// StagedCopier on fakes: a copy between GPUs that cannot reach each other
// is queued on both streams through a pinned block, ordered by an event,
// with no host wait; the block is reused only after both halves ran
// (Note [Staging a copy between GPUs]).
#include "core/device/cuda/staged_copy.h"

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/device/cuda/fake_event_backend_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

int stream_tags[2];
const StreamRef kGpu0{0, &stream_tags[0]};
const StreamRef kGpu1{1, &stream_tags[1]};

// Host memory standing in for pinned memory, with a capacity.
class FakePinnedMemory : public DeviceMemoryBackend {
 public:
  explicit FakePinnedMemory(size_t capacity) : capacity_(capacity) {}
  absl::StatusOr<void*> Malloc(size_t bytes) override {
    if (in_use_ + bytes > capacity_) return absl::ResourceExhaustedError("fake: no pinned memory");
    in_use_ += bytes;
    return std::aligned_alloc(512, bytes);
  }
  absl::Status Free(void* ptr, size_t bytes) override {
    in_use_ -= bytes;
    std::free(ptr);
    return absl::OkStatus();
  }

 private:
  const size_t capacity_;
  size_t in_use_ = 0;
};

// Runs each copy as it is queued (the bytes arrive), counting it as a unit
// of work on its stream in both event backends (the copier's and the
// pool's stand for the same streams), and records the calls in order.
class FakeStagedBackend : public StagedCopyBackend {
 public:
  FakeStagedBackend(test::FakeEventBackend* events, test::FakeEventBackend* pool_events)
      : events_(events), pool_events_(pool_events) {}

  absl::Status QueueDeviceToHost(void* dst, const void* src, size_t n, StreamRef s) override {
    if (fail_to_host) return absl::InternalError("fake: device->host failed");
    std::memcpy(dst, src, n);
    events_->Enqueue(s);
    pool_events_->Enqueue(s);
    calls.push_back("to host on GPU " + std::to_string(s.device));
    return absl::OkStatus();
  }
  absl::Status QueueHostToDevice(void* dst, const void* src, size_t n, StreamRef s) override {
    if (fail_to_device) return absl::InternalError("fake: host->device failed");
    std::memcpy(dst, src, n);
    events_->Enqueue(s);
    pool_events_->Enqueue(s);
    calls.push_back("to device on GPU " + std::to_string(s.device));
    return absl::OkStatus();
  }
  absl::Status StreamWaitEvent(StreamRef s, EventHandle event) override {
    absl::StatusOr<bool> done = events_->Query(event);
    if (!done.ok()) return done.status();
    // The event must stand for work not yet run: the copy to the host.
    calls.push_back(std::string("GPU ") + std::to_string(s.device) + " waits" +
                    (*done ? " (done)" : ""));
    return absl::OkStatus();
  }
  absl::Status SynchronizeStream(StreamRef s) override {
    events_->CompleteAll(s);
    pool_events_->CompleteAll(s);
    calls.push_back("host waits for GPU " + std::to_string(s.device));
    return absl::OkStatus();
  }

  bool fail_to_host = false;
  bool fail_to_device = false;
  std::vector<std::string> calls;

 private:
  test::FakeEventBackend* const events_;
  test::FakeEventBackend* const pool_events_;
};

class StagedCopyTest : public ::testing::Test {
 protected:
  explicit StagedCopyTest(size_t pinned_capacity = size_t{1} << 20) {
    auto pool_events = std::make_unique<test::FakeEventBackend>();
    pool_events_ = pool_events.get();
    pool_ = std::make_unique<PinnedHostPool>(std::make_unique<FakePinnedMemory>(pinned_capacity),
                                             std::move(pool_events), "test_pinned");
  }

  // The pool's events and the copier's stand for the same streams: work is
  // counted on both.
  void CompleteAll(StreamRef s) {
    events_.CompleteAll(s);
    pool_events_->CompleteAll(s);
  }

  test::FakeEventBackend events_;
  test::FakeEventBackend* pool_events_;
  std::unique_ptr<PinnedHostPool> pool_;
};

TEST_F(StagedCopyTest, QueuesBothHalvesOrderedByAnEventWithoutWaiting) {
  FakeStagedBackend backend(&events_, pool_events_);
  StagedCopier copier(&events_, &backend, pool_.get());
  std::vector<float> src = {1, 2, 3, 4}, dst(4, 0.0f);
  ASSERT_TRUE(copier.Copy(src.data(), kGpu0, dst.data(), kGpu1, 16).ok());
  EXPECT_EQ(dst, src);
  EXPECT_EQ(backend.calls, (std::vector<std::string>{"to host on GPU 0", "GPU 1 waits",
                                                     "to device on GPU 1"}));
  EXPECT_EQ(events_.synchronizations(), 0);
  EXPECT_EQ(pool_events_->synchronizations(), 0);
  EXPECT_EQ(events_.live_events(), 0);
  EXPECT_EQ(pool_->Stats().num_frees, 1);
}

TEST_F(StagedCopyTest, TheBlockIsReusedOnlyAfterBothHalvesRan) {
  FakeStagedBackend backend(&events_, pool_events_);
  StagedCopier copier(&events_, &backend, pool_.get());
  std::vector<char> src(1000, 'x'), dst(1000);
  auto copy = [&] { return copier.Copy(src.data(), kGpu0, dst.data(), kGpu1, src.size()); };
  ASSERT_TRUE(copy().ok());
  EXPECT_EQ(pool_->Stats().waiting_blocks, 1);

  // The copy to the host ran, the one to the device not yet: still held.
  CompleteAll(kGpu0);
  ASSERT_TRUE(copy().ok());
  EXPECT_EQ(pool_->Stats().num_reuses, 0);
  EXPECT_EQ(pool_->Stats().num_device_allocs, 2);

  // Both ran (for both copies so far): a third copy reuses a block.
  CompleteAll(kGpu1);
  CompleteAll(kGpu0);
  ASSERT_TRUE(copy().ok());
  EXPECT_EQ(pool_->Stats().num_reuses, 1);
  EXPECT_EQ(pool_->Stats().num_device_allocs, 2);
  EXPECT_EQ(events_.synchronizations(), 0);
}

TEST_F(StagedCopyTest, NothingToCopyQueuesNothing) {
  FakeStagedBackend backend(&events_, pool_events_);
  StagedCopier copier(&events_, &backend, pool_.get());
  EXPECT_TRUE(copier.Copy(nullptr, kGpu0, nullptr, kGpu1, 0).ok());
  EXPECT_TRUE(backend.calls.empty());
  EXPECT_EQ(pool_->Stats().num_allocs, 0);
}

TEST_F(StagedCopyTest, AFailedHalfWaitsForBothStreamsBeforeTheBlockIsFreed) {
  FakeStagedBackend backend(&events_, pool_events_);
  backend.fail_to_device = true;
  StagedCopier copier(&events_, &backend, pool_.get());
  std::vector<char> src(64, 'y'), dst(64);
  const absl::Status s = copier.Copy(src.data(), kGpu0, dst.data(), kGpu1, 64);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_NE(s.message().find("host->device failed"), absl::string_view::npos) << s;
  EXPECT_EQ(backend.calls,
            (std::vector<std::string>{"to host on GPU 0", "GPU 1 waits",
                                      "host waits for GPU 0", "host waits for GPU 1"}));
  EXPECT_EQ(pool_->Stats().num_frees, 1);
}

class StagedCopyWithoutPinnedMemoryTest : public StagedCopyTest {
 protected:
  StagedCopyWithoutPinnedMemoryTest() : StagedCopyTest(/*pinned_capacity=*/0) {}
};

TEST_F(StagedCopyWithoutPinnedMemoryTest, CopiesThroughPageableMemoryAndWaits) {
  FakeStagedBackend backend(&events_, pool_events_);
  StagedCopier copier(&events_, &backend, pool_.get());
  std::vector<int> src = {7, 8, 9}, dst(3, 0);
  ASSERT_TRUE(copier.Copy(src.data(), kGpu1, dst.data(), kGpu0, 12).ok());
  EXPECT_EQ(dst, src);
  EXPECT_EQ(backend.calls,
            (std::vector<std::string>{"to host on GPU 1", "host waits for GPU 1",
                                      "to device on GPU 0", "host waits for GPU 0"}));
  EXPECT_EQ(pool_->Stats().num_ooms, 1);
}

TEST_F(StagedCopyWithoutPinnedMemoryTest, AFailedCopyIsReported) {
  FakeStagedBackend backend(&events_, pool_events_);
  backend.fail_to_host = true;
  StagedCopier copier(&events_, &backend, pool_.get());
  char src = 'a', dst = 0;
  EXPECT_EQ(copier.Copy(&src, kGpu1, &dst, kGpu0, 1).code(), absl::StatusCode::kInternal);
  EXPECT_EQ(dst, 0);
}

}  // namespace
}  // namespace tfd
