// LogicalDeviceTable: the process's split of its physical GPUs into logical
// devices (TensorFlow's tf.config.set_logical_device_configuration), named
// as TensorFlow names them: numbered across every physical GPU in order.
// Physical GPU 0 split in two and GPU 1 split in three give
//
//   /device:GPU:0, /device:GPU:1            on physical GPU 0
//   /device:GPU:2, /device:GPU:3, GPU:4     on physical GPU 1
//
// so that no two logical devices share a name, even when they come from
// different physical GPUs.
//
// There is one configuration per table (the CUDA device keeps one for the
// process): the first Create fixes it, a later Create with the same counts
// returns the same devices, and one with other counts is refused, as
// TensorFlow refuses to change logical devices once they exist. Two
// configurations would number devices twice, and a device that exists
// cannot be renamed (tensors hold it). The table owns nothing: devices
// are made by the maker and live for the process, as all devices do.
//
// Plain C++ (no CUDA): the CUDA device supplies a maker of logical
// CudaDevices; tests supply their own over fake GPUs.
//
// Thread-safe.
//
//   LogicalDeviceTable table([](int physical, int id) -> Device* {
//     return new MyLogicalGpu(physical, /*name id=*/id);
//   });
//   TFD_ASSIGN_OR_RETURN(auto all, table.Create({2, 3}));  // GPU:0 .. GPU:4
#ifndef TFD_CORE_DEVICE_LOGICAL_DEVICES_H_
#define TFD_CORE_DEVICE_LOGICAL_DEVICES_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/types/span.h"
#include "core/framework/device.h"

namespace tfd {

// One logical device and the physical GPU (its index in the counts) under
// it.
struct LogicalDevice {
  Device* device = nullptr;
  int physical = 0;
};

// The id of each physical GPU's first logical device: counts[0] + ... +
// counts[i - 1] for GPU i. INVALID_ARGUMENT for an empty list or a count
// below 1 (every physical GPU is at least one device).
absl::StatusOr<std::vector<int>> FirstLogicalIds(absl::Span<const int> counts);

class LogicalDeviceTable {
 public:
  // Makes logical device `id` (its name's number) over physical GPU
  // `physical`. Never returns null; the device must be named with `id`.
  using Maker = std::function<Device*(int physical, int id)>;

  explicit LogicalDeviceTable(Maker make);
  LogicalDeviceTable(const LogicalDeviceTable&) = delete;
  LogicalDeviceTable& operator=(const LogicalDeviceTable&) = delete;

  // Splits physical GPU i into counts[i] logical devices and returns all
  // of them in id order: element j is /device:GPU:j. The first call makes
  // them; a call with the same counts returns the same devices.
  // INVALID_ARGUMENT as FirstLogicalIds; FAILED_PRECONDITION, naming both
  // configurations, for counts other than the first call's.
  absl::StatusOr<std::vector<LogicalDevice>> Create(absl::Span<const int> counts);

 private:
  const Maker make_;
  absl::Mutex mu_;
  std::vector<int> counts_ ABSL_GUARDED_BY(mu_);  // Empty until the first Create.
  std::vector<LogicalDevice> devices_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tfd

#endif  // TFD_CORE_DEVICE_LOGICAL_DEVICES_H_
