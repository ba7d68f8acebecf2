// BinaryAccuracy (tf.keras.metrics.BinaryAccuracy): how often predictions
// thresholded at `threshold` equal binary labels, averaged over the last
// axis per sample and then over samples, as Keras's binary_accuracy.
// It is what Compile's "accuracy" means for one-column predictions.
//
//   TFD_ASSIGN_OR_RETURN(auto acc, BinaryAccuracy::Create());
//   TFD_RETURN_IF_ERROR(acc->Update(labels, probabilities));   // [b, 1] each
#ifndef TFD_CORE_NN_METRICS_BINARY_ACCURACY_H_
#define TFD_CORE_NN_METRICS_BINARY_ACCURACY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/nn/metrics.h"

namespace tfd {
namespace nn {

class BinaryAccuracy : public MeanMetricWrapper {
 public:
  static absl::StatusOr<std::unique_ptr<BinaryAccuracy>> Create(
      std::string name = "binary_accuracy", double threshold = 0.5) {
    return Make<BinaryAccuracy>(std::move(name), threshold);
  }
  double threshold() const { return threshold_; }

 protected:
  // mean(y_true == (y_pred > threshold), axis=-1), float32.
  absl::StatusOr<Tensor> Matches(const Tensor& y_true, const Tensor& y_pred) const override;

 private:
  friend class MeanMetricWrapper;
  BinaryAccuracy(std::string name, double threshold)
      : MeanMetricWrapper(std::move(name)), threshold_(threshold) {}
  const double threshold_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_METRICS_BINARY_ACCURACY_H_
