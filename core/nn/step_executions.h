// Executions: how the training loops cut their steps into calls of
// steps_per_execution batches (Keras's steps_per_execution), and how a
// parameter-server job tells a worker the size of the execution it
// schedules there.
//
// Fit, Evaluate and Predict on a local strategy run one Strategy::Run per
// execution; under ParameterServerStrategy the chief schedules one
// "train_step" or "test_step" closure per execution (remote_step_states.h)
// with the arguments made here, and the worker reads them back with
// ParseExecutionArguments and runs that many batches in the one call, as
// tf-keras's train_function and test_function loop steps_per_execution
// times. The callbacks see executions: batch-begin at an execution's first
// step, batch-end at its last.
//
// Thread safety: plain functions.
//
//   const int64_t n = ExecutionSize(steps_per_execution, steps, step);
//   TFD_ASSIGN_OR_RETURN(std::vector<Tensor> args, ExecutionArguments({n, {}}));
//   ps.Schedule(kRemoteTestStep, iterator, std::move(args));
#ifndef TFD_CORE_NN_STEP_EXECUTIONS_H_
#define TFD_CORE_NN_STEP_EXECUTIONS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace nn {

// The batches of the next execution: steps_per_execution, or what is left
// of a known number of steps `total` after `done` (at least 1 while
// done < total).
int64_t ExecutionSize(int steps_per_execution, std::optional<int64_t> total, int64_t done);

// What a remote step is told about its execution.
struct ExecutionArgs {
  int64_t batches = 1;
  // Keras's class weights by class id, for "train_step" only; empty: none.
  std::vector<float> class_weights;
};

// The closure arguments for `args`, in order: the batch count (a float32
// scalar, as tf-keras feeds steps_per_execution), then the class weights
// ([n] float32) when there are any.
absl::StatusOr<std::vector<Tensor>> ExecutionArguments(const ExecutionArgs& args);

// The inverse, on the worker running `step` ("train_step", "test_step",
// for the messages): no arguments is one batch. INVALID_ARGUMENT for more
// than two arguments, class weights where `class_weights_allowed` is
// false, a count that is not a whole float32 scalar in [1, 2^24], or
// class weights that are not a non-empty float32 vector.
absl::StatusOr<ExecutionArgs> ParseExecutionArguments(absl::string_view step,
                                                      const std::vector<Tensor>& arguments,
                                                      bool class_weights_allowed);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_STEP_EXECUTIONS_H_
