#include "core/framework/determinism.h"

#include "core/framework/env_switch.h"

namespace tfd {
namespace {

EnvSwitch& DeterminismSwitch() {
  static EnvSwitch* s = new EnvSwitch("TF_DETERMINISTIC_OPS", false, "op determinism");
  return *s;
}

}  // namespace

bool ParseDeterministicOpsSwitch(const char* value) {
  return ParseEnvSwitch("TF_DETERMINISTIC_OPS", value, false, "op determinism");
}

void EnableOpDeterminism(bool enabled) { DeterminismSwitch().set(enabled); }

bool OpDeterminismEnabled() { return DeterminismSwitch().enabled(); }

}  // namespace tfd
