#include "core/nn/metrics.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/distribute/strategy.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/losses_utils.h"

namespace tfd {
namespace nn {
namespace {

using distribute::DistributedVariable;
using internal::CastTo;
using internal::ReduceAll;

// Keras's broadcast_weights test on static shapes: a scalar, or the same
// rank with every dimension 1 or equal to the values'.
bool WeightsBroadcast(const TensorShape& weights, const TensorShape& values) {
  if (weights.rank() == 0) return true;
  if (weights.rank() != values.rank()) return false;
  for (int i = 0; i < weights.rank(); ++i) {
    if (weights.dim(i) != 1 && weights.dim(i) != values.dim(i)) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<std::shared_ptr<DistributedVariable>> Metric::AddWeight(
    const std::string& weight_name) {
  distribute::VariableSpec spec;
  spec.name = weight_name;
  spec.initial_value = []() -> absl::StatusOr<Tensor> { return Tensor::Scalar<float>(0.0f); };
  spec.trainable = false;
  spec.synchronization = distribute::VariableSynchronization::kOnRead;
  spec.aggregation = distribute::VariableAggregation::kSum;
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<DistributedVariable> v, distribute::CreateVariable(spec));
  variables_.push_back(v);
  return v;
}

absl::Status Metric::Reset() {
  for (const auto& v : variables_) TFD_RETURN_IF_ERROR(v->AssignAll(Tensor::Scalar<float>(0.0f)));
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Metric::Result() const {
  TFD_ASSIGN_OR_RETURN(Tensor value, ResultInPlace());
  return value.CopyTo(HostDevice());
}

absl::StatusOr<Tensor> Metric::ReadState(const DistributedVariable& v) {
  if (distribute::CurrentReplicaContext() != nullptr) return v.Local().Peek();
  // Across workers, the job-wide total needs every worker's part: a
  // collective (Reduce), which every worker reaches in the same order as
  // the training loops read their metrics together.
  distribute::Strategy& strategy = distribute::CurrentStrategy();
  if (strategy.num_workers() > 1 &&
      v.synchronization() == distribute::VariableSynchronization::kOnRead &&
      v.num_components() == strategy.num_local_replicas()) {
    std::vector<Tensor> parts;
    for (int i = 0; i < v.num_components(); ++i) {
      TFD_ASSIGN_OR_RETURN(Tensor part, v.component(i).Peek().CopyTo(HostDevice()));
      parts.push_back(std::move(part));
    }
    return strategy.Reduce(v.aggregation() == distribute::VariableAggregation::kMean
                               ? distribute::ReduceOp::kMean
                               : distribute::ReduceOp::kSum,
                           parts);
  }
  // One component is the whole state: read where it is.
  if (v.num_components() == 1) return v.component(0).Peek();
  return v.Value();
}

absl::Status Metric::AddToState(DistributedVariable& v, const Tensor& delta) {
  return v.Local().AssignAdd(delta);
}

absl::Status Reduce::CreateState() {
  TFD_ASSIGN_OR_RETURN(total_, AddWeight("total"));
  if (kind_ == Kind::kWeightedMean) {
    TFD_ASSIGN_OR_RETURN(count_, AddWeight("count"));
  }
  return absl::OkStatus();
}

absl::Status Reduce::UpdateValues(const Tensor& values_in, const Tensor& sample_weight) {
  if (!values_in.defined()) return InvalidArgument(name(), ": values are undefined");
  TFD_ASSIGN_OR_RETURN(Tensor values, CastTo(values_in, DT_FLOAT));
  Tensor weight;
  if (sample_weight.defined()) {
    TFD_ASSIGN_OR_RETURN(Tensor w, CastTo(sample_weight, DT_FLOAT));
    TFD_ASSIGN_OR_RETURN(AlignedInputs aligned, SqueezeOrExpandDimensions(values, Tensor(), w));
    values = aligned.y_pred;
    weight = aligned.sample_weight;
    if (WeightsBroadcast(weight.shape(), values.shape())) {
      if (weight.shape() != values.shape()) {
        TFD_ASSIGN_OR_RETURN(Tensor ones, Execute1("OnesLike", {values}));
        TFD_ASSIGN_OR_RETURN(weight, Execute1("Mul", {weight, ones}));
      }
    } else if (weight.rank() < values.rank()) {
      // Reduce the values to the weights' rank, over the trailing axes.
      std::vector<int32_t> axes;
      for (int i = weight.rank(); i < values.rank(); ++i) axes.push_back(i);
      TFD_ASSIGN_OR_RETURN(Tensor indices,
                           Tensor::FromVector<int32_t>(
                               axes, TensorShape({static_cast<int64_t>(axes.size())})));
      TFD_ASSIGN_OR_RETURN(values, Execute1(kind_ == Kind::kSum ? "Sum" : "Mean",
                                            {values, indices},
                                            AttrMap().Set("keep_dims", false)));
    }
    absl::StatusOr<Tensor> weighted = Execute1("Mul", {values, weight});
    if (!weighted.ok()) {
      return InvalidArgument(name(), ": sample_weight of shape ",
                             sample_weight.shape().DebugString(),
                             " does not fit values of shape ", values_in.shape().DebugString(),
                             ": ", weighted.status().message());
    }
    values = *weighted;
  }
  TFD_ASSIGN_OR_RETURN(Tensor value_sum, ReduceAll("Sum", values));
  TFD_RETURN_IF_ERROR(AddToState(*total_, value_sum));
  if (kind_ == Kind::kSum) return absl::OkStatus();
  Tensor num_values;
  if (weight.defined()) {
    TFD_ASSIGN_OR_RETURN(num_values, ReduceAll("Sum", weight));
  } else {
    num_values = Tensor::Scalar<float>(static_cast<float>(values.NumElements()));
  }
  return AddToState(*count_, num_values);
}

absl::StatusOr<Tensor> Reduce::ResultInPlace() const {
  TFD_ASSIGN_OR_RETURN(Tensor total, ReadState(*total_));
  if (kind_ == Kind::kSum) return total;
  TFD_ASSIGN_OR_RETURN(Tensor count, ReadState(*count_));
  // On the state's device, or the host when a reduction brought it there.
  return Execute1("DivNoNan", {total, count}, AttrMap(),
                  total.device() == count.device() ? total.device() : HostDevice());
}

absl::StatusOr<std::unique_ptr<Sum>> Sum::Create(std::string name) {
  std::unique_ptr<Sum> metric(new Sum(std::move(name)));
  TFD_RETURN_IF_ERROR(metric->CreateState());
  return metric;
}

absl::StatusOr<std::unique_ptr<Mean>> Mean::Create(std::string name) {
  std::unique_ptr<Mean> metric(new Mean(std::move(name)));
  TFD_RETURN_IF_ERROR(metric->CreateState());
  return metric;
}

absl::Status MeanMetricWrapper::Update(const Tensor& y_true, const Tensor& y_pred,
                                       const Tensor& sample_weight) {
  if (!y_true.defined() || !y_pred.defined()) {
    return InvalidArgument(name(), ": y_true and y_pred must both be given");
  }
  TFD_ASSIGN_OR_RETURN(Tensor t, CastTo(y_true, DT_FLOAT));
  TFD_ASSIGN_OR_RETURN(Tensor p, CastTo(y_pred, DT_FLOAT));
  TFD_ASSIGN_OR_RETURN(AlignedInputs aligned, SqueezeOrExpandDimensions(p, t));
  absl::StatusOr<Tensor> matches = Matches(aligned.y_true, aligned.y_pred);
  if (!matches.ok()) {
    return absl::Status(matches.status().code(),
                        absl::StrCat(name(), ": ", matches.status().message()));
  }
  return UpdateValues(*matches, sample_weight);
}

}  // namespace nn
}  // namespace tfd
