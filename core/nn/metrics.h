// Keras metrics: the Metric base, Sum, Mean and MeanMetricWrapper (the
// accuracy metrics built on it are in metrics_accuracy.h).
//
// A metric keeps float32 state variables ("total", and "count" for means)
// created with distribute::CreateVariable as ON_READ / SUM variables, like
// Keras's add_weight for metrics: under a strategy each replica
// accumulates into its own component (inside Strategy::Run), and Result()
// in cross-replica context reads the sum over replicas
// (DistributedVariable::Value()). In a replica context Result() reads that
// replica's own state. Updates compute through Execute on the inputs'
// device.
//
// Thread safety: replicas may update one metric concurrently (each writes
// its own component); Reset() and Result() in cross-replica context must not
// race with updates.
//
//   TFD_ASSIGN_OR_RETURN(auto mean, Mean::Create());
//   TFD_RETURN_IF_ERROR(mean->Update(batch_losses));
//   TFD_ASSIGN_OR_RETURN(Tensor avg, mean->Result());   // float32 scalar
//   TFD_RETURN_IF_ERROR(mean->Reset());
#ifndef TFD_CORE_NN_METRICS_H_
#define TFD_CORE_NN_METRICS_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/distribute/distributed_variable.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace nn {

class Metric {
 public:
  virtual ~Metric() = default;
  Metric(const Metric&) = delete;
  Metric& operator=(const Metric&) = delete;

  // Keras's name: "mean", "accuracy", "sparse_categorical_accuracy", ...
  const std::string& name() const { return name_; }
  // The state variables, in creation order.
  const std::vector<std::shared_ptr<distribute::DistributedVariable>>& variables() const {
    return variables_;
  }

  // The metric's value: a float32 scalar on the host.
  absl::StatusOr<Tensor> Result() const;
  // The same value where the metric's state lives (a GPU for a model
  // there), computed without reading device memory from the host, so that
  // a training loop can read all its logs with one copy (Model's logs).
  virtual absl::StatusOr<Tensor> ResultInPlace() const = 0;
  // Sets every state variable (every component) back to 0.
  absl::Status Reset();

 protected:
  explicit Metric(std::string name) : name_(std::move(name)) {}

  // A float32 scalar state variable, 0, not trainable, ON_READ with SUM
  // aggregation, created under the current strategy.
  absl::StatusOr<std::shared_ptr<distribute::DistributedVariable>> AddWeight(
      const std::string& weight_name);
  // The state as this thread sees it (see the file comment): where the
  // state lives when one component holds it all, else on the host.
  static absl::StatusOr<Tensor> ReadState(const distribute::DistributedVariable& v);
  // Adds `delta` to this thread's component.
  static absl::Status AddToState(distribute::DistributedVariable& v, const Tensor& delta);

 private:
  const std::string name_;
  std::vector<std::shared_ptr<distribute::DistributedVariable>> variables_;
};

// Keras's Reduce: the (weighted) sum of values, optionally divided by the
// (weighted) count.
class Reduce : public Metric {
 public:
  enum class Kind { kSum, kWeightedMean };

  absl::StatusOr<Tensor> ResultInPlace() const override;

 protected:
  Reduce(Kind kind, std::string name) : Metric(std::move(name)), kind_(kind) {}
  // Creates "total" (and "count" for means).
  absl::Status CreateState();
  // values (cast to float32) times sample_weight (undefined: 1) are added to
  // total; count grows by the number of values, or by the sum of the
  // weights broadcast to the values. A weight that does not broadcast to
  // the values but has lower rank first reduces the values over their
  // trailing axes (sum for kSum, mean otherwise), as Keras does.
  // INVALID_ARGUMENT for weights that fit neither way.
  absl::Status UpdateValues(const Tensor& values, const Tensor& sample_weight);

 private:
  const Kind kind_;
  std::shared_ptr<distribute::DistributedVariable> total_;
  std::shared_ptr<distribute::DistributedVariable> count_;
};

// The weighted sum of the values (tf.keras.metrics.Sum).
class Sum : public Reduce {
 public:
  static absl::StatusOr<std::unique_ptr<Sum>> Create(std::string name = "sum");
  absl::Status Update(const Tensor& values, const Tensor& sample_weight = Tensor()) {
    return UpdateValues(values, sample_weight);
  }

 private:
  explicit Sum(std::string name) : Reduce(Kind::kSum, std::move(name)) {}
};

// The weighted mean of the values (tf.keras.metrics.Mean).
class Mean : public Reduce {
 public:
  static absl::StatusOr<std::unique_ptr<Mean>> Create(std::string name = "mean");
  absl::Status Update(const Tensor& values, const Tensor& sample_weight = Tensor()) {
    return UpdateValues(values, sample_weight);
  }

 protected:
  explicit Mean(std::string name) : Reduce(Kind::kWeightedMean, std::move(name)) {}
};

// A Mean of a per-sample match function (tf.keras.metrics.MeanMetricWrapper):
// y_true and y_pred are cast to float32 and aligned (a trailing dimension
// of 1 dropped, SqueezeOrExpandDimensions), Matches gives one value per
// sample, and those are averaged with the sample weights.
class MeanMetricWrapper : public Mean {
 public:
  // Hides Mean::Update(values, sample_weight): a wrapper takes labels and
  // predictions. Errors name the metric.
  absl::Status Update(const Tensor& y_true, const Tensor& y_pred,
                      const Tensor& sample_weight = Tensor());

 protected:
  explicit MeanMetricWrapper(std::string name) : Mean(std::move(name)) {}
  // float32 per-sample values from float32, aligned y_true and y_pred.
  virtual absl::StatusOr<Tensor> Matches(const Tensor& y_true, const Tensor& y_pred) const = 0;

  // Builds a metric of type M (with a private constructor taking Args) and
  // creates its state.
  template <typename M, typename... Args>
  static absl::StatusOr<std::unique_ptr<M>> Make(Args&&... args) {
    std::unique_ptr<M> metric(new M(std::forward<Args>(args)...));
    absl::Status s = metric->CreateState();
    if (!s.ok()) return s;
    return metric;
  }
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_METRICS_H_
