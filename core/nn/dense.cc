#include "core/nn/dense.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {

Dense::Dense(int64_t units, Options options)
    : Layer("Dense", options.layer),
      units_(units),
      options_(std::move(options)),
      activation_(GetActivation(options_.activation)) {}

absl::StatusOr<Shape> Dense::ComputeOutputShapeImpl(const std::vector<Shape>& input_shapes) const {
  if (units_ <= 0) {
    return Error(absl::StrCat(
        "Received an invalid value for `units`, expected a positive integer. Received: units=",
        units_));
  }
  TFD_RETURN_IF_ERROR(activation_.status());
  const Shape& in = input_shapes[0];
  TFD_RETURN_IF_ERROR(CheckRank(0, in, std::nullopt, 2));
  if (in.back() < 0) {
    return Error(absl::StrCat(
        "The last dimension of the inputs to a Dense layer should be defined. Found None. "
        "Full input shape received: ",
        ShapeToString(in)));
  }
  const int64_t built_dim = input_dim_.load();
  if (built_dim != kNone) TFD_RETURN_IF_ERROR(CheckAxis(0, in, -1, built_dim));
  Shape out = in;
  out.back() = units_;
  return out;
}

absl::Status Dense::BuildImpl(const std::vector<Shape>& input_shapes) {
  input_dim_.store(input_shapes[0].back());
  WeightOptions kernel;
  kernel.name = "kernel";
  kernel.shape = TensorShape({input_shapes[0].back(), units_});
  kernel.initializer = options_.kernel_initializer;
  TFD_ASSIGN_OR_RETURN(kernel_, AddWeight(kernel));
  if (options_.use_bias) {
    WeightOptions bias;
    bias.name = "bias";
    bias.shape = TensorShape({units_});
    bias.initializer = options_.bias_initializer;
    TFD_ASSIGN_OR_RETURN(bias_, AddWeight(bias));
  }
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Dense::CallImpl(const std::vector<Tensor>& inputs, bool) {
  const Tensor& x = inputs[0];
  TFD_ASSIGN_OR_RETURN(const Tensor kernel, ReadWeight(kernel_));
  Tensor y;
  if (x.rank() == 2) {
    // x: [batch, in], kernel: [in, units] -> [batch, units]
    TFD_ASSIGN_OR_RETURN(y, Execute1("MatMul", {x, kernel}));
  } else {
    // tf.tensordot over the last axis: [..., in] -> [n, in] -> [n, units]
    // -> [..., units].
    const int64_t rows = x.NumElements() / std::max<int64_t>(input_dim_, 1);
    std::vector<int32_t> flat = {static_cast<int32_t>(rows), static_cast<int32_t>(input_dim_)};
    TFD_ASSIGN_OR_RETURN(Tensor x2, Execute1("Reshape", {x, *Tensor::FromVector(flat, {2})}));
    TFD_ASSIGN_OR_RETURN(Tensor y2, Execute1("MatMul", {x2, kernel}));
    std::vector<int32_t> out_dims(x.shape().dims().begin(), x.shape().dims().end());
    out_dims.back() = static_cast<int32_t>(units_);
    TFD_ASSIGN_OR_RETURN(
        y, Execute1("Reshape",
                    {y2, *Tensor::FromVector(out_dims, {static_cast<int64_t>(out_dims.size())})}));
  }
  if (bias_ != nullptr) {
    TFD_ASSIGN_OR_RETURN(Tensor bias, ReadWeight(bias_));
    TFD_ASSIGN_OR_RETURN(y, Execute1("BiasAdd", {y, bias}));
  }
  return (*activation_)(y);
}

}  // namespace nn
}  // namespace tfd
