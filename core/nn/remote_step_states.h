// The metric states a parameter-server step returns to the chief, added
// up there: each step reports its own batch's (total, count) of the loss
// tracker and of every compiled metric (all of them Means), so the sum
// over steps gives the running result, total / count, that Keras reads
// from the metrics it keeps on the ps tasks.
//
// Not thread-safe; one per epoch or evaluation on the chief.
#ifndef TFD_CORE_NN_REMOTE_STEP_STATES_H_
#define TFD_CORE_NN_REMOTE_STEP_STATES_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/framework/tensor.h"
#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {

// The step functions a worker serves (Model::ServeTrainSteps).
//
// "train_step" takes optional float32 arguments (step_executions.h), in
// order: the number of batches of the execution (a scalar >= 1; none: 1),
// which the worker trains one after another in the call as tf-keras's
// train_function loops steps_per_execution times, and Keras's class
// weights by class id ([n]; none: no class weights), applied to each
// batch on the worker. "test_step" takes the number of batches only.
inline constexpr char kRemoteTrainStep[] = "train_step";
inline constexpr char kRemoteTestStep[] = "test_step";

class RemoteStepStates {
 public:
  // `names`: Model::metrics_names(), the order the steps report in.
  explicit RemoteStepStates(std::vector<std::string> names);

  // Adds one step's states: 2 float32 scalars per name. INTERNAL for any
  // other count or dtype (a worker running another model).
  absl::Status Add(const std::vector<Tensor>& states);
  // Steps added so far.
  int64_t steps() const { return steps_; }
  // Keras's Mean result per name, total / count (0 for no count).
  Logs ToLogs() const;

 private:
  const std::vector<std::string> names_;
  std::vector<double> sums_;
  int64_t steps_ = 0;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_REMOTE_STEP_STATES_H_
