// Callbacks: code that Model::Fit, Evaluate and Predict call at fixed points
// of their loops (tf.keras.callbacks.Callback), plus the Logs they pass
// and the CallbackList that dispatches to several callbacks.
//
// The hooks, in the order Fit calls them:
//   OnTrainBegin
//     OnEpochBegin(epoch)
//       OnTrainBatchBegin(batch) ... OnTrainBatchEnd(batch, logs)  (per step)
//       [validation: OnTestBegin, OnTestBatch*, OnTestEnd]
//     OnEpochEnd(epoch, logs)     logs: "loss", metrics, "val_loss", ...
//   OnTrainEnd(logs)
// Evaluate calls the OnTest* hooks and Predict the OnPredict* hooks.
// Epochs and batches count from 0 as in Keras. A hook's error stops the
// loop and is returned by Fit/Evaluate/Predict.
//
// Logs passed to the end hooks are shared by every callback of the list,
// in order, and a callback may add entries (as Keras's logs dict): a
// learning-rate scheduler that adds "learning_rate" at the end of an epoch
// is seen by the History that follows it.
//
// Callbacks run on the thread that called Fit, in cross-replica context,
// never on replica threads. model() is the model being trained (set by Fit
// before OnTrainBegin; null before): a callback may read or write its
// weights, its optimizer (Model::optimizer()) and Model::set_stop_training
// (Keras's model.stop_training), which Fit checks after each batch and each
// epoch. The model outlives every hook call.
//
//   class StopAtLoss : public Callback {
//    public:
//     absl::Status OnEpochEnd(int epoch, Logs& logs) override {
//       std::optional<double> loss = logs.Get("loss");
//       if (loss && *loss < 0.1) model()->set_stop_training(true);
//       return absl::OkStatus();
//     }
//   };
#ifndef TFD_CORE_NN_CALLBACKS_CALLBACK_H_
#define TFD_CORE_NN_CALLBACKS_CALLBACK_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"

namespace tfd {
namespace nn {

class Model;

// Named scalar values, in insertion order (the order Keras's logs dict
// keeps and the progress bar and CSV files print): "loss", the compiled
// metrics in order, then "val_loss" and "val_<metric>".
class Logs {
 public:
  using Entry = std::pair<std::string, double>;

  Logs() = default;
  Logs(std::initializer_list<Entry> entries);

  // Replaces the value of `key` in place, or appends it.
  void Set(absl::string_view key, double value);
  // The value of `key`, nullopt when absent.
  std::optional<double> Get(absl::string_view key) const;
  bool Contains(absl::string_view key) const { return Get(key).has_value(); }

  const std::vector<Entry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  size_t size() const { return entries_.size(); }
  void Clear() { entries_.clear(); }

  // "loss: 0.2345 - accuracy: 0.9123", for messages and tests.
  std::string DebugString() const;

  bool operator==(const Logs& other) const { return entries_ == other.entries_; }

 private:
  std::vector<Entry> entries_;
};

// What the loop tells its callbacks before it starts (Keras's params).
struct CallbackParams {
  int epochs = 1;
  // Steps per epoch (Fit), or steps of the run (Evaluate, Predict);
  // nullopt when the dataset's length is unknown.
  std::optional<int64_t> steps;
  // 0 silent, 1 progress bar, 2 one line per epoch.
  int verbose = 1;
};

class Callback {
 public:
  virtual ~Callback() = default;

  // Called by the loop before OnTrainBegin/OnTestBegin/OnPredictBegin.
  virtual void SetParams(const CallbackParams& params) { params_ = params; }
  virtual void SetModel(Model* model) { model_ = model; }
  const CallbackParams& params() const { return params_; }
  Model* model() const { return model_; }

  // Every hook does nothing by default. Begin hooks get the logs Keras
  // passes there (empty, except OnTrain/OnTest batch begin); end hooks get
  // the shared logs they may add to.
  virtual absl::Status OnTrainBegin(const Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnTrainEnd(Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnEpochBegin(int epoch, const Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnEpochEnd(int epoch, Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnTrainBatchBegin(int64_t batch, const Logs& logs) {
    return absl::OkStatus();
  }
  // logs: the running values so far in this epoch ("loss", metrics).
  virtual absl::Status OnTrainBatchEnd(int64_t batch, Logs& logs) { return absl::OkStatus(); }

  virtual absl::Status OnTestBegin(const Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnTestEnd(Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnTestBatchBegin(int64_t batch, const Logs& logs) {
    return absl::OkStatus();
  }
  virtual absl::Status OnTestBatchEnd(int64_t batch, Logs& logs) { return absl::OkStatus(); }

  // Predict's logs are empty (Keras passes the batch outputs, which Predict
  // returns instead).
  virtual absl::Status OnPredictBegin(const Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnPredictEnd(Logs& logs) { return absl::OkStatus(); }
  virtual absl::Status OnPredictBatchBegin(int64_t batch, const Logs& logs) {
    return absl::OkStatus();
  }
  virtual absl::Status OnPredictBatchEnd(int64_t batch, Logs& logs) { return absl::OkStatus(); }

 private:
  CallbackParams params_;
  Model* model_ = nullptr;
};

// Calls each of its callbacks in order; the first error stops the dispatch
// and is returned. Callbacks are shared with the caller (who may keep a
// History to read after Fit). Null callbacks are refused by Add.
class CallbackList : public Callback {
 public:
  // INVALID_ARGUMENT for a null callback.
  absl::Status Add(std::shared_ptr<Callback> callback);
  const std::vector<std::shared_ptr<Callback>>& callbacks() const { return callbacks_; }

  void SetParams(const CallbackParams& params) override;
  void SetModel(Model* model) override;

  absl::Status OnTrainBegin(const Logs& logs) override;
  absl::Status OnTrainEnd(Logs& logs) override;
  absl::Status OnEpochBegin(int epoch, const Logs& logs) override;
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;
  absl::Status OnTrainBatchBegin(int64_t batch, const Logs& logs) override;
  absl::Status OnTrainBatchEnd(int64_t batch, Logs& logs) override;
  absl::Status OnTestBegin(const Logs& logs) override;
  absl::Status OnTestEnd(Logs& logs) override;
  absl::Status OnTestBatchBegin(int64_t batch, const Logs& logs) override;
  absl::Status OnTestBatchEnd(int64_t batch, Logs& logs) override;
  absl::Status OnPredictBegin(const Logs& logs) override;
  absl::Status OnPredictEnd(Logs& logs) override;
  absl::Status OnPredictBatchBegin(int64_t batch, const Logs& logs) override;
  absl::Status OnPredictBatchEnd(int64_t batch, Logs& logs) override;

 private:
  std::vector<std::shared_ptr<Callback>> callbacks_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_CALLBACK_H_
