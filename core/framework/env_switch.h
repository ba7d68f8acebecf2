// EnvSwitch: a process-wide on/off setting that starts from an environment
// variable, as TensorFlow's TF_DETERMINISTIC_OPS and TF_CUDNN_USE_AUTOTUNE
// do, and that code can set at any time.
//
// The variable is read on the first query, so a value set before that
// wins over the environment. "1" or "true" (any case) mean on, "0" or
// "false" off; unset or empty give the default, and any other value is
// reported on stderr and gives the default. Every method may be called
// from any thread.
//
//   EnvSwitch autotune("TF_CUDNN_USE_AUTOTUNE", true, "cuDNN autotuning");
//   if (autotune.enabled()) { ... }
#ifndef TFD_CORE_FRAMEWORK_ENV_SWITCH_H_
#define TFD_CORE_FRAMEWORK_ENV_SWITCH_H_

#include <atomic>

namespace tfd {

// `value` (may be null: unset) as an EnvSwitch reads it; `variable` and
// `what` name the setting in the report of an unrecognized value.
bool ParseEnvSwitch(const char* variable, const char* value, bool default_value,
                    const char* what);

class EnvSwitch {
 public:
  // `variable` and `what` must outlive the switch (string literals).
  constexpr EnvSwitch(const char* variable, bool default_value, const char* what)
      : variable_(variable), what_(what), default_value_(default_value) {}
  EnvSwitch(const EnvSwitch&) = delete;
  EnvSwitch& operator=(const EnvSwitch&) = delete;

  // The last value set, else the environment's (read once).
  bool enabled();
  void set(bool enabled) { setting_.store(enabled ? 1 : 0, std::memory_order_release); }

 private:
  const char* variable_;
  const char* what_;
  bool default_value_;
  // -1: not decided yet; 0 or 1: the setting.
  std::atomic<int> setting_{-1};
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_ENV_SWITCH_H_
