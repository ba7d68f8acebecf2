#include "core/framework/device.h"

namespace tfd {
namespace {
thread_local Device* current_device = nullptr;
}  // namespace

const char* DeviceTypeName(DeviceType type) {
  return type == DeviceType::kGPU ? "GPU" : "CPU";
}

DeviceScope::DeviceScope(Device* device) : previous_(current_device) {
  current_device = device;
}

DeviceScope::~DeviceScope() { current_device = previous_; }

Device* DeviceScope::Current() { return current_device; }

}  // namespace tfd
