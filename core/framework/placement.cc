#include "core/framework/placement.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/synchronization/mutex.h"
#include "core/device/device_registry.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

// The default device. Execute reads it for every op without a placement,
// so the common read is two atomic loads; the mutex only orders the
// writers (SetDefaultDevice, the one-time read of the environment).
struct DefaultDeviceState {
  std::atomic<bool> resolved{false};
  std::atomic<Device*> device{nullptr};
  std::atomic<bool> has_error{false};
  absl::Mutex mu;
  absl::Status error ABSL_GUARDED_BY(mu);
};

DefaultDeviceState& State() {
  static DefaultDeviceState* const state = new DefaultDeviceState();
  return *state;
}

void Store(DefaultDeviceState& s, absl::StatusOr<Device*> value)
    ABSL_EXCLUSIVE_LOCKS_REQUIRED(s.mu) {
  s.error = value.status();
  s.device.store(value.ok() ? *value : nullptr, std::memory_order_release);
  s.has_error.store(!value.ok(), std::memory_order_release);
  s.resolved.store(true, std::memory_order_release);
}

void ResolveFromEnvironment(DefaultDeviceState& s) {
  const char* value = std::getenv(kDefaultDeviceEnv);
  // Resolved outside the lock: creating a GPU device takes a while, and
  // nothing here may wait on an op.
  absl::StatusOr<Device*> resolved =
      ResolveDefaultDeviceSetting(value == nullptr ? "" : value);
  absl::MutexLock lock(&s.mu);
  if (!s.resolved.load(std::memory_order_acquire)) Store(s, std::move(resolved));
}

// Ops that make data rather than transform it run where they are asked to
// even when all their inputs are small integers (a shape): generating on
// the device beats generating on the host and copying. TensorFlow's list.
bool MakesData(const std::string& op) {
  return op == "RandomUniform" || op == "RandomUniformInt" ||
         op == "RandomStandardNormal" || op == "StatelessRandomUniform" ||
         op == "StatelessRandomUniformInt" || op == "StatelessRandomUniformFullInt" ||
         op == "StatelessRandomNormal";
}

// TensorFlow's small-op pinning: every input a host int32/int64 tensor of
// at most 64 elements. Such ops compute shapes, axes and counters, which
// the host reads next; a device round trip would only add latency.
bool PinnedToHost(const OpDef& op, absl::Span<const Tensor> inputs) {
  if (inputs.empty() || MakesData(op.name)) return false;
  constexpr int64_t kMaxPinnedElements = 64;
  for (const Tensor& t : inputs) {
    if (!t.defined() || !t.device()->host_memory()) return false;
    if (t.dtype() != DT_INT32 && t.dtype() != DT_INT64) return false;
    if (t.NumElements() > kMaxPinnedElements) return false;
  }
  return true;
}

// Note [Host-only dtypes]: whether the op reads strings (by its kernel
// dtype or any input), which only the host may do.
bool ReadsHostOnlyDtype(absl::Span<const Tensor> inputs, DataType kernel_dtype) {
  if (IsHostOnlyType(kernel_dtype)) return true;
  for (const Tensor& t : inputs) {
    if (t.defined() && IsHostOnlyType(t.dtype())) return true;
  }
  return false;
}

// `device` when it has a kernel for the op and may hold its inputs, else
// the host (soft placement).
Device* DeviceOrHost(const OpDef& op, Device* device, absl::Span<const Tensor> inputs,
                     DataType kernel_dtype) {
  if (device->host_memory()) return device;  // Every op has a CPU kernel.
  if (ReadsHostOnlyDtype(inputs, kernel_dtype)) return HostDevice();
  return LookupKernel(op.name, device->type(), kernel_dtype).ok() ? device : HostDevice();
}

}  // namespace

void SetDefaultDevice(Device* device) {
  DefaultDeviceState& s = State();
  absl::MutexLock lock(&s.mu);
  Store(s, device);
}

absl::StatusOr<Device*> DefaultDevice() {
  DefaultDeviceState& s = State();
  if (!s.resolved.load(std::memory_order_acquire)) ResolveFromEnvironment(s);
  if (!s.has_error.load(std::memory_order_acquire)) {
    return s.device.load(std::memory_order_acquire);
  }
  absl::MutexLock lock(&s.mu);
  if (!s.error.ok()) return s.error;
  return s.device.load(std::memory_order_acquire);
}

absl::StatusOr<Device*> ResolveDefaultDeviceSetting(absl::string_view value) {
  return ResolveDefaultDeviceSetting(value, absl::StrCat(kDefaultDeviceEnv, "=", value));
}

absl::StatusOr<Device*> ResolveDefaultDeviceSetting(absl::string_view value,
                                                    absl::string_view source) {
  const std::string v = absl::AsciiStrToLower(absl::StripAsciiWhitespace(value));
  if (v.empty() || v == "none" || v == "cpu") return nullptr;
  if (v == "auto") {
    if (DeviceCount(DeviceType::kGPU) == 0) return nullptr;
    absl::StatusOr<Device*> gpu = GetDevice(DeviceType::kGPU, 0);
    if (!gpu.ok()) {
      return absl::Status(gpu.status().code(),
                          absl::StrCat(source, ": GPU:0 is visible but cannot be opened: ",
                                       gpu.status().message()));
    }
    return *gpu;
  }
  absl::StatusOr<Device*> device = FindDevice(v);
  if (!device.ok()) {
    return absl::Status(
        device.status().code(),
        absl::StrCat(source, ": ", device.status().message(),
                     " (expected a device name such as /device:GPU:0, \"auto\" or \"cpu\")"));
  }
  // The host is what "no default device" means already; saying so keeps
  // the ops' placement exactly as without the variable.
  if (*device == HostDevice()) return nullptr;
  return *device;
}

absl::StatusOr<Device*> CurrentDevice() {
  if (Device* scoped = DeviceScope::Current()) return scoped;
  TFD_ASSIGN_OR_RETURN(Device* device, DefaultDevice());
  return device != nullptr ? device : HostDevice();
}

absl::StatusOr<Device*> PlaceOp(const OpDef& op, absl::Span<const Tensor> inputs,
                                DataType kernel_dtype, Device* requested) {
  if (requested != nullptr) return requested;
  if (Device* scoped = DeviceScope::Current()) {
    // Note [Host-only dtypes]: a scope does not put strings on a GPU.
    if (!scoped->host_memory() && ReadsHostOnlyDtype(inputs, kernel_dtype)) {
      return HostDevice();
    }
    return scoped;
  }
  for (const Tensor& t : inputs) {
    if (t.defined() && !t.device()->host_memory()) {
      return DeviceOrHost(op, t.device(), inputs, kernel_dtype);
    }
  }
  TFD_ASSIGN_OR_RETURN(Device* default_device, DefaultDevice());
  if (default_device != nullptr) {
    if (PinnedToHost(op, inputs)) return HostDevice();
    return DeviceOrHost(op, default_device, inputs, kernel_dtype);
  }
  for (const Tensor& t : inputs) {
    if (t.defined()) return t.device();
  }
  return HostDevice();
}

}  // namespace tfd
