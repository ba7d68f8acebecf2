#include "core/framework/device.h"

namespace tfd {
namespace {
thread_local Device* current_device = nullptr;
}  // namespace

absl::StatusOr<std::shared_ptr<DeviceFence>> Device::CopyHostToDeviceAsync(const void* src,
                                                                           void* dst, size_t n) {
  absl::Status s = CopyHostToDevice(src, dst, n);
  if (!s.ok()) return s;
  return std::shared_ptr<DeviceFence>();
}

absl::Status Device::WaitForFence(const DeviceFence* fence) {
  if (fence == nullptr) return absl::OkStatus();
  // This device never makes fences, so the fence is another device's.
  return absl::InvalidArgumentError(name() + ": cannot wait for a fence made by another device");
}

absl::Status Device::CopyFromPeer(Device* from, const void*, void*, size_t) {
  return absl::FailedPreconditionError(name() + " cannot copy directly from " +
                                       (from == nullptr ? "no device" : from->name()));
}

const char* DeviceTypeName(DeviceType type) {
  return type == DeviceType::kGPU ? "GPU" : "CPU";
}

DeviceScope::DeviceScope(Device* device) : previous_(current_device) {
  current_device = device;
}

DeviceScope::~DeviceScope() { current_device = previous_; }

Device* DeviceScope::Current() { return current_device; }

}  // namespace tfd
