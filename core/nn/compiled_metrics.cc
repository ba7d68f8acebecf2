#include "core/nn/compiled_metrics.h"

#include <set>

#include "core/framework/status.h"
#include "core/nn/metrics_accuracy.h"
#include "core/nn/metrics_binary_accuracy.h"

namespace tfd {
namespace nn {
namespace {

// Keras's resolution of a metric name (compile_utils's _get_metric_object).
absl::StatusOr<std::shared_ptr<MeanMetricWrapper>> MetricForName(const std::string& name,
                                                                 const Tensor& y_true,
                                                                 const Tensor& y_pred) {
  if (name == "accuracy" || name == "acc") {
    const int64_t pred_last = y_pred.rank() > 0 ? y_pred.dim(y_pred.rank() - 1) : 1;
    const int64_t true_last = y_true.rank() > 0 ? y_true.dim(y_true.rank() - 1) : 1;
    const bool is_binary = pred_last == 1;
    const bool is_sparse =
        y_true.rank() < y_pred.rank() || (true_last == 1 && pred_last > 1);
    if (is_binary) return BinaryAccuracy::Create(name);
    if (is_sparse) return SparseCategoricalAccuracy::Create(name);
    return CategoricalAccuracy::Create(name);
  }
  if (name == "binary_accuracy") return BinaryAccuracy::Create();
  if (name == "sparse_categorical_accuracy") return SparseCategoricalAccuracy::Create();
  if (name == "categorical_accuracy") return CategoricalAccuracy::Create();
  if (name == "sparse_top_k_categorical_accuracy") return SparseTopKCategoricalAccuracy::Create();
  return InvalidArgument("Unknown metric function: '", name,
                         "'. Known names: accuracy, acc, binary_accuracy, sparse_categorical_accuracy, "
                         "categorical_accuracy, sparse_top_k_categorical_accuracy");
}

}  // namespace

absl::StatusOr<std::unique_ptr<CompiledMetrics>> CompiledMetrics::Create(
    std::vector<MetricSpec> specs) {
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const MetricSpec& spec : specs) {
    if (spec.metric == nullptr && spec.name.empty()) {
      return InvalidArgument("Compile: a metric entry has neither a name nor a metric");
    }
    const std::string& name = spec.metric != nullptr ? spec.metric->name() : spec.name;
    if (!seen.insert(name).second) {
      return InvalidArgument("Compile: two metrics are named '", name,
                             "'; metric names must be unique");
    }
    names.push_back(name);
  }
  return std::unique_ptr<CompiledMetrics>(new CompiledMetrics(std::move(specs), std::move(names)));
}

absl::Status CompiledMetrics::Build(const Tensor& y_true, const Tensor& y_pred) {
  if (built_) return absl::OkStatus();
  std::vector<std::shared_ptr<MeanMetricWrapper>> metrics;
  for (const MetricSpec& spec : specs_) {
    if (spec.metric != nullptr) {
      metrics.push_back(spec.metric);
      continue;
    }
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<MeanMetricWrapper> metric,
                         MetricForName(spec.name, y_true, y_pred));
    metrics.push_back(std::move(metric));
  }
  metrics_ = std::move(metrics);
  built_ = true;
  return absl::OkStatus();
}

absl::Status CompiledMetrics::Update(const Tensor& y_true, const Tensor& y_pred,
                                     const Tensor& sample_weight) const {
  if (!built_) return FailedPrecondition("CompiledMetrics::Update before Build");
  for (const auto& metric : metrics_) {
    TFD_RETURN_IF_ERROR(metric->Update(y_true, y_pred, sample_weight));
  }
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tfd
