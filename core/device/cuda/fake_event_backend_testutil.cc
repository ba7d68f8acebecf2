#include "core/device/cuda/fake_event_backend_testutil.h"

#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace tfd {
namespace test {
namespace {

int64_t IdOf(EventHandle e) { return static_cast<int64_t>(reinterpret_cast<intptr_t>(e)); }

}  // namespace

FakeEventBackend::~FakeEventBackend() {
  absl::MutexLock lock(&mu_);
  // A leaked event is a bug of the code under test; say so loudly.
  if (!events_.empty()) {
    std::fprintf(stderr, "FakeEventBackend: %zu events were never destroyed\n", events_.size());
  }
}

int64_t FakeEventBackend::Enqueue(StreamRef s) {
  absl::MutexLock lock(&mu_);
  return ++streams_[{s.device, s.stream}].queued;
}

void FakeEventBackend::CompleteAll(StreamRef s) {
  absl::MutexLock lock(&mu_);
  Progress& p = streams_[{s.device, s.stream}];
  p.completed = p.queued;
}

int64_t FakeEventBackend::queued(StreamRef s) const {
  absl::MutexLock lock(&mu_);
  auto it = streams_.find({s.device, s.stream});
  return it == streams_.end() ? 0 : it->second.queued;
}

int64_t FakeEventBackend::completed(StreamRef s) const {
  absl::MutexLock lock(&mu_);
  auto it = streams_.find({s.device, s.stream});
  return it == streams_.end() ? 0 : it->second.completed;
}

int FakeEventBackend::live_events() const {
  absl::MutexLock lock(&mu_);
  return static_cast<int>(events_.size());
}

int FakeEventBackend::synchronizations() const {
  absl::MutexLock lock(&mu_);
  return synchronizations_;
}

void FakeEventBackend::set_fail_create(bool f) {
  absl::MutexLock lock(&mu_);
  fail_create_ = f;
}
void FakeEventBackend::set_fail_record(bool f) {
  absl::MutexLock lock(&mu_);
  fail_record_ = f;
}
void FakeEventBackend::set_fail_query(bool f) {
  absl::MutexLock lock(&mu_);
  fail_query_ = f;
}
void FakeEventBackend::set_fail_synchronize(bool f) {
  absl::MutexLock lock(&mu_);
  fail_synchronize_ = f;
}

absl::StatusOr<EventHandle> FakeEventBackend::Create(int device) {
  absl::MutexLock lock(&mu_);
  if (fail_create_) return absl::InternalError("fake event create failed");
  const int64_t id = next_id_++;
  events_[id].device = device;
  return reinterpret_cast<EventHandle>(static_cast<intptr_t>(id));
}

absl::Status FakeEventBackend::Record(EventHandle event, StreamRef stream) {
  absl::MutexLock lock(&mu_);
  if (fail_record_) return absl::InternalError("fake event record failed");
  auto it = events_.find(IdOf(event));
  if (it == events_.end()) return absl::InternalError("fake: record of an unknown event");
  if (it->second.device != stream.device) {
    return absl::InternalError(absl::StrCat("fake: event of GPU ", it->second.device,
                                            " recorded on a stream of GPU ", stream.device));
  }
  it->second.recorded = true;
  it->second.stream = {stream.device, stream.stream};
  it->second.target = streams_[it->second.stream].queued;
  return absl::OkStatus();
}

absl::StatusOr<bool> FakeEventBackend::Query(EventHandle event) {
  absl::MutexLock lock(&mu_);
  if (fail_query_) return absl::InternalError("fake event query failed");
  auto it = events_.find(IdOf(event));
  if (it == events_.end()) return absl::InternalError("fake: query of an unknown event");
  // As CUDA: an event never recorded counts as done.
  if (!it->second.recorded) return true;
  return streams_[it->second.stream].completed >= it->second.target;
}

absl::Status FakeEventBackend::Synchronize(EventHandle event) {
  absl::MutexLock lock(&mu_);
  if (fail_synchronize_) return absl::InternalError("fake event synchronize failed");
  auto it = events_.find(IdOf(event));
  if (it == events_.end()) return absl::InternalError("fake: wait on an unknown event");
  ++synchronizations_;
  if (it->second.recorded) {
    // The host waiting lets the stream run up to the event.
    Progress& p = streams_[it->second.stream];
    if (p.completed < it->second.target) p.completed = it->second.target;
  }
  return absl::OkStatus();
}

void FakeEventBackend::Destroy(EventHandle event) {
  absl::MutexLock lock(&mu_);
  if (events_.erase(IdOf(event)) == 0) {
    std::fprintf(stderr, "FakeEventBackend: destroy of an unknown event\n");
    std::abort();
  }
}

}  // namespace test
}  // namespace tfd
