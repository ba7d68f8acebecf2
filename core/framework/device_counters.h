// Device counters: process-wide counts of the device work that costs a
// training step time on an accelerator whatever its kernels do -- the host
// waiting for a device, bytes crossing between host and device memory, and
// memory requests the device allocator's cache could not serve. Devices
// count where the events happen (core/device/cuda, the fake GPU of tests);
// tests and tools read the counts before and after a step and compare.
//
// Always on: each event is one relaxed atomic add, next to work (a stream
// synchronization, a copy, a device allocation) that costs microseconds.
// The counts are of the whole process, every thread and device together.
//
// Thread safety: every function may be called from any thread.
//
//   const DeviceCounts before = ReadDeviceCounts();
//   ... one training step ...
//   const DeviceCounts step = ReadDeviceCounts() - before;
//   EXPECT_EQ(step.synchronizations, 0);
#ifndef TFD_CORE_FRAMEWORK_DEVICE_COUNTERS_H_
#define TFD_CORE_FRAMEWORK_DEVICE_COUNTERS_H_

#include <cstdint>
#include <string>

namespace tfd {

enum class DeviceEvent {
  // The host waited for everything queued on a device (Device::Synchronize).
  kSynchronize,
  // A device->host copy: the host waits until the bytes arrived, so each
  // is a blocking read of device memory (a stream synchronization on a GPU).
  kCopyToHost,
  // A host->device copy on the device's compute queue (Device::
  // CopyHostToDevice); queued, but a copy and a staging buffer all the same.
  kCopyToDevice,
  // A host->device copy on the input pipeline's copy queue (Device::
  // CopyHostToDeviceAsync): the prefetch of the next batch, beside the step.
  kPrefetchCopyToDevice,
  // A request the device allocator's cache could not serve: memory taken
  // from the device itself (cudaMalloc, which synchronizes the device).
  kDeviceAllocation,
};

struct DeviceCounts {
  int64_t synchronizations = 0;
  int64_t copies_to_host = 0;
  int64_t copies_to_device = 0;
  int64_t prefetch_copies_to_device = 0;
  int64_t device_allocations = 0;

  // The events between two readings.
  DeviceCounts operator-(const DeviceCounts& earlier) const;
  // "synchronizations=0 copies_to_host=1 ...", for test failures and logs.
  std::string DebugString() const;
};

// Adds one `event`.
void CountDeviceEvent(DeviceEvent event);

// The counts since the process started.
DeviceCounts ReadDeviceCounts();

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_DEVICE_COUNTERS_H_
