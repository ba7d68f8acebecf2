#include "core/nn/remote_step_states.h"

#include <utility>

#include "core/framework/status.h"

namespace tfd {
namespace nn {

RemoteStepStates::RemoteStepStates(std::vector<std::string> names)
    : names_(std::move(names)), sums_(2 * names_.size(), 0.0) {}

absl::Status RemoteStepStates::Add(const std::vector<Tensor>& states) {
  if (states.size() != sums_.size()) {
    return Internal("a step returned ", states.size(), " metric states, expected ", sums_.size(),
                    " (total and count of ", names_.size(), " metrics)");
  }
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i].dtype() != DT_FLOAT || states[i].NumElements() != 1) {
      return Internal("metric state ", i, " of a step is not a float32 scalar");
    }
  }
  // Summed in double: an epoch adds thousands of float totals.
  for (size_t i = 0; i < states.size(); ++i) sums_[i] += states[i].flat<float>()[0];
  ++steps_;
  return absl::OkStatus();
}

Logs RemoteStepStates::ToLogs() const {
  Logs logs;
  for (size_t m = 0; m < names_.size(); ++m) {
    const double count = sums_[2 * m + 1];
    logs.Set(names_[m], count == 0 ? 0.0f : static_cast<float>(sums_[2 * m] / count));
  }
  return logs;
}

}  // namespace nn
}  // namespace tfd
