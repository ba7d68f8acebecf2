// TFD_SetDefaultDevice: the process's default device (core/framework/
// placement.h) from C.
#include <string>

#include "absl/strings/str_cat.h"
#include "c_api/internal/guard.h"
#include "core/framework/placement.h"
#include "tfd/device.h"

extern "C" {

void TFD_SetDefaultDevice(const char* name, TF_Status* status) {
  using tfd::capi::GuardVoid;
  GuardVoid("TFD_SetDefaultDevice", status, [&]() -> absl::Status {
    const std::string value = name == nullptr ? "" : name;
    absl::StatusOr<tfd::Device*> device = tfd::ResolveDefaultDeviceSetting(
        value, absl::StrCat("TFD_SetDefaultDevice(\"", value, "\")"));
    // A device the process does not have is a bad argument to the caller,
    // as much as a name that does not parse.
    if (device.status().code() == absl::StatusCode::kNotFound) {
      return absl::InvalidArgumentError(device.status().message());
    }
    if (!device.ok()) return device.status();
    tfd::SetDefaultDevice(*device);
    return absl::OkStatus();
  });
}

}  // extern "C"
