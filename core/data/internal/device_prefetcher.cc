#include "core/data/internal/device_prefetcher.h"

#include "core/data/internal/host_pipeline_scope.h"
#include "core/framework/status.h"

namespace tfd {
namespace data {
namespace internal {

DevicePrefetcher::DevicePrefetcher(NextGroupFn next, std::vector<Device*> devices,
                                   int64_t buffer_size, std::string op)
    : next_(std::move(next)),
      devices_(std::move(devices)),
      buffer_size_(buffer_size),
      op_(std::move(op)),
      thread_([this] { Run(); }) {}

DevicePrefetcher::~DevicePrefetcher() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  thread_.join();
}

absl::Status DevicePrefetcher::StartCopies(Group& group, Ready* ready) const {
  if (group.size() != devices_.size()) {
    return InvalidArgument(op_, ": got ", group.size(), " elements for ", devices_.size(),
                           " devices");
  }
  for (size_t j = 0; j < group.size(); ++j) {
    Device* device = devices_[j];
    if (device == nullptr || device->host_memory()) continue;
    for (Tensor& t : group[j]) {
      if (!t.defined() || t.device() == device || t.dtype() == DT_STRING) continue;
      if (!t.device()->host_memory()) {
        TFD_ASSIGN_OR_RETURN(t, t.CopyTo(device));
        continue;
      }
      std::shared_ptr<DeviceFence> fence;
      TFD_ASSIGN_OR_RETURN(t, t.CopyToAsync(device, &fence));
      if (fence != nullptr) ready->fences.emplace_back(device, std::move(fence));
    }
  }
  return absl::OkStatus();
}

void DevicePrefetcher::Run() {
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      mu_.Await(absl::Condition(
          +[](DevicePrefetcher* self) ABSL_NO_THREAD_SAFETY_ANALYSIS {
            return self->stopping_ ||
                   static_cast<int64_t>(self->ready_.size()) < self->buffer_size_;
          },
          this));
      if (stopping_) return;
    }
    Ready ready;
    {
      // Upstream functions run on the host, as in every pipeline thread.
      HostPipelineScope on_host;
      ready.group = next_();
    }
    bool last = !ready.group.ok() || !ready.group->has_value();
    if (!last) {
      absl::Status copied = StartCopies(**ready.group, &ready);
      if (!copied.ok()) {
        ready.group = copied;
        ready.fences.clear();
        last = true;
      }
    }
    absl::MutexLock lock(&mu_);
    ready_.push_back(std::move(ready));
    if (last) return;
  }
}

absl::StatusOr<std::optional<DevicePrefetcher::Group>> DevicePrefetcher::GetNext() {
  if (handed_out_last_) return std::optional<Group>();
  Ready ready;
  {
    absl::MutexLock lock(&mu_);
    // The thread always ends with an end or an error, so this returns.
    mu_.Await(absl::Condition(
        +[](std::deque<Ready>* q) { return !q->empty(); }, &ready_));
    ready = std::move(ready_.front());
    ready_.pop_front();
  }
  if (!ready.group.ok() || !ready.group->has_value()) {
    handed_out_last_ = true;
    return std::move(ready.group);
  }
  for (auto& [device, fence] : ready.fences) {
    absl::Status s = device->WaitForFence(fence.get());
    if (!s.ok()) {
      handed_out_last_ = true;
      return s;
    }
  }
  return std::move(ready.group);
}

}  // namespace internal
}  // namespace data
}  // namespace tfd
