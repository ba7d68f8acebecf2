#include "core/framework/device_access.h"

#include <execinfo.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "core/framework/device.h"

namespace tfd {
namespace {

thread_local const Device* accessible_device = nullptr;

// Any address unlike a real Device's will do; it is only compared.
const char any_device_marker = 0;

// TFD_DEVICE_READ_CHECK=warn reports each bad read and goes on (the fake
// GPU is host memory, so it can), to list all of a test's bad reads in one
// run; anything else aborts at the first.
bool WarnOnly() {
  static const bool warn = [] {
    const char* v = std::getenv("TFD_DEVICE_READ_CHECK");
    return v != nullptr && std::strcmp(v, "warn") == 0;
  }();
  return warn;
}

}  // namespace

const Device* const DeviceAccessScope::kAnyDevice =
    reinterpret_cast<const Device*>(&any_device_marker);

DeviceAccessScope::DeviceAccessScope(const Device* device)
    : previous_(accessible_device) {
  accessible_device = device;
}

DeviceAccessScope::~DeviceAccessScope() { accessible_device = previous_; }

const Device* DeviceAccessScope::Current() { return accessible_device; }

void CheckHostReadable(const Device* device, const char* what) {
  if (device == nullptr || device->host_memory()) return;
  if (accessible_device == device || accessible_device == DeviceAccessScope::kAnyDevice) {
    return;
  }
  std::fprintf(stderr,
               "tfd: %s on a tensor in %s memory, outside a kernel on that device "
               "and outside a device copy. On a real GPU this reads device memory from "
               "the host (a crash or garbage): copy the tensor to the host first "
               "(Tensor::CopyTo(HostDevice())). See Note [Device reads] in "
               "core/framework/device_access.h. Stack:\n",
               what, device->name().c_str());
  void* frames[48];
  const int n = backtrace(frames, 48);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  if (!WarnOnly()) std::abort();
}

}  // namespace tfd
