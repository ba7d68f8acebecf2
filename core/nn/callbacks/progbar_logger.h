// ProgbarLogger: the callback that prints Keras's progress lines
// (tf.keras.callbacks.ProgbarLogger counting steps). Fit and Evaluate add
// one when verbose is not 0 and the caller gave none.
//
// Fit, verbose 1, on a terminal:
//   Epoch 1/10                              (only when epochs > 1)
//   188/188 [==============================] - 2s 9ms/step - loss: 0.2345 - accuracy: 0.9123
// redrawn after each batch; off a terminal only the finished line.
// verbose 2: one line per epoch, "188/188 - 2s - loss: 0.2345 - 2s/epoch - 9ms/step".
// The epoch line ends with the validation values ("val_loss: ...") that
// Fit adds to the epoch's logs. Evaluate and Predict called on their own
// draw a bar of their steps; the validation run inside Fit draws none.
// When the number of steps is unknown the bar shows "   42/Unknown" and
// the target becomes the steps seen when the epoch ends.
//
// The model's metrics ("loss" and the compiled metrics) print as given;
// other values are averaged over the epoch's steps, as Keras does.
#ifndef TFD_CORE_NN_CALLBACKS_PROGBAR_LOGGER_H_
#define TFD_CORE_NN_CALLBACKS_PROGBAR_LOGGER_H_

#include <memory>
#include <optional>
#include <set>
#include <string>

#include "core/nn/callbacks/callback.h"
#include "core/nn/callbacks/progbar.h"

namespace tfd {
namespace nn {

class ProgbarLogger : public Callback {
 public:
  explicit ProgbarLogger(ProgbarIo io = ProgbarIo()) : io_(WithDefaults(std::move(io))) {}

  // Names printed as given rather than averaged (Fit adds the model's
  // metric names).
  void AddStatefulMetrics(const std::set<std::string>& names);

  void SetParams(const CallbackParams& params) override;
  absl::Status OnTrainBegin(const Logs& logs) override;
  absl::Status OnEpochBegin(int epoch, const Logs& logs) override;
  absl::Status OnTrainBatchEnd(int64_t batch, Logs& logs) override;
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;
  absl::Status OnTestBegin(const Logs& logs) override;
  absl::Status OnTestBatchEnd(int64_t batch, Logs& logs) override;
  absl::Status OnTestEnd(Logs& logs) override;
  absl::Status OnPredictBegin(const Logs& logs) override;
  absl::Status OnPredictBatchEnd(int64_t batch, Logs& logs) override;
  absl::Status OnPredictEnd(Logs& logs) override;

 private:
  void Reset();
  void MaybeInit();
  void BatchUpdate(int64_t batch, const Logs& logs);
  void Finalize(const Logs& logs);

  ProgbarIo io_;
  std::set<std::string> stateful_metrics_;
  std::unique_ptr<Progbar> progbar_;
  std::optional<int64_t> target_;
  int64_t seen_ = 0;
  int verbose_ = 1;
  int epochs_ = 1;
  bool called_in_fit_ = false;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_PROGBAR_LOGGER_H_
