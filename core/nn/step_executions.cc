#include "core/nn/step_executions.h"

#include <algorithm>
#include <cmath>

#include "core/framework/status.h"

namespace tfd {
namespace nn {

int64_t ExecutionSize(int steps_per_execution, std::optional<int64_t> total, int64_t done) {
  if (!total) return steps_per_execution;
  return std::min<int64_t>(steps_per_execution, *total - done);
}

absl::StatusOr<std::vector<Tensor>> ExecutionArguments(const ExecutionArgs& args) {
  std::vector<Tensor> arguments = {Tensor::Scalar<float>(static_cast<float>(args.batches))};
  if (!args.class_weights.empty()) {
    TFD_ASSIGN_OR_RETURN(
        Tensor weights,
        Tensor::FromVector<float>(args.class_weights,
                                  TensorShape({static_cast<int64_t>(args.class_weights.size())})));
    arguments.push_back(std::move(weights));
  }
  return arguments;
}

absl::StatusOr<ExecutionArgs> ParseExecutionArguments(absl::string_view step,
                                                      const std::vector<Tensor>& arguments,
                                                      bool class_weights_allowed) {
  ExecutionArgs parsed;
  const size_t most = class_weights_allowed ? 2 : 1;
  if (arguments.size() > most) {
    return InvalidArgument(step, " takes the number of batches",
                           class_weights_allowed ? " and the class weights" : "", ", got ",
                           arguments.size(), " arguments");
  }
  if (!arguments.empty()) {
    const Tensor& batches = arguments[0];
    if (batches.dtype() != DT_FLOAT || batches.NumElements() != 1) {
      return InvalidArgument(step, ": the number of batches must be a float32 scalar, got ",
                             DataTypeName(batches.dtype()), " ", batches.shape().DebugString());
    }
    // Whole numbers up to 2^24 are exact in float32.
    const float n = batches.flat<float>()[0];
    if (!(n >= 1) || n != std::floor(n) || n > (1 << 24)) {
      return InvalidArgument(step, ": the number of batches must be a whole number >= 1, got ",
                             n);
    }
    parsed.batches = static_cast<int64_t>(n);
  }
  if (arguments.size() == 2) {
    const Tensor& weights = arguments[1];
    if (weights.dtype() != DT_FLOAT || weights.rank() != 1 || weights.NumElements() == 0) {
      return InvalidArgument(step, ": the class weights must be a float32 vector, got ",
                             DataTypeName(weights.dtype()), " ", weights.shape().DebugString());
    }
    const float* w = weights.data<float>();
    parsed.class_weights.assign(w, w + weights.NumElements());
  }
  return parsed;
}

}  // namespace nn
}  // namespace tfd
