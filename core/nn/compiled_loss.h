// CompiledLoss: the loss that Model::Compile configures, as tf-keras's
// LossesContainer for a single-output model.
//
// Call(y_true, y_pred, sample_weight) runs in each replica's step:
//   - the loss object with its own reduction on the replica's batch;
//   - the "loss" tracker (a Mean metric, ON_READ/SUM across replicas) is
//     updated with that value weighted by the replica's batch size, so its
//     result is the per-sample mean over every batch of the epoch
//     (a SUM-reduced loss is first multiplied by the replicas in sync, as
//     Keras corrects it);
//   - the returned value, which is differentiated, is divided by
//     num_replicas_in_sync when the reduction is SUM_OVER_BATCH_SIZE (or
//     AUTO): replicas' gradients are summed, so together they make the
//     global batch's mean when the replicas' batches are equal.
// Regularization losses: tfd's layers have no regularizers yet, so there
// are none to add.
//
// Create under the strategy the model was built in (its tracker is
// created with distribute::CreateVariable). Thread safety: Call may run on
// every replica thread at once.
#ifndef TFD_CORE_NN_COMPILED_LOSS_H_
#define TFD_CORE_NN_COMPILED_LOSS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/framework/tensor.h"
#include "core/nn/losses.h"
#include "core/nn/metrics.h"

namespace tfd {
namespace nn {

class CompiledLoss {
 public:
  // INVALID_ARGUMENT for a null loss or one with Reduction::kNone (Fit
  // needs a scalar to differentiate); errors of creating the tracker.
  static absl::StatusOr<std::unique_ptr<CompiledLoss>> Create(std::shared_ptr<const Loss> loss);

  // The scaled loss to differentiate (see the file comment); updates the
  // tracker. Errors of the loss (shapes, dtypes, labels).
  absl::StatusOr<Tensor> Call(const Tensor& y_true, const Tensor& y_pred,
                              const Tensor& sample_weight = Tensor()) const;

  const Loss& loss() const { return *loss_; }
  // The "loss" metric.
  Mean& tracker() const { return *tracker_; }

 private:
  CompiledLoss(std::shared_ptr<const Loss> loss, std::unique_ptr<Mean> tracker)
      : loss_(std::move(loss)), tracker_(std::move(tracker)) {}

  std::shared_ptr<const Loss> loss_;
  std::unique_ptr<Mean> tracker_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_COMPILED_LOSS_H_
