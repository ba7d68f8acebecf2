// PeerAccess and PeerCopier on fakes: the copy waits for the source
// stream's pending work, runs on the destination stream, and the source
// stream's later work waits for the copy (Note [Ordering a copy between
// GPUs]).
#include "core/device/cuda/peer_copy.h"

#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/device/cuda/fake_event_backend_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

class FakePeerBackend : public PeerCopyBackend {
 public:
  struct Wait {
    StreamRef stream;
    bool event_done = false;  // Whether the awaited event was done already.
  };
  struct Copied {
    void* dst;
    StreamRef stream;
    const void* src;
    int src_device;
    size_t n;
  };

  explicit FakePeerBackend(test::FakeEventBackend* events) : events_(events) {}

  absl::StatusOr<bool> CanAccessPeer(int reader, int owner) override {
    ++can_access_calls;
    if (fail_can_access) return absl::InternalError("fake: can access failed");
    return connected.count({reader, owner}) > 0;
  }
  absl::Status EnablePeerAccess(int reader, int owner) override {
    ++enable_calls;
    if (fail_enable) return absl::InternalError("fake: too many peers");
    enabled.insert({reader, owner});
    return absl::OkStatus();
  }
  absl::Status StreamWaitEvent(StreamRef stream, EventHandle event) override {
    if (fail_wait) return absl::InternalError("fake: wait failed");
    absl::StatusOr<bool> done = events_->Query(event);
    if (!done.ok()) return done.status();
    waits.push_back({stream, *done});
    calls.push_back("wait on GPU " + std::to_string(stream.device));
    return absl::OkStatus();
  }
  absl::Status QueueCopy(void* dst, StreamRef stream, const void* src, int src_device,
                         size_t n) override {
    if (fail_copy) return absl::InternalError("fake: copy failed");
    events_->Enqueue(stream);
    copies.push_back({dst, stream, src, src_device, n});
    calls.push_back("copy on GPU " + std::to_string(stream.device));
    return absl::OkStatus();
  }

  std::set<std::pair<int, int>> connected;  // (reader, owner)
  std::set<std::pair<int, int>> enabled;
  bool fail_can_access = false;
  bool fail_enable = false;
  bool fail_copy = false;
  bool fail_wait = false;
  int can_access_calls = 0;
  int enable_calls = 0;
  std::vector<Wait> waits;
  std::vector<Copied> copies;
  std::vector<std::string> calls;  // Waits and copies, in order.

 private:
  test::FakeEventBackend* const events_;
};

int stream_tags[3];
const StreamRef kGpu0{0, &stream_tags[0]};
const StreamRef kGpu1{1, &stream_tags[1]};

TEST(PeerAccessTest, AsksOncePerPairAndEnablesOnFirstUse) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  backend.connected = {{1, 0}, {0, 1}};
  PeerAccess access(&backend);
  EXPECT_TRUE(access.Usable(1, 0));
  EXPECT_TRUE(access.Usable(1, 0));
  EXPECT_EQ(backend.can_access_calls, 1);
  EXPECT_EQ(backend.enable_calls, 1);
  EXPECT_EQ(backend.enabled, (std::set<std::pair<int, int>>{{1, 0}}));
  // The other direction is a pair of its own.
  EXPECT_TRUE(access.Usable(0, 1));
  EXPECT_EQ(backend.enable_calls, 2);
}

TEST(PeerAccessTest, TheSameGpuNeedsNoAccess) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  PeerAccess access(&backend);
  EXPECT_TRUE(access.Usable(3, 3));
  EXPECT_EQ(backend.can_access_calls, 0);
}

TEST(PeerAccessTest, UnconnectedOrFailingPairsStageAndAreNotAskedAgain) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  backend.connected = {{2, 0}};
  PeerAccess access(&backend);
  EXPECT_FALSE(access.Usable(1, 0));  // Not connected: never enabled.
  EXPECT_EQ(backend.enable_calls, 0);
  backend.fail_enable = true;
  EXPECT_FALSE(access.Usable(2, 0));  // Connected, but enabling failed.
  EXPECT_FALSE(access.Usable(2, 0));
  EXPECT_FALSE(access.Usable(1, 0));
  EXPECT_EQ(backend.can_access_calls, 2);
  EXPECT_EQ(backend.enable_calls, 1);
  backend.fail_can_access = true;
  EXPECT_FALSE(access.Usable(0, 2));
}

TEST(PeerCopierTest, TheCopyWaitsForTheSourceAndTheSourceForTheCopy) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  PeerCopier copier(&events, &backend);
  // Two kernels on GPU 0 still writing the source; one kernel on GPU 1
  // still reading the destination's previous contents.
  events.Enqueue(kGpu0);
  events.Enqueue(kGpu0);
  events.Enqueue(kGpu1);
  char src[8], dst[8];
  ASSERT_TRUE(copier.Copy(src, kGpu0, dst, kGpu1, sizeof(src)).ok());

  EXPECT_EQ(backend.calls, (std::vector<std::string>{"wait on GPU 1", "copy on GPU 1",
                                                      "wait on GPU 0"}));
  // GPU 1 waited for an event covering GPU 0's pending writes...
  ASSERT_EQ(backend.waits.size(), 2u);
  EXPECT_EQ(backend.waits[0].stream, kGpu1);
  EXPECT_FALSE(backend.waits[0].event_done);
  // ...and GPU 0 waits for one covering the copy, so its later kernels
  // (in-place writes, new owners of the source's memory) follow the copy.
  EXPECT_EQ(backend.waits[1].stream, kGpu0);
  EXPECT_FALSE(backend.waits[1].event_done);
  ASSERT_EQ(backend.copies.size(), 1u);
  EXPECT_EQ(backend.copies[0].stream, kGpu1);
  EXPECT_EQ(backend.copies[0].dst, dst);
  EXPECT_EQ(backend.copies[0].src, src);
  EXPECT_EQ(backend.copies[0].src_device, 0);
  EXPECT_EQ(backend.copies[0].n, sizeof(src));
  // The host waited for nothing, and every event is gone (CUDA keeps a
  // destroyed event alive for the waits queued on it).
  EXPECT_EQ(events.synchronizations(), 0);
  EXPECT_EQ(events.live_events(), 0);
}

TEST(PeerCopierTest, TheOtherDirectionRunsOnTheOtherStream) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  PeerCopier copier(&events, &backend);
  char a[4], b[4];
  ASSERT_TRUE(copier.Copy(b, kGpu1, a, kGpu0, 4).ok());
  ASSERT_EQ(backend.copies.size(), 1u);
  EXPECT_EQ(backend.copies[0].stream, kGpu0);
  EXPECT_EQ(backend.copies[0].src_device, 1);
  EXPECT_EQ(backend.calls, (std::vector<std::string>{"wait on GPU 0", "copy on GPU 0",
                                                      "wait on GPU 1"}));
}

TEST(PeerCopierTest, OneStreamNeedsNoEvents) {
  // Two logical devices of GPU 0 share its stream.
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  PeerCopier copier(&events, &backend);
  events.Enqueue(kGpu0);
  char src[4], dst[4];
  ASSERT_TRUE(copier.Copy(src, kGpu0, dst, kGpu0, 4).ok());
  EXPECT_TRUE(backend.waits.empty());
  ASSERT_EQ(backend.copies.size(), 1u);
  EXPECT_EQ(backend.copies[0].stream, kGpu0);
  EXPECT_EQ(backend.copies[0].src_device, 0);
}

TEST(PeerCopierTest, EmptyCopiesDoNothing) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  PeerCopier copier(&events, &backend);
  char src[1], dst[1];
  ASSERT_TRUE(copier.Copy(src, kGpu0, dst, kGpu1, 0).ok());
  EXPECT_TRUE(backend.calls.empty());
}

TEST(PeerCopierTest, FailuresBeforeTheCopyQueueNoCopyAndLeakNoEvent) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  PeerCopier copier(&events, &backend);
  char src[4], dst[4];
  events.set_fail_record(true);
  absl::Status s = copier.Copy(src, kGpu0, dst, kGpu1, 4);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_TRUE(backend.copies.empty());
  EXPECT_EQ(events.live_events(), 0);
  events.set_fail_record(false);
  events.set_fail_create(true);
  EXPECT_FALSE(copier.Copy(src, kGpu0, dst, kGpu1, 4).ok());
  EXPECT_TRUE(backend.copies.empty());
  events.set_fail_create(false);
  backend.fail_wait = true;
  EXPECT_FALSE(copier.Copy(src, kGpu0, dst, kGpu1, 4).ok());
  EXPECT_TRUE(backend.copies.empty());
  EXPECT_EQ(events.live_events(), 0);
}

TEST(PeerCopierTest, AFailedCopyIsReported) {
  test::FakeEventBackend events;
  FakePeerBackend backend(&events);
  PeerCopier copier(&events, &backend);
  backend.fail_copy = true;
  char src[4], dst[4];
  absl::Status s = copier.Copy(src, kGpu0, dst, kGpu1, 4);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal) << s;
  EXPECT_NE(s.message().find("copy failed"), std::string::npos) << s;
  EXPECT_EQ(events.live_events(), 0);
}

}  // namespace
}  // namespace tfd
