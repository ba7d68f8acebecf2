// EventGate: holds memory that streams may still be using until events
// recorded after that use have completed, then hands it back for reuse.
//
// Host-to-device copies return before the device has read their source,
// and a copy stream writes buffers that the compute stream reads later, so
// freeing such memory must not make it reusable at once (PyTorch's
// CachingHostAllocator faces the same problem and solves it the same way):
// when the memory is let go, an event is recorded on every stream that used
// it; Collect() hands it back once all of those events have completed.
// Nothing here blocks the host, except WaitAndCollect(), which callers use
// as a last resort when memory ran out.
//
// Items are collected in the order they were held, and a look stops at the
// first item whose events are not all done (Note [Collect in order] in the
// .cc), so one look costs one event query when nothing is ready.
//
// The device is reached only through an EventBackend, so all of this is
// tested with a fake backend on machines without a GPU (event_gate_test.cc);
// cuda_event_backend.h supplies the CUDA one.
//
// Thread safety: none; the owner (PinnedHostPool, CrossStreamAllocator)
// calls it under its own lock.
//
//   EventGate gate(&events);
//   TFD_RETURN_IF_ERROR(gate.Hold(block, {{/*device=*/0, stream}}));
//   ...
//   std::vector<void*> reusable;
//   TFD_RETURN_IF_ERROR(gate.Collect(&reusable));
//
// This file uses no CUDA header: plain builds compile and test it.
#ifndef TFD_CORE_DEVICE_CUDA_EVENT_GATE_H_
#define TFD_CORE_DEVICE_CUDA_EVENT_GATE_H_

#include <cstdint>
#include <deque>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/device/cuda/caching_allocator.h"

namespace tfd {

// A stream and the GPU it belongs to (events are made per GPU and can only
// be recorded on that GPU's streams).
struct StreamRef {
  int device = 0;
  StreamKey stream = nullptr;

  bool operator==(const StreamRef& other) const {
    return device == other.device && stream == other.stream;
  }
};

// Opaque event handle of an EventBackend (a cudaEvent_t for CUDA).
using EventHandle = void*;

// A device's event calls.
class EventBackend {
 public:
  virtual ~EventBackend() = default;
  // A new event on GPU `device`, without timing.
  virtual absl::StatusOr<EventHandle> Create(int device) = 0;
  // Captures the work queued on `stream` so far (the event's device).
  virtual absl::Status Record(EventHandle event, StreamRef stream) = 0;
  // True when the captured work is done; never blocks.
  virtual absl::StatusOr<bool> Query(EventHandle event) = 0;
  // Blocks the host until the captured work is done.
  virtual absl::Status Synchronize(EventHandle event) = 0;
  virtual void Destroy(EventHandle event) = 0;
};

struct EventGateStats {
  int64_t held = 0;            // Items waiting for their events now.
  int64_t total_held = 0;      // Hold calls that succeeded.
  int64_t total_released = 0;  // Items handed back by Collect.
  int64_t events_created = 0;  // Backend Create calls (events are reused).
  int64_t events_recorded = 0;
  int64_t lost = 0;            // Items never handed back after an event error.
};

class EventGate {
 public:
  // Does not own `events`, which must outlive the gate.
  explicit EventGate(EventBackend* events);
  // Destroys the idle events. Items still held are dropped, not handed
  // back: whatever owns their memory leaks it rather than free it under a
  // stream that may still use it.
  ~EventGate();
  EventGate(const EventGate&) = delete;
  EventGate& operator=(const EventGate&) = delete;

  // Records an event on each of `streams` now (after the work that used
  // `item` was queued there) and holds `item` until all of them complete.
  // With no streams the item is ready at the next Collect. On an event
  // error `item` is never handed back (its memory may still be in use) and
  // the error is returned.
  absl::Status Hold(void* item, absl::Span<const StreamRef> streams);

  // Appends to `*ready` the held items, oldest first, whose events have
  // completed, up to the first one that is not done. A failed query drops
  // that item for good (counted in `lost`) and is returned after the look
  // went on past it.
  absl::Status Collect(std::vector<void*>* ready);

  // Blocks until every held item's events have completed and appends all
  // of them to `*ready`. The first error is returned; items whose wait
  // failed are dropped for good.
  absl::Status WaitAndCollect(std::vector<void*>* ready);

  EventGateStats Stats() const { return stats_; }

 private:
  struct Held {
    void* item = nullptr;
    std::vector<std::pair<int, EventHandle>> events;  // (device, event)
  };

  absl::StatusOr<EventHandle> TakeEvent(int device);
  // Puts the events of a finished item back for reuse.
  void Recycle(Held& held);
  // Destroys the events of an item whose state is unknown.
  void Discard(Held& held);

  EventBackend* const events_;
  std::deque<Held> held_;
  absl::flat_hash_map<int, std::vector<EventHandle>> idle_events_;  // per device
  EventGateStats stats_;
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_EVENT_GATE_H_
