// EarlyStopping (tf.keras.callbacks.EarlyStopping): stops Fit when a
// monitored log value has stopped improving, with tf-keras 2.x's rules:
//
//   - "improving" means current - min_delta < best in mode min, and
//     current + min_delta > best in mode max; mode auto is max for names
//     ending in "acc", "accuracy" or "auc", min otherwise;
//   - each epoch (from start_from_epoch on) without improvement adds one to
//     a wait count reset by an improvement (that also beats the baseline,
//     when one is set); when the count reaches patience, after epoch 0,
//     the model's stop_training is set;
//   - with restore_best_weights, the weights of the best epoch (or of the
//     first watched epoch when none improved) are put back when training
//     ends, whether or not it stopped early.
// An epoch whose logs lack the monitored value is skipped with a warning
// on stderr, as Keras warns.
//
// Thread safety: as every callback, called on the thread running Fit.
//
//   EarlyStoppingOptions options;
//   options.monitor = "val_loss";
//   options.patience = 3;
//   options.restore_best_weights = true;
//   TFD_ASSIGN_OR_RETURN(auto early_stopping, EarlyStopping::Create(options));
#ifndef TFD_CORE_NN_CALLBACKS_EARLY_STOPPING_H_
#define TFD_CORE_NN_CALLBACKS_EARLY_STOPPING_H_

#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/framework/tensor.h"
#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {

struct EarlyStoppingOptions {
  std::string monitor = "val_loss";
  double min_delta = 0;          // its absolute value is used, as in Keras
  int patience = 0;
  int verbose = 0;               // > 0: print when stopping and restoring
  std::string mode = "auto";     // auto | min | max
  std::optional<double> baseline;
  bool restore_best_weights = false;
  int start_from_epoch = 0;
  std::FILE* out = stdout;       // where verbose messages go
};

class EarlyStopping : public Callback {
 public:
  // INVALID_ARGUMENT for an empty monitor, a mode other than auto/min/max,
  // or a negative patience or start_from_epoch.
  static absl::StatusOr<std::shared_ptr<EarlyStopping>> Create(EarlyStoppingOptions options);

  absl::Status OnTrainBegin(const Logs& logs) override;
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;
  // Restores the best weights (see above); FAILED_PRECONDITION when the
  // model's weights changed shape or number since they were kept.
  absl::Status OnTrainEnd(Logs& logs) override;

  // The epoch (from 0) at which training was stopped; 0 when it was not.
  int stopped_epoch() const { return stopped_epoch_; }
  // The best value seen and its epoch.
  double best() const { return best_; }
  int best_epoch() const { return best_epoch_; }
  int wait() const { return wait_; }

 private:
  explicit EarlyStopping(EarlyStoppingOptions options);
  bool IsImprovement(double current, double reference) const;
  // A copy of every weight of the model (its first component).
  std::vector<Tensor> GetWeights() const;

  const EarlyStoppingOptions options_;
  bool maximize_ = false;
  // Signed as Keras keeps it: positive when maximizing, negative otherwise.
  double min_delta_ = 0;
  int wait_ = 0;
  int stopped_epoch_ = 0;
  double best_ = 0;
  int best_epoch_ = 0;
  std::vector<Tensor> best_weights_;
  bool have_best_weights_ = false;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_EARLY_STOPPING_H_
