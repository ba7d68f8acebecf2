// The training entry points behind TFD_ModelCompile, TFD_ModelTrainStep,
// TFD_ModelFit, TFD_ModelEvaluate and TFD_ModelPredict, as Status-returning
// C++ over the handle's model and strategy.
//
// A step follows tf.distribute's custom training loop: the global batch is
// split between the replicas as a distributed dataset splits it (pieces of
// ceil(batch / replicas) rows; the last replicas may get fewer or none),
// each replica computes its per-example losses, sums them and divides by
// the GLOBAL batch size (ComputeAverageLoss), differentiates, and the
// optimizer all-reduces the gradients and applies them. The step's loss is
// the sum over replicas: the mean over the global batch.
#ifndef TFD_C_API_INTERNAL_TRAINING_H_
#define TFD_C_API_INTERNAL_TRAINING_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "c_api/internal/tfd_structs.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace capi {

absl::Status Compile(TFD_Model& model, const char* optimizer, const TFD_Options* optimizer_options,
                     const char* loss, const TFD_Options* loss_options,
                     const std::vector<std::string>& metrics);

// One training step on (x, y); the batch's mean loss.
absl::StatusOr<double> TrainStep(TFD_Model& model, const Tensor& x, const Tensor& y);

// Loss and metrics of (x, y) in inference mode, metrics accumulating; the
// batch's mean loss.
absl::StatusOr<double> TestStep(TFD_Model& model, const Tensor& x, const Tensor& y);

// Keras's logs after some steps: "loss" (the mean over the examples seen)
// then each metric.
struct Logs {
  std::vector<std::string> names;
  std::vector<double> values;
};

// Called after every step (epoch_end false) and every epoch (true); a
// false return stops training.
using FitCallback = std::function<bool(int epoch, int64_t step, bool epoch_end, const Logs& logs)>;

// `epochs` passes over `dataset`, whose elements are (x, y, ...) batches;
// metrics are reset at each epoch's start.
absl::Status Fit(TFD_Model& model, const data::DatasetPtr& dataset, int epochs,
                 const FitCallback& callback);

// One pass over `dataset` in inference mode: the logs at its end.
absl::StatusOr<Logs> Evaluate(TFD_Model& model, const data::DatasetPtr& dataset);

// The model's outputs for x, `batch_size` rows at a time (<= 0: all).
absl::StatusOr<Tensor> Predict(TFD_Model& model, const Tensor& x, int64_t batch_size);

// The compiled metrics' current values, in order.
absl::StatusOr<std::vector<double>> MetricValues(const TFD_Model& model);
absl::Status ResetMetrics(TFD_Model& model);

}  // namespace capi
}  // namespace tfd

#endif  // TFD_C_API_INTERNAL_TRAINING_H_
