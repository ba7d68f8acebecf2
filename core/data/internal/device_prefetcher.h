// DevicePrefetcher: the engine behind PrefetchToDevice and the distributed
// input of GPU replicas (TensorFlow's prefetch_to_device and
// MultiDeviceIterator).
//
// A background thread pulls groups of host elements (one element per
// device: a step's per-replica batches, or one element for one device),
// starts copying element j to devices[j] beside that device's computation
// (Tensor::CopyToAsync: staged in pinned memory and copied on a GPU's copy
// stream) and keeps up to `buffer_size` groups ready ahead of the consumer.
// GetNext hands the oldest group out after making each device's
// computation wait for its copies (Device::WaitForFence): the device waits,
// the host does not, so copies overlap the steps still running.
//
// What is not copied: elements for a null device or a device in host
// memory (CPU replicas: they stay as they are), DT_STRING tensors (host
// memory only), and tensors already on their device. A tensor on another
// device is copied there through the host, synchronously.
//
// After the end or an error nothing more is read; the error is returned
// once and GetNext returns nullopt from then on. Destroying the prefetcher
// stops the thread (waiting for a read in progress) and drops what it had
// ready.
//
// Thread safety: GetNext is called by one thread at a time.
#ifndef TFD_CORE_DATA_INTERNAL_DEVICE_PREFETCHER_H_
#define TFD_CORE_DATA_INTERNAL_DEVICE_PREFETCHER_H_

#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/data/dataset.h"
#include "core/framework/device.h"

namespace tfd {
namespace data {
namespace internal {

class DevicePrefetcher {
 public:
  // Element j of a group goes to devices[j].
  using Group = std::vector<Element>;
  using NextGroupFn = std::function<absl::StatusOr<std::optional<Group>>()>;

  // Starts the thread. `op` names the caller in errors. buffer_size >= 1
  // (callers check it).
  DevicePrefetcher(NextGroupFn next, std::vector<Device*> devices, int64_t buffer_size,
                   std::string op);
  ~DevicePrefetcher();
  DevicePrefetcher(const DevicePrefetcher&) = delete;
  DevicePrefetcher& operator=(const DevicePrefetcher&) = delete;

  // The next group, on its devices, or nullopt at the end. Errors of the
  // upstream read or of a copy pass through; INVALID_ARGUMENT when a group
  // does not hold one element per device.
  absl::StatusOr<std::optional<Group>> GetNext();

 private:
  struct Ready {
    absl::StatusOr<std::optional<Group>> group = std::optional<Group>();
    // The copies computation must wait for, with their devices.
    std::vector<std::pair<Device*, std::shared_ptr<DeviceFence>>> fences;
  };

  void Run();
  // Starts the copies of `group` to the devices, filling `ready`.
  absl::Status StartCopies(Group& group, Ready* ready) const;

  const NextGroupFn next_;
  const std::vector<Device*> devices_;
  const int64_t buffer_size_;
  const std::string op_;
  absl::Mutex mu_;
  std::deque<Ready> ready_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool handed_out_last_ = false;  // Consumer side: the end or an error was returned.
  std::thread thread_;            // Last: started once everything above exists.
};

}  // namespace internal
}  // namespace data
}  // namespace tfd

#endif  // TFD_CORE_DATA_INTERNAL_DEVICE_PREFETCHER_H_
