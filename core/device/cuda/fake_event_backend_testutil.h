// FakeEventBackend: the event calls of a pretend GPU whose streams run only
// when the test says so. Work is a counter per stream: Enqueue() queues one
// unit, Complete() finishes units; an event recorded on a stream is done
// once the stream has finished everything queued before the record. Tests
// of EventGate, PinnedHostPool and CrossStreamAllocator use it to check
// that memory comes back only after the work that used it has finished.
// Test-only; thread-safe.
//
//   FakeEventBackend events;
//   const StreamRef s{0, &tag};
//   events.Enqueue(s);            // a copy reading the block
//   gate.Hold(block, {s});        // not reusable yet
//   events.CompleteAll(s);        // the copy has run
#ifndef TFD_CORE_DEVICE_CUDA_FAKE_EVENT_BACKEND_TESTUTIL_H_
#define TFD_CORE_DEVICE_CUDA_FAKE_EVENT_BACKEND_TESTUTIL_H_

#include <cstdint>
#include <map>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "core/device/cuda/event_gate.h"

namespace tfd {
namespace test {

class FakeEventBackend : public EventBackend {
 public:
  ~FakeEventBackend() override;

  // Queues one unit of work on `s`; returns how many are queued there now.
  int64_t Enqueue(StreamRef s);
  // Finishes every unit queued on `s` so far.
  void CompleteAll(StreamRef s);
  // Units queued / finished on `s`.
  int64_t queued(StreamRef s) const;
  int64_t completed(StreamRef s) const;

  // Events alive now (created and not destroyed), and host waits so far.
  int live_events() const;
  int synchronizations() const;

  // Make the next calls of a kind fail with INTERNAL until reset.
  void set_fail_create(bool f);
  void set_fail_record(bool f);
  void set_fail_query(bool f);
  void set_fail_synchronize(bool f);

  absl::StatusOr<EventHandle> Create(int device) override;
  absl::Status Record(EventHandle event, StreamRef stream) override;
  absl::StatusOr<bool> Query(EventHandle event) override;
  absl::Status Synchronize(EventHandle event) override;
  void Destroy(EventHandle event) override;

 private:
  struct Event {
    int device = 0;
    bool recorded = false;
    std::pair<int, StreamKey> stream;
    int64_t target = 0;  // Done once the stream completed this many units.
  };
  struct Progress {
    int64_t queued = 0;
    int64_t completed = 0;
  };

  mutable absl::Mutex mu_;
  std::map<std::pair<int, StreamKey>, Progress> streams_ ABSL_GUARDED_BY(mu_);
  std::map<int64_t, Event> events_ ABSL_GUARDED_BY(mu_);
  int64_t next_id_ ABSL_GUARDED_BY(mu_) = 1;
  int synchronizations_ ABSL_GUARDED_BY(mu_) = 0;
  bool fail_create_ ABSL_GUARDED_BY(mu_) = false;
  bool fail_record_ ABSL_GUARDED_BY(mu_) = false;
  bool fail_query_ ABSL_GUARDED_BY(mu_) = false;
  bool fail_synchronize_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_FAKE_EVENT_BACKEND_TESTUTIL_H_
