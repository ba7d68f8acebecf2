#include "core/framework/device_counters.h"

#include <atomic>

#include "absl/strings/str_cat.h"

namespace tfd {
namespace {

constexpr int kNumEvents = static_cast<int>(DeviceEvent::kDeviceAllocation) + 1;

// Relaxed: the counts order nothing; a reader after a step sees the step's
// events because the step's own synchronization (a join, a wait) ordered them.
std::atomic<int64_t> counts[kNumEvents];

int64_t Load(DeviceEvent e) { return counts[static_cast<int>(e)].load(std::memory_order_relaxed); }

}  // namespace

void CountDeviceEvent(DeviceEvent event) {
  counts[static_cast<int>(event)].fetch_add(1, std::memory_order_relaxed);
}

DeviceCounts ReadDeviceCounts() {
  DeviceCounts c;
  c.synchronizations = Load(DeviceEvent::kSynchronize);
  c.copies_to_host = Load(DeviceEvent::kCopyToHost);
  c.copies_to_device = Load(DeviceEvent::kCopyToDevice);
  c.prefetch_copies_to_device = Load(DeviceEvent::kPrefetchCopyToDevice);
  c.device_allocations = Load(DeviceEvent::kDeviceAllocation);
  return c;
}

DeviceCounts DeviceCounts::operator-(const DeviceCounts& earlier) const {
  DeviceCounts d;
  d.synchronizations = synchronizations - earlier.synchronizations;
  d.copies_to_host = copies_to_host - earlier.copies_to_host;
  d.copies_to_device = copies_to_device - earlier.copies_to_device;
  d.prefetch_copies_to_device = prefetch_copies_to_device - earlier.prefetch_copies_to_device;
  d.device_allocations = device_allocations - earlier.device_allocations;
  return d;
}

std::string DeviceCounts::DebugString() const {
  return absl::StrCat("synchronizations=", synchronizations, " copies_to_host=", copies_to_host,
                      " copies_to_device=", copies_to_device,
                      " prefetch_copies_to_device=", prefetch_copies_to_device,
                      " device_allocations=", device_allocations);
}

}  // namespace tfd
