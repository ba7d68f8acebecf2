#include "core/framework/env_switch.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"

namespace tfd {

bool ParseEnvSwitch(const char* variable, const char* value, bool default_value,
                    const char* what) {
  if (value == nullptr || *value == '\0') return default_value;
  const std::string v = absl::AsciiStrToLower(value);
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false") return false;
  std::fprintf(stderr, "%s=%s is not 0, 1, false or true; %s stays %s\n", variable, value, what,
               default_value ? "on" : "off");
  return default_value;
}

bool EnvSwitch::enabled() {
  int setting = setting_.load(std::memory_order_acquire);
  if (setting < 0) {
    const int from_env =
        ParseEnvSwitch(variable_, std::getenv(variable_), default_value_, what_) ? 1 : 0;
    // A concurrent set() wins over the environment.
    int expected = -1;
    setting_.compare_exchange_strong(expected, from_env, std::memory_order_acq_rel);
    setting = setting_.load(std::memory_order_acquire);
  }
  return setting == 1;
}

}  // namespace tfd
