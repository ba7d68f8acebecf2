// Transforms that run work on background threads: Map (parallel, order
// preserving) and Prefetch.
#include <deque>

#include "absl/synchronization/mutex.h"
#include "core/data/internal/host_pipeline_scope.h"
#include "core/data/transforms.h"
#include "core/device/cpu/thread_pool.h"
#include "core/framework/status.h"

namespace tfd {
namespace data {
namespace {

using Result = absl::StatusOr<std::optional<Element>>;

// Keeps up to `window` elements in flight on background threads and hands
// them out in input order. Reads from upstream are serialized and each read
// fills the oldest waiting slot, so the order is the input order however
// the threads interleave; `transform` (Map's function) runs in parallel.
// After an end or an error nothing more is scheduled.
class Pipeline {
 public:
  Pipeline(int threads, int64_t window, NextFn read, MapFn transform)
      : pool_(threads + 1),
        window_(window),
        read_(std::move(read)),
        transform_(std::move(transform)) {}

  ~Pipeline() {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    // In-flight tasks refer to this object: wait for them.
    mu_.Await(absl::Condition(+[](int* n) { return *n == 0; }, &in_flight_));
  }

  Result Next() {
    absl::MutexLock lock(&mu_);
    FillLocked();
    if (slots_.empty()) return std::optional<Element>();  // Ended earlier.
    std::shared_ptr<Slot> slot = slots_.front();
    mu_.Await(absl::Condition(+[](Slot* s) { return s->done; }, slot.get()));
    slots_.pop_front();
    if (!slot->result.ok() || !slot->result->has_value()) {
      finished_ = true;
      slots_.clear();  // Anything read after the end or an error is dropped.
    }
    FillLocked();
    return std::move(slot->result);
  }

 private:
  struct Slot {
    bool done = false;
    Result result = std::optional<Element>();
  };

  void FillLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (!finished_ && !stopping_ && static_cast<int64_t>(slots_.size()) < window_) {
      auto slot = std::make_shared<Slot>();
      slots_.push_back(slot);
      unread_.push_back(slot);
      ++in_flight_;
      pool_.Schedule([this] { RunOne(); });
    }
  }

  void RunOne() {
    std::shared_ptr<Slot> slot;
    Result r;
    {
      absl::MutexLock read_lock(&read_mu_);
      {
        absl::MutexLock lock(&mu_);
        slot = std::move(unread_.front());
        unread_.pop_front();
      }
      r = read_();
    }
    if (r.ok() && r->has_value() && transform_) {
      internal::HostPipelineScope on_host;
      absl::StatusOr<Element> mapped = transform_(**r);
      r = mapped.ok() ? Result(std::optional<Element>(*std::move(mapped))) : Result(mapped.status());
    }
    absl::MutexLock lock(&mu_);
    slot->result = std::move(r);
    slot->done = true;
    --in_flight_;
  }

  ThreadPool pool_;
  const int64_t window_;
  const NextFn read_;
  const MapFn transform_;
  absl::Mutex read_mu_;  // Serializes upstream reads; taken before mu_.
  absl::Mutex mu_;
  std::deque<std::shared_ptr<Slot>> slots_ ABSL_GUARDED_BY(mu_);
  std::deque<std::shared_ptr<Slot>> unread_ ABSL_GUARDED_BY(mu_);
  int in_flight_ ABSL_GUARDED_BY(mu_) = 0;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace

absl::StatusOr<DatasetPtr> Map(DatasetPtr input, MapFn fn, int num_parallel_calls) {
  if (input == nullptr) return InvalidArgument("Map: input dataset is null");
  if (!fn) return InvalidArgument("Map: function is empty");
  if (num_parallel_calls < 1) {
    return InvalidArgument("Map: num_parallel_calls must be >= 1, got ", num_parallel_calls);
  }
  auto make = [input, fn, num_parallel_calls]() -> absl::StatusOr<std::unique_ptr<Iterator>> {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<Iterator> it, input->MakeIterator());
    NextFn read = [it]() { return it->GetNext(); };
    if (num_parallel_calls == 1) {
      return IteratorFromFn([read, fn]() -> Result {
        TFD_ASSIGN_OR_RETURN(std::optional<Element> e, read());
        if (!e) return e;
        TFD_ASSIGN_OR_RETURN(Element mapped, fn(*e));
        return std::optional<Element>(std::move(mapped));
      });
    }
    auto pipeline = std::make_shared<Pipeline>(num_parallel_calls, num_parallel_calls, read, fn);
    return IteratorFromFn([pipeline]() { return pipeline->Next(); });
  };
  return DatasetFromFn("Map(" + input->DebugString() + ")", input->Cardinality(), make,
                       TransformOf(input, [=](DatasetPtr in) {
                         return Map(std::move(in), fn, num_parallel_calls);
                       }));
}

absl::StatusOr<DatasetPtr> Prefetch(DatasetPtr input, int64_t buffer_size) {
  if (input == nullptr) return InvalidArgument("Prefetch: input dataset is null");
  if (buffer_size < 1) {
    return InvalidArgument("Prefetch: buffer_size must be >= 1, got ", buffer_size);
  }
  auto make = [input, buffer_size]() -> absl::StatusOr<std::unique_ptr<Iterator>> {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<Iterator> it, input->MakeIterator());
    auto pipeline =
        std::make_shared<Pipeline>(1, buffer_size, [it]() { return it->GetNext(); }, nullptr);
    return IteratorFromFn([pipeline]() { return pipeline->Next(); });
  };
  return DatasetFromFn(
      "Prefetch(" + input->DebugString() + ")", input->Cardinality(), make,
      TransformOf(input, [=](DatasetPtr in) { return Prefetch(std::move(in), buffer_size); }));
}

}  // namespace data
}  // namespace tfd
