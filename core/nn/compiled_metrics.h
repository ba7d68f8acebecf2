// CompiledMetrics: the metrics that Model::Compile configures, as
// tf-keras's MetricsContainer for a single-output model.
//
// A metric is given as an object (a MeanMetricWrapper such as
// SparseCategoricalAccuracy, created under the model's strategy) or by
// Keras's name. Names resolve when the first batch is seen, from the
// shapes of the targets and predictions, as Keras resolves them:
//   "accuracy" / "acc": binary accuracy when predictions have one column,
//     sparse categorical accuracy when the targets have lower rank than the
//     predictions (or one column against several), else categorical
//     accuracy; the metric keeps the name it was given;
//   "binary_accuracy", "sparse_categorical_accuracy", "categorical_accuracy",
//   "sparse_top_k_categorical_accuracy" (k = 5): those metrics.
// Other names are INVALID_ARGUMENT.
//
// Thread safety: Build runs once in cross-replica context; Update may run
// on every replica thread at once (each metric accumulates per replica).
#ifndef TFD_CORE_NN_COMPILED_METRICS_H_
#define TFD_CORE_NN_COMPILED_METRICS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/framework/tensor.h"
#include "core/nn/metrics.h"

namespace tfd {
namespace nn {

// One entry of Compile's metrics: a Keras name or a metric object.
struct MetricSpec {
  MetricSpec(const char* name) : name(name) {}                  // NOLINT(runtime/explicit)
  MetricSpec(std::string name) : name(std::move(name)) {}       // NOLINT(runtime/explicit)
  template <typename M>
  MetricSpec(std::shared_ptr<M> metric) : metric(std::move(metric)) {}  // NOLINT

  std::string name;                             // when metric is null
  std::shared_ptr<MeanMetricWrapper> metric;    // otherwise
};

class CompiledMetrics {
 public:
  // INVALID_ARGUMENT for an entry with neither a name nor a metric, or two
  // metrics with the same name.
  static absl::StatusOr<std::unique_ptr<CompiledMetrics>> Create(std::vector<MetricSpec> specs);

  // Resolves names against the first batch's targets and predictions and
  // creates those metrics under the current strategy; a no-op once built.
  absl::Status Build(const Tensor& y_true, const Tensor& y_pred);
  bool built() const { return built_; }

  // Updates every metric with one replica's batch. Model::Fit passes no
  // sample weight: Keras applies sample and class weights to the loss and to
  // `weighted_metrics` only, not to `metrics`. FAILED_PRECONDITION before
  // Build.
  absl::Status Update(const Tensor& y_true, const Tensor& y_pred,
                      const Tensor& sample_weight = Tensor()) const;

  // The names as logged, in order (known before Build).
  const std::vector<std::string>& names() const { return names_; }
  // The metrics in order; empty before Build.
  const std::vector<std::shared_ptr<MeanMetricWrapper>>& metrics() const { return metrics_; }

 private:
  explicit CompiledMetrics(std::vector<MetricSpec> specs, std::vector<std::string> names)
      : specs_(std::move(specs)), names_(std::move(names)) {}

  std::vector<MetricSpec> specs_;
  std::vector<std::string> names_;
  std::vector<std::shared_ptr<MeanMetricWrapper>> metrics_;
  bool built_ = false;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_COMPILED_METRICS_H_
