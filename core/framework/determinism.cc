#include "core/framework/determinism.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"

namespace tfd {
namespace {

// -1: not decided yet (the environment is read on the first query);
// 0 or 1: the setting.
std::atomic<int> determinism_setting{-1};

}  // namespace

bool ParseDeterministicOpsSwitch(const char* value) {
  if (value == nullptr) return false;
  const std::string v = absl::AsciiStrToLower(value);
  if (v == "1" || v == "true") return true;
  if (v == "0" || v == "false" || v.empty()) return false;
  std::fprintf(stderr,
               "TF_DETERMINISTIC_OPS=%s is not 0, 1, false or true; op determinism stays off\n",
               value);
  return false;
}

void EnableOpDeterminism(bool enabled) {
  determinism_setting.store(enabled ? 1 : 0, std::memory_order_release);
}

bool OpDeterminismEnabled() {
  int setting = determinism_setting.load(std::memory_order_acquire);
  if (setting < 0) {
    const int from_env = ParseDeterministicOpsSwitch(std::getenv("TF_DETERMINISTIC_OPS")) ? 1 : 0;
    // A concurrent EnableOpDeterminism wins over the environment.
    int expected = -1;
    determinism_setting.compare_exchange_strong(expected, from_env, std::memory_order_acq_rel);
    setting = determinism_setting.load(std::memory_order_acquire);
  }
  return setting == 1;
}

}  // namespace tfd
