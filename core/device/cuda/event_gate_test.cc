// EventGate over a fake device whose streams run when the test says so:
// an item comes back only after the work queued before its Hold finished,
// in order, on several streams and GPUs, with errors and statistics.
#include "core/device/cuda/event_gate.h"

#include <vector>

#include "core/device/cuda/fake_event_backend_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FakeEventBackend;

const int kTags[4] = {};
const StreamRef kCopy{0, &kTags[0]};
const StreamRef kCompute{0, &kTags[1]};
const StreamRef kOtherGpu{1, &kTags[2]};

int kItems[8];
void* Item(int i) { return &kItems[i]; }

std::vector<void*> Collected(EventGate& gate) {
  std::vector<void*> ready;
  EXPECT_TRUE(gate.Collect(&ready).ok());
  return ready;
}

TEST(EventGateTest, ItemComesBackOnlyAfterItsWorkFinished) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.Enqueue(kCopy);  // a copy reading item 0
  ASSERT_TRUE(gate.Hold(Item(0), {kCopy}).ok());
  EXPECT_TRUE(Collected(gate).empty());
  events.Enqueue(kCopy);  // later work does not delay it
  events.CompleteAll(kCopy);
  EXPECT_EQ(Collected(gate), std::vector<void*>{Item(0)});
  EXPECT_TRUE(Collected(gate).empty());  // handed back once
  EXPECT_EQ(gate.Stats().held, 0);
  EXPECT_EQ(gate.Stats().total_released, 1);
}

TEST(EventGateTest, WorkQueuedAfterTheHoldDoesNotCount) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.Enqueue(kCopy);
  ASSERT_TRUE(gate.Hold(Item(0), {kCopy}).ok());
  events.CompleteAll(kCopy);
  events.Enqueue(kCopy);  // not finished, but queued after the record
  EXPECT_EQ(Collected(gate), std::vector<void*>{Item(0)});
}

TEST(EventGateTest, NoStreamsMeansReadyAtOnce) {
  FakeEventBackend events;
  EventGate gate(&events);
  ASSERT_TRUE(gate.Hold(Item(0), {}).ok());
  EXPECT_EQ(Collected(gate), std::vector<void*>{Item(0)});
  EXPECT_EQ(gate.Stats().events_created, 0);
}

TEST(EventGateTest, EveryStreamMustFinish) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.Enqueue(kCopy);
  events.Enqueue(kCompute);
  events.Enqueue(kOtherGpu);
  ASSERT_TRUE(gate.Hold(Item(0), {kCopy, kCompute, kOtherGpu}).ok());
  events.CompleteAll(kCopy);
  events.CompleteAll(kCompute);
  EXPECT_TRUE(Collected(gate).empty());
  events.CompleteAll(kOtherGpu);
  EXPECT_EQ(Collected(gate), std::vector<void*>{Item(0)});
}

TEST(EventGateTest, ManyItemsInFlightComeBackInOrder) {
  FakeEventBackend events;
  EventGate gate(&events);
  for (int i = 0; i < 6; ++i) {
    events.Enqueue(kCopy);
    ASSERT_TRUE(gate.Hold(Item(i), {kCopy}).ok());
  }
  EXPECT_EQ(gate.Stats().held, 6);
  EXPECT_TRUE(Collected(gate).empty());
  events.CompleteAll(kCopy);
  std::vector<void*> want;
  for (int i = 0; i < 6; ++i) want.push_back(Item(i));
  EXPECT_EQ(Collected(gate), want);
  // Finished events are reused, not made anew.
  events.Enqueue(kCopy);
  ASSERT_TRUE(gate.Hold(Item(6), {kCopy}).ok());
  EXPECT_EQ(gate.Stats().events_created, 6);
  EXPECT_EQ(gate.Stats().events_recorded, 7);
}

TEST(EventGateTest, AnItemNotDoneHoldsBackLaterOnesUntilItIs) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.Enqueue(kCompute);
  ASSERT_TRUE(gate.Hold(Item(0), {kCompute}).ok());
  events.Enqueue(kCopy);
  ASSERT_TRUE(gate.Hold(Item(1), {kCopy}).ok());
  events.CompleteAll(kCopy);
  // Item 1 is done, but the look stops at item 0 (Note [Collect in order]).
  EXPECT_TRUE(Collected(gate).empty());
  events.CompleteAll(kCompute);
  EXPECT_EQ(Collected(gate), (std::vector<void*>{Item(0), Item(1)}));
}

TEST(EventGateTest, WaitAndCollectWaitsForEverything) {
  FakeEventBackend events;
  EventGate gate(&events);
  for (int i = 0; i < 3; ++i) {
    events.Enqueue(kCopy);
    ASSERT_TRUE(gate.Hold(Item(i), {kCopy}).ok());
  }
  std::vector<void*> ready;
  ASSERT_TRUE(gate.WaitAndCollect(&ready).ok());
  EXPECT_EQ(ready.size(), 3u);
  EXPECT_EQ(events.completed(kCopy), 3);
  EXPECT_GE(events.synchronizations(), 1);
}

TEST(EventGateTest, RecordErrorLosesTheItemAndSaysWhy) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.set_fail_record(true);
  absl::Status s = gate.Hold(Item(0), {kCopy});
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  events.set_fail_record(false);
  EXPECT_TRUE(Collected(gate).empty());
  EXPECT_EQ(gate.Stats().lost, 1);
  EXPECT_EQ(gate.Stats().held, 0);
  // The event whose record failed was destroyed, not reused.
  EXPECT_EQ(events.live_events(), 0);
}

TEST(EventGateTest, CreateErrorIsReturned) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.set_fail_create(true);
  EXPECT_FALSE(gate.Hold(Item(0), {kCopy}).ok());
  EXPECT_EQ(gate.Stats().lost, 1);
}

TEST(EventGateTest, QueryErrorDropsThatItemAndGoesOn) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.Enqueue(kCopy);
  ASSERT_TRUE(gate.Hold(Item(0), {kCopy}).ok());
  events.set_fail_query(true);
  std::vector<void*> ready;
  absl::Status s = gate.Collect(&ready);
  EXPECT_EQ(s.code(), absl::StatusCode::kInternal);
  EXPECT_TRUE(ready.empty());
  events.set_fail_query(false);
  events.CompleteAll(kCopy);
  EXPECT_TRUE(Collected(gate).empty());  // never handed back
  EXPECT_EQ(gate.Stats().lost, 1);
}

TEST(EventGateTest, SynchronizeErrorDropsTheItem) {
  FakeEventBackend events;
  EventGate gate(&events);
  events.Enqueue(kCopy);
  ASSERT_TRUE(gate.Hold(Item(0), {kCopy}).ok());
  events.set_fail_synchronize(true);
  std::vector<void*> ready;
  EXPECT_FALSE(gate.WaitAndCollect(&ready).ok());
  EXPECT_TRUE(ready.empty());
  EXPECT_EQ(gate.Stats().lost, 1);
}

TEST(EventGateTest, EventsAreMadePerDevice) {
  FakeEventBackend events;
  EventGate gate(&events);
  // An idle event of GPU 0 must not be recorded on GPU 1 (the fake refuses).
  ASSERT_TRUE(gate.Hold(Item(0), {kCopy}).ok());
  EXPECT_EQ(Collected(gate).size(), 1u);
  EXPECT_TRUE(gate.Hold(Item(1), {kOtherGpu}).ok());
  EXPECT_EQ(gate.Stats().events_created, 2);
}

TEST(EventGateTest, DestructionReleasesEveryEvent) {
  FakeEventBackend events;
  {
    EventGate gate(&events);
    events.Enqueue(kCopy);
    ASSERT_TRUE(gate.Hold(Item(0), {kCopy, kCompute}).ok());
    ASSERT_TRUE(gate.Hold(Item(1), {}).ok());
    EXPECT_EQ(Collected(gate).size(), 0u);
  }
  EXPECT_EQ(events.live_events(), 0);
}

}  // namespace
}  // namespace tfd
