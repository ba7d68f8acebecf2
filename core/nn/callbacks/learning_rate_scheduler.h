// LearningRateScheduler (tf.keras.callbacks.LearningRateScheduler): at the
// start of each epoch, sets the optimizer's learning rate to
// schedule(epoch, current rate); at the end of the epoch, logs the rate as
// "lr" (tf-keras 2.x's key; Keras 3 calls it "learning_rate").
//
// The model's optimizer (Model::optimizer(), set by Compile) must have a
// constant learning rate: one built on a LearningRateSchedule already
// varies it, and setting it is refused as Keras refuses it.
//
// Thread safety: as every callback, called on the thread running Fit.
//
//   auto scheduler = std::make_shared<LearningRateScheduler>(
//       [](int epoch, double lr) -> absl::StatusOr<double> {
//         return epoch < 10 ? lr : lr * std::exp(-0.1);
//       });
//   fit_options.callbacks.push_back(scheduler);
#ifndef TFD_CORE_NN_CALLBACKS_LEARNING_RATE_SCHEDULER_H_
#define TFD_CORE_NN_CALLBACKS_LEARNING_RATE_SCHEDULER_H_

#include <cstdio>
#include <functional>

#include "absl/status/statusor.h"
#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {

class LearningRateScheduler : public Callback {
 public:
  // The new rate for `epoch` (from 0) given the current one. An error
  // stops Fit and is returned by it.
  using Schedule = std::function<absl::StatusOr<double>(int epoch, double learning_rate)>;

  // verbose > 0 prints Keras's line for each change to `out`.
  explicit LearningRateScheduler(Schedule schedule, int verbose = 0, std::FILE* out = stdout);

  // FAILED_PRECONDITION when the model has no optimizer or the optimizer
  // uses a schedule; INVALID_ARGUMENT for a negative or non-finite rate;
  // the schedule's own error.
  absl::Status OnEpochBegin(int epoch, const Logs& logs) override;
  // Adds "lr": the optimizer's current rate.
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;

 private:
  const Schedule schedule_;
  const int verbose_;
  std::FILE* const out_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_LEARNING_RATE_SCHEDULER_H_
