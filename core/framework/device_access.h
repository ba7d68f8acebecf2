// Device reads: catching host code that reads a tensor's bytes where they
// are not in host memory. On a real GPU such a read is a segfault or
// garbage; under the fake-GPU suite (--config=fake_gpu_suite, which
// defines TFD_CHECK_DEVICE_READS) the "GPU" is host memory, so the same
// read would silently work. With the check compiled in, Tensor's data
// accessors abort, naming the tensor's device, unless the calling thread
// is inside a kernel running on that device or inside a device copy.
//
// Note [Device reads]. Who may touch a non-host tensor's bytes:
//   - a kernel running on the tensor's device (Execute opens a
//     DeviceAccessScope around the kernel call; ThreadPool::ParallelFor
//     carries it to the shards it runs on other threads);
//   - a copy between memory spaces (Tensor::CopyTo, collectives' byte
//     copies), which only hands the pointers to Device::Copy*: those scopes
//     allow every device (DeviceAccessScope::kAnyDevice).
// Everything else copies to the host first (Tensor::CopyTo(HostDevice())),
// as `.numpy()` does in TensorFlow.
//
// TFD_DEVICE_READ_CHECK=warn in the environment reports every bad read
// and goes on instead, to list them all in one run.
//
// In every other build the macros below expand to nothing and the
// accessors do no check: zero cost.
//
// Thread safety: the scope is per thread.
//
//   TFD_DEVICE_ACCESS_SCOPE(device);   // around a kernel on `device`
//   TFD_DEVICE_COPY_SCOPE();           // around a copy's pointer handling
#ifndef TFD_CORE_FRAMEWORK_DEVICE_ACCESS_H_
#define TFD_CORE_FRAMEWORK_DEVICE_ACCESS_H_

namespace tfd {

class Device;

// Marks this thread as running code that may touch `device`'s memory,
// until destroyed. Scopes nest.
class DeviceAccessScope {
 public:
  // A device no tensor lives on: the scope of copies, which may touch any.
  static const Device* const kAnyDevice;

  explicit DeviceAccessScope(const Device* device);
  ~DeviceAccessScope();
  DeviceAccessScope(const DeviceAccessScope&) = delete;
  DeviceAccessScope& operator=(const DeviceAccessScope&) = delete;

  // The innermost scope's device on this thread; null when none.
  static const Device* Current();

 private:
  const Device* previous_;
};

// Aborts, naming the device, when `device` is outside host memory and
// this thread is not inside a DeviceAccessScope that allows it. `what`
// names the accessor. A programmer error, hence abort rather than Status.
void CheckHostReadable(const Device* device, const char* what);

}  // namespace tfd

#define TFD_DEVICE_ACCESS_CONCAT_(a, b) a##b
#define TFD_DEVICE_ACCESS_CONCAT(a, b) TFD_DEVICE_ACCESS_CONCAT_(a, b)

#ifdef TFD_CHECK_DEVICE_READS
#define TFD_DEVICE_ACCESS_SCOPE(device)                                     \
  ::tfd::DeviceAccessScope TFD_DEVICE_ACCESS_CONCAT(tfd_device_access_,     \
                                                    __LINE__)(device)
#define TFD_DEVICE_COPY_SCOPE() \
  TFD_DEVICE_ACCESS_SCOPE(::tfd::DeviceAccessScope::kAnyDevice)
#else
#define TFD_DEVICE_ACCESS_SCOPE(device) static_cast<void>(0)
#define TFD_DEVICE_COPY_SCOPE() static_cast<void>(0)
#endif

#endif  // TFD_CORE_FRAMEWORK_DEVICE_ACCESS_H_
