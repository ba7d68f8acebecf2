// Note [Collect in order]
// Items are held in the order their last use was queued. On one stream
// events complete in that order, so the first item that is not done means
// the ones after it are not done either, and stopping there costs one
// query per look instead of one per held item. With several streams a
// later item may finish first and wait a little longer than it must; it is
// handed back at a later look, and the owner allocates fresh memory
// meanwhile. Correctness never depends on the order: an item is only
// handed back after every one of its own events completed.
#include "core/device/cuda/event_gate.h"

#include <utility>

#include "core/framework/status.h"

namespace tfd {

EventGate::EventGate(EventBackend* events) : events_(events) {}

EventGate::~EventGate() {
  for (Held& h : held_) Discard(h);
  for (auto& [device, events] : idle_events_) {
    for (EventHandle e : events) events_->Destroy(e);
  }
}

absl::StatusOr<EventHandle> EventGate::TakeEvent(int device) {
  std::vector<EventHandle>& idle = idle_events_[device];
  if (!idle.empty()) {
    EventHandle e = idle.back();
    idle.pop_back();
    return e;
  }
  TFD_ASSIGN_OR_RETURN(EventHandle e, events_->Create(device));
  ++stats_.events_created;
  return e;
}

void EventGate::Recycle(Held& held) {
  for (auto& [device, e] : held.events) idle_events_[device].push_back(e);
  held.events.clear();
}

void EventGate::Discard(Held& held) {
  for (auto& [device, e] : held.events) events_->Destroy(e);
  held.events.clear();
}

absl::Status EventGate::Hold(void* item, absl::Span<const StreamRef> streams) {
  Held held;
  held.item = item;
  for (const StreamRef& s : streams) {
    absl::StatusOr<EventHandle> e = TakeEvent(s.device);
    absl::Status status = e.status();
    if (status.ok()) {
      held.events.emplace_back(s.device, *e);
      status = events_->Record(*e, s);
    }
    if (!status.ok()) {
      // The item's last use may still be running: it cannot be reused.
      Discard(held);
      ++stats_.lost;
      return status;
    }
    ++stats_.events_recorded;
  }
  held_.push_back(std::move(held));
  ++stats_.held;
  ++stats_.total_held;
  return absl::OkStatus();
}

absl::Status EventGate::Collect(std::vector<void*>* ready) {
  absl::Status first;
  while (!held_.empty()) {
    Held& h = held_.front();
    bool done = true;
    absl::Status failed;
    for (auto& [device, e] : h.events) {
      absl::StatusOr<bool> d = events_->Query(e);
      if (!d.ok()) {
        failed = d.status();
        break;
      }
      if (!*d) {
        done = false;
        break;
      }
    }
    if (!failed.ok()) {
      Discard(h);
      ++stats_.lost;
      if (first.ok()) first = failed;
    } else if (!done) {
      break;
    } else {
      Recycle(h);
      ready->push_back(h.item);
      ++stats_.total_released;
    }
    held_.pop_front();
    --stats_.held;
  }
  return first;
}

absl::Status EventGate::WaitAndCollect(std::vector<void*>* ready) {
  absl::Status first;
  while (!held_.empty()) {
    Held& h = held_.front();
    absl::Status failed;
    for (auto& [device, e] : h.events) {
      failed = events_->Synchronize(e);
      if (!failed.ok()) break;
    }
    if (failed.ok()) {
      Recycle(h);
      ready->push_back(h.item);
      ++stats_.total_released;
    } else {
      Discard(h);
      ++stats_.lost;
      if (first.ok()) first = failed;
    }
    held_.pop_front();
    --stats_.held;
  }
  return first;
}

}  // namespace tfd
