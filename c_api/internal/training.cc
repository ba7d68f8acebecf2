#include "c_api/internal/training.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "c_api/internal/compile_names.h"
#include "c_api/internal/guard.h"
#include "c_api/internal/model_scope.h"
#include "c_api/internal/ps_dataset.h"
#include "core/autodiff/gradient_tape.h"
#include "core/distribute/parameter_server_training.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/losses_utils.h"

namespace tfd {
namespace capi {
namespace {

absl::StatusOr<CompiledState*> CompiledOf(TFD_Model& model, absl::string_view where) {
  if (!model.compiled.has_value()) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the model must be compiled first (TFD_ModelCompile)"));
  }
  return &*model.compiled;
}

bool IsParameterServerJob(const TFD_Model& model) {
  return dynamic_cast<const distribute::ParameterServerTraining*>(model.strategy.get()) != nullptr;
}

absl::Status CheckBatch(absl::string_view where, const Tensor& x, const Tensor& y) {
  if (!x.defined() || !y.defined() || x.rank() < 1 || y.rank() < 1 || x.dim(0) != y.dim(0) ||
      x.dim(0) == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": x and y must be non-empty batches of the same size, got shapes ",
        x.defined() ? x.shape().DebugString() : "none", " and ",
        y.defined() ? y.shape().DebugString() : "none"));
  }
  return absl::OkStatus();
}

// Makes the compiled metrics on first use, from the first batch's shapes
// (which "accuracy" depends on), in the strategy's scope.
absl::Status EnsureMetrics(TFD_Model& model, CompiledState& compiled, const Tensor& x,
                           const Tensor& y) {
  if (compiled.metrics.size() == compiled.metric_names.size()) return absl::OkStatus();
  ModelScope scope(model);
  TFD_ASSIGN_OR_RETURN(nn::Shape y_pred, model.model->ComputeOutputShape(nn::ShapeOf(x)));
  const nn::Shape y_true = nn::ShapeOf(y);
  for (const std::string& name : compiled.metric_names) {
    TFD_ASSIGN_OR_RETURN(std::unique_ptr<nn::MeanMetricWrapper> metric,
                         MakeMetric(name, y_true, y_pred));
    compiled.metrics.push_back(std::move(metric));
  }
  return absl::OkStatus();
}

absl::StatusOr<double> ScalarValue(const Tensor& t) {
  TFD_ASSIGN_OR_RETURN(Tensor as_double, Execute1("Cast", {t}, AttrMap().Set("DstT", DT_DOUBLE)));
  if (as_double.NumElements() != 1) {
    return absl::InternalError(
        absl::StrCat("expected a scalar loss, got shape ", t.shape().DebugString()));
  }
  return as_double.data<double>()[0];
}

// Runs `replica_step(x_piece, y_piece)` on every replica with its piece of
// the global batch, and returns the sum of the replicas' scalar results.
absl::StatusOr<double> RunOnReplicas(
    TFD_Model& model, const Tensor& x, const Tensor& y,
    const std::function<absl::StatusOr<Tensor>(const Tensor&, const Tensor&)>& replica_step) {
  distribute::Strategy& strategy = *model.strategy;
  const int64_t batch = x.dim(0);
  const int n = strategy.num_replicas_in_sync();
  const int64_t piece = (batch + n - 1) / n;
  TFD_ASSIGN_OR_RETURN(
      distribute::PerReplica out,
      strategy.Run([&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
        const int64_t begin = std::min(batch, ctx.replica_id_in_sync_group() * piece);
        const int64_t end = std::min(batch, begin + piece);
        TFD_ASSIGN_OR_RETURN(Tensor xs, x.Slice(begin, end));
        TFD_ASSIGN_OR_RETURN(Tensor ys, y.Slice(begin, end));
        TFD_ASSIGN_OR_RETURN(Tensor value, replica_step(xs, ys));
        return std::vector<Tensor>{value};
      }));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> per_replica, strategy.ExperimentalLocalResults(out, 0));
  TFD_ASSIGN_OR_RETURN(Tensor total, strategy.Reduce(distribute::ReduceOp::kSum, per_replica));
  return ScalarValue(total);
}

absl::Status UpdateMetrics(CompiledState& compiled, const Tensor& y, const Tensor& y_pred) {
  for (auto& metric : compiled.metrics) TFD_RETURN_IF_ERROR(metric->Update(y, y_pred));
  return absl::OkStatus();
}

}  // namespace

absl::Status Compile(TFD_Model& model, const char* optimizer, const TFD_Options* optimizer_options,
                     const char* loss, const TFD_Options* loss_options,
                     const std::vector<std::string>& metrics) {
  TFD_RETURN_IF_ERROR(NotNull("TFD_ModelCompile", optimizer, "optimizer"));
  TFD_RETURN_IF_ERROR(NotNull("TFD_ModelCompile", loss, "loss"));
  for (const std::string& name : metrics) TFD_RETURN_IF_ERROR(CheckMetricName(name));
  static const io::JsonValue::Members kNone;
  const io::JsonValue::Members& loss_args = loss_options != nullptr ? loss_options->entries : kNone;
  CompiledState compiled;
  TFD_ASSIGN_OR_RETURN(compiled.loss, MakeLoss(loss, loss_args, nn::Reduction::kNone));
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<nn::Loss> keras_loss,
                       MakeLoss(loss, loss_args, nn::Reduction::kAuto));
  ModelScope scope(model);
  TFD_ASSIGN_OR_RETURN(compiled.optimizer,
                       MakeOptimizer(optimizer, optimizer_options != nullptr
                                                    ? optimizer_options->entries
                                                    : kNone));
  // Model::Compile remembers the strategy in scope: the model's.
  TFD_RETURN_IF_ERROR(model.model->Compile(
      {compiled.optimizer, std::move(keras_loss),
       std::vector<nn::MetricSpec>(metrics.begin(), metrics.end())}));
  compiled.metric_names = metrics;
  compiled.remote_metric_sums = std::make_shared<std::vector<double>>(2 * metrics.size(), 0.0);
  model.compiled.emplace(std::move(compiled));
  return absl::OkStatus();
}

absl::StatusOr<double> TrainStep(TFD_Model& model, const Tensor& x, const Tensor& y) {
  TFD_ASSIGN_OR_RETURN(CompiledState * compiled, CompiledOf(model, "TFD_ModelTrainStep"));
  if (IsParameterServerJob(model)) {
    return absl::UnimplementedError(
        "TFD_ModelTrainStep: under ParameterServerStrategy the steps of a custom loop run on "
        "the workers, on their own data: schedule them from the chief with a TFD_Coordinator "
        "(tfd/coordinator.h), or train with TFD_ModelFit");
  }
  TFD_RETURN_IF_ERROR(CheckBatch("TFD_ModelTrainStep", x, y));
  TFD_RETURN_IF_ERROR(EnsureMetrics(model, *compiled, x, y));
  const int64_t global_batch = x.dim(0);
  nn::Model& net = *model.model;
  // The optimizer Model::Compile kept: under mixed_float16 a
  // LossScaleOptimizer around compiled->optimizer, whose Minimize scales
  // the loss and skips non-finite steps, as in Fit.
  nn::Optimizer& optimizer = *net.optimizer();
  return RunOnReplicas(model, x, y, [&](const Tensor& xs, const Tensor& ys) -> absl::StatusOr<Tensor> {
    const std::vector<nn::Weight> trainable = net.TrainableVariables();
    GradientTape tape;
    TFD_ASSIGN_OR_RETURN(Tensor y_pred, net.Call(xs, /*training=*/true));
    TFD_ASSIGN_OR_RETURN(Tensor per_example, compiled->loss->Call(ys, y_pred));
    TFD_ASSIGN_OR_RETURN(Tensor loss, nn::ComputeAverageLoss(per_example, global_batch));
    TFD_RETURN_IF_ERROR(optimizer.Minimize(loss, trainable, tape));
    TFD_RETURN_IF_ERROR(UpdateMetrics(*compiled, ys, y_pred));
    return loss;
  });
}

absl::Status Fit(TFD_Model& model, const data::DatasetPtr& dataset, nn::FitOptions options,
                 std::shared_ptr<nn::Callback> callback) {
  TFD_RETURN_IF_ERROR(CompiledOf(model, "TFD_ModelFit").status());
  if (callback != nullptr) options.callbacks.push_back(std::move(callback));
  if (IsParameterServerJob(model)) {
    // The steps run on the workers, on the data they serve.
    return model.model->Fit(WorkerDatasetCreator(dataset), std::move(options)).status();
  }
  return model.model->Fit(dataset, std::move(options)).status();
}

absl::StatusOr<std::vector<double>> Evaluate(TFD_Model& model, const data::DatasetPtr& dataset,
                                             nn::EvaluateOptions options) {
  TFD_RETURN_IF_ERROR(CompiledOf(model, "TFD_ModelEvaluate").status());
  TFD_ASSIGN_OR_RETURN(nn::Logs logs, model.model->Evaluate(dataset, std::move(options)));
  std::vector<double> values;
  for (const nn::Logs::Entry& entry : logs.entries()) values.push_back(entry.second);
  return values;
}

absl::StatusOr<Tensor> Predict(TFD_Model& model, const Tensor& x, int64_t batch_size) {
  if (!x.defined() || x.rank() < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "TFD_ModelPredict: x must be a batch (rank >= 1), got shape ",
        x.defined() ? x.shape().DebugString() : "none"));
  }
  const int64_t rows = x.dim(0);
  const int64_t chunk = batch_size > 0 ? batch_size : std::max<int64_t>(rows, 1);
  ModelScope scope(model);
  std::vector<Tensor> outputs;
  for (int64_t begin = 0; begin < rows || (rows == 0 && outputs.empty()); begin += chunk) {
    TFD_ASSIGN_OR_RETURN(Tensor piece, x.Slice(begin, std::min(rows, begin + chunk)));
    TFD_ASSIGN_OR_RETURN(Tensor y, model.model->Call(piece, /*training=*/false));
    outputs.push_back(std::move(y));
  }
  const Tensor& first = outputs.front();
  if (outputs.size() == 1 && (first.device() == nullptr || first.device()->host_memory())) {
    return first;
  }
  // Concatenate the pieces (row-major, along dim 0) into one host tensor.
  std::vector<int64_t> dims = first.shape().dims();
  dims[0] = rows;
  TFD_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
  TFD_ASSIGN_OR_RETURN(Tensor result, Tensor::Allocate(first.dtype(), shape));
  char* dst = static_cast<char*>(result.raw_data());
  for (const Tensor& piece : outputs) {
    if (piece.device() != nullptr && !piece.device()->host_memory()) {
      TFD_RETURN_IF_ERROR(piece.device()->CopyDeviceToHost(piece.raw_data(), dst, piece.TotalBytes()));
    } else if (piece.TotalBytes() > 0) {
      std::memcpy(dst, piece.raw_data(), piece.TotalBytes());
    }
    dst += piece.TotalBytes();
  }
  return result;
}

absl::StatusOr<std::vector<double>> MetricValues(const TFD_Model& model) {
  std::vector<double> values;
  if (!model.compiled.has_value()) return values;
  if (IsParameterServerJob(model)) {
    // Keras's Mean: total / count (0 before any count).
    const std::vector<double>& sums = *model.compiled->remote_metric_sums;
    for (size_t i = 0; i + 1 < sums.size(); i += 2) {
      values.push_back(sums[i + 1] == 0 ? 0.0 : sums[i] / sums[i + 1]);
    }
    return values;
  }
  for (const auto& metric : model.compiled->metrics) {
    TFD_ASSIGN_OR_RETURN(Tensor result, metric->Result());
    TFD_ASSIGN_OR_RETURN(double value, ScalarValue(result));
    values.push_back(value);
  }
  // Metrics not made yet (no batch seen) read 0, as a fresh Keras metric.
  values.resize(model.compiled->metric_names.size(), 0.0);
  return values;
}

absl::Status ResetMetrics(TFD_Model& model) {
  if (!model.compiled.has_value()) return absl::OkStatus();
  std::vector<double>& sums = *model.compiled->remote_metric_sums;
  std::fill(sums.begin(), sums.end(), 0.0);
  for (auto& metric : model.compiled->metrics) TFD_RETURN_IF_ERROR(metric->Reset());
  return absl::OkStatus();
}

}  // namespace capi
}  // namespace tfd
