// Device: a place where kernels run and tensors live. Kernels are chosen by
// the device's type (CPU, GPU); memory by its allocator. CPU logical devices
// (core/device/cpu) all use host memory but each owns a thread pool over a
// share of the cores; a CUDA device (core/device/cuda) owns a GPU, a stream
// and a caching allocator.
//
// Devices are created once and live for the process; tensors hold raw
// Device pointers. All methods are thread-safe.
#ifndef TFD_CORE_FRAMEWORK_DEVICE_H_
#define TFD_CORE_FRAMEWORK_DEVICE_H_

#include <cstddef>
#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/framework/allocator.h"

namespace tfd {

class ThreadPool;

// Work queued on a device that other work on it may have to wait for (on
// a GPU: an event recorded after a copy on its copy stream). Made by
// Device::CopyHostToDeviceAsync; only the device that made it waits for it.
class DeviceFence {
 public:
  virtual ~DeviceFence() = default;
};

enum class DeviceType { kCPU = 0, kGPU = 1 };

// "CPU" or "GPU", as in TensorFlow device names.
const char* DeviceTypeName(DeviceType type);

class Device {
 public:
  Device(DeviceType type, int id)
      : type_(type),
        id_(id),
        name_(std::string("/device:") + DeviceTypeName(type) + ":" +
              std::to_string(id)) {}
  virtual ~Device() = default;
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;

  DeviceType type() const { return type_; }
  int id() const { return id_; }
  // "/device:CPU:0", "/device:GPU:1".
  const std::string& name() const { return name_; }
  // Host-memory devices can read each other's tensors directly.
  bool host_memory() const { return type_ == DeviceType::kCPU; }

  virtual Allocator* allocator() = 0;
  // The pool kernels on this device parallelize over; null for devices
  // that run kernels elsewhere (GPUs).
  virtual ThreadPool* thread_pool() { return nullptr; }

  // Copies between host memory and this device's memory, and fills device
  // memory. On a host device these are memcpy/memset. Errors name the call.
  // CopyHostToDevice returns once `src` may be reused; the copy itself may
  // still be queued (a GPU stages it in pinned memory), ordered before any
  // work issued later on this device. CopyDeviceToHost returns when the
  // bytes are in `dst`.
  virtual absl::Status CopyHostToDevice(const void* src, void* dst, size_t n) = 0;
  virtual absl::Status CopyDeviceToHost(const void* src, void* dst, size_t n) = 0;
  virtual absl::Status CopyDeviceToDevice(const void* src, void* dst, size_t n) = 0;
  virtual absl::Status Memset(void* dst, int value, size_t n) = 0;
  // Waits for all work queued on the device.
  virtual absl::Status Synchronize() { return absl::OkStatus(); }

  // Copies between two devices' memories without the host: GPUs that can
  // reach each other, or logical devices of one GPU. CanCopyFromPeer says
  // whether this device takes such a copy from `from`; the default, false,
  // makes Tensor::CopyTo stage the bytes through host memory instead.
  virtual bool CanCopyFromPeer(Device* /*from*/) { return false; }
  // Queues a copy of `n` bytes from `src` (memory of `from`) into `dst`
  // (this device's memory) and returns without waiting. The copy runs
  // after the work queued on `from` so far and before the work issued on
  // this device later; the work issued on `from` later runs after it, so
  // the caller may drop or overwrite the source at once. Only when
  // CanCopyFromPeer(from); otherwise (and by default) FAILED_PRECONDITION.
  virtual absl::Status CopyFromPeer(Device* from, const void* src, void* dst, size_t n);

  // Copies that overlap the device's computation (the input pipeline's
  // prefetch to a device). The defaults suit devices without a separate
  // copy queue: the copy is synchronous and there is nothing to wait for.
  //
  // The allocator for buffers CopyHostToDeviceAsync fills: its memory is
  // reused only after the device's computation is done with it.
  virtual Allocator* async_copy_allocator() { return allocator(); }
  // Starts copying `n` bytes from host `src` into `dst` (memory from
  // async_copy_allocator()) on a queue that runs beside the device's
  // computation; `src` may be reused when it returns. Computation must not
  // read `dst` before WaitForFence(the returned fence). A null fence means
  // the copy is done already.
  virtual absl::StatusOr<std::shared_ptr<DeviceFence>> CopyHostToDeviceAsync(const void* src,
                                                                           void* dst, size_t n);
  // Makes the computation issued on this device from now on wait for
  // `fence`, without blocking the host. A null fence is a no-op;
  // INVALID_ARGUMENT for a fence another device made.
  virtual absl::Status WaitForFence(const DeviceFence* fence);

 private:
  const DeviceType type_;
  const int id_;
  const std::string name_;
};

// The host device every tensor defaults to: all available cores.
// Defined in core/device/cpu.
Device* HostDevice();

// Makes `device` the default for ops run by this thread until destroyed
// (TensorFlow's `with tf.device(...)`). Scopes nest.
class DeviceScope {
 public:
  explicit DeviceScope(Device* device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

  // The innermost scope's device on this thread, or null when none.
  static Device* Current();

 private:
  Device* previous_;
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_DEVICE_H_
