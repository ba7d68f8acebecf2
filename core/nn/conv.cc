#include "core/nn/conv.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/conv_utils.h"

namespace tfd {
namespace nn {
namespace {

Tensor Int32Vector(const std::vector<int64_t>& v) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  for (size_t i = 0; i < v.size(); ++i) t.data<int32_t>()[i] = static_cast<int32_t>(v[i]);
  return t;
}

bool Contains(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

int64_t MaxOf(const std::vector<int64_t>& v) { return *std::max_element(v.begin(), v.end()); }

}  // namespace

Conv::Conv(const char* class_name, int rank, int64_t filters,
           const std::vector<int64_t>& kernel_size, ConvOptions options)
    : Layer(class_name, options.layer),
      rank_(rank),
      filters_(filters),
      options_(std::move(options)),
      kernel_size_arg_(kernel_size),
      activation_(GetActivation(options_.activation)) {
  // Argument errors are kept and reported when the layer is first used, as
  // constructors cannot return a Status.
  arguments_status_ = [&]() -> absl::Status {
    TFD_ASSIGN_OR_RETURN(kernel_size_, NormalizeTuple(kernel_size_arg_, rank_, "kernel_size"));
    TFD_ASSIGN_OR_RETURN(strides_, NormalizeTuple(options_.strides, rank_, "strides"));
    TFD_ASSIGN_OR_RETURN(dilation_rate_,
                         NormalizeTuple(options_.dilation_rate, rank_, "dilation_rate"));
    TFD_ASSIGN_OR_RETURN(padding_, NormalizePadding(options_.padding));
    return ValidateArguments();
  }();
}

absl::Status Conv::ValidateArguments() const {
  if (filters_ <= 0) {
    return Error(absl::StrCat(
        "Invalid value for argument `filters`. Expected a strictly positive value. Received "
        "filters=",
        filters_, "."));
  }
  if (Contains(kernel_size_, 0) || MaxOf(kernel_size_) < 0) {
    return Error(absl::StrCat("The argument `kernel_size` cannot contain 0(s). Received: ",
                              TupleString(kernel_size_)));
  }
  if (Contains(strides_, 0) || MaxOf(strides_) < 0) {
    return Error(absl::StrCat("The argument `strides` cannot contains 0(s). Received: ",
                              TupleString(strides_)));
  }
  if (padding_ == "causal" && rank_ != 1) {
    return Error("Causal padding is only supported for `Conv1D`and `SeparableConv1D`.");
  }
  if (MaxOf(strides_) > 1 && MaxOf(dilation_rate_) > 1) {
    return Error(absl::StrCat(
        "`strides > 1` not supported in conjunction with `dilation_rate > 1`. Received: strides=",
        TupleString(strides_), " and dilation_rate=", TupleString(dilation_rate_)));
  }
  if (options_.groups != 1) {
    return Unimplemented(name(), ": groups=", options_.groups,
                         " (grouped convolution) is not supported");
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> Conv::ComputeOutputShapeImpl(const std::vector<Shape>& input_shapes) const {
  TFD_RETURN_IF_ERROR(arguments_status_);
  TFD_RETURN_IF_ERROR(activation_.status());
  const Shape& in = input_shapes[0];
  TFD_RETURN_IF_ERROR(CheckRank(0, in, std::nullopt, rank_ + 2));
  if (static_cast<int>(in.size()) > rank_ + 2) {
    return Unimplemented(name(), ": inputs with several batch dimensions (rank ", in.size(),
                         ") are not supported");
  }
  if (in.back() < 0) {
    return Error(absl::StrCat(
        "The channel dimension of the inputs should be defined. The input_shape received is ",
        ShapeToString(in),
        ", where axis -1 (0-based) is the channel dimension, which found to "
        "be `None`."));
  }
  const int64_t channels = input_channels_.load();
  if (channels != kNone) TFD_RETURN_IF_ERROR(CheckAxis(0, in, -1, channels));
  Shape out = {in[0]};
  for (int i = 0; i < rank_; ++i) {
    const int64_t length =
        ConvOutputLength(in[1 + i], kernel_size_[i], padding_, strides_[i], dilation_rate_[i]);
    if (in[1 + i] >= 0 && length < 0) {
      return Error(absl::StrCat(
          "One of the dimensions in the output is <= 0 due to downsampling in ", name(),
          ". Consider increasing the input size. Received input shape ", ShapeToString(in),
          " which would produce output shape with a zero or negative value in a dimension."));
    }
    out.push_back(length);
  }
  out.push_back(filters_);
  return out;
}

absl::Status Conv::BuildImpl(const std::vector<Shape>& input_shapes) {
  const int64_t channels = input_shapes[0].back();
  std::vector<int64_t> kernel_shape = kernel_size_;
  kernel_shape.push_back(channels);
  kernel_shape.push_back(filters_);
  WeightOptions kernel;
  kernel.name = "kernel";
  kernel.shape = TensorShape(kernel_shape);
  kernel.initializer = options_.kernel_initializer;
  TFD_ASSIGN_OR_RETURN(kernel_, AddWeight(kernel));
  if (options_.use_bias) {
    WeightOptions bias;
    bias.name = "bias";
    bias.shape = TensorShape({filters_});
    bias.initializer = options_.bias_initializer;
    TFD_ASSIGN_OR_RETURN(bias_, AddWeight(bias));
  }
  input_channels_.store(channels);
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Conv::Convolve(const Tensor& x, const Tensor& kernel) const {
  const std::string padding = absl::AsciiStrToUpper(padding_);
  if (rank_ == 2) {
    // x: [n, h, w, c], kernel: [kh, kw, c, f] -> [n, h', w', f]
    return Execute1("Conv2D", {x, kernel},
                    AttrMap()
                        .Set("strides", {1, strides_[0], strides_[1], 1})
                        .Set("dilations", {1, dilation_rate_[0], dilation_rate_[1], 1})
                        .Set("padding", padding));
  }
  // tf.nn.conv1d: x [n, w, c] -> [n, 1, w, c]; kernel [k, c, f] ->
  // [1, k, c, f]; Conv2D; [n, 1, w', f] -> [n, w', f].
  const int64_t n = x.dim(0), w = x.dim(1), c = x.dim(2), k = kernel_size_[0];
  TFD_ASSIGN_OR_RETURN(Tensor x4, Execute1("Reshape", {x, Int32Vector({n, 1, w, c})}));
  TFD_ASSIGN_OR_RETURN(Tensor k4, Execute1("Reshape", {kernel, Int32Vector({1, k, c, filters_})}));
  AttrMap attrs = AttrMap()
                      .Set("strides", {1, 1, strides_[0], 1})
                      .Set("dilations", {1, 1, dilation_rate_[0], 1});
  if (padding_ == "causal") {
    // Keras pads dilation * (k - 1) zeros in front of the sequence, then
    // convolves with VALID padding: the same as this explicit padding.
    attrs.Set("padding", "EXPLICIT")
        .Set("explicit_paddings", {0, 0, 0, 0, dilation_rate_[0] * (k - 1), 0, 0, 0});
  } else {
    attrs.Set("padding", padding);
  }
  TFD_ASSIGN_OR_RETURN(Tensor y4, Execute1("Conv2D", {x4, k4}, attrs));
  return Execute1("Reshape", {y4, Int32Vector({n, y4.dim(2), filters_})});
}

absl::StatusOr<Tensor> Conv::CallImpl(const std::vector<Tensor>& inputs, bool) {
  TFD_ASSIGN_OR_RETURN(Tensor kernel, ReadWeight(kernel_));
  TFD_ASSIGN_OR_RETURN(Tensor y, Convolve(inputs[0], kernel));
  if (bias_ != nullptr) {
    TFD_ASSIGN_OR_RETURN(Tensor bias, ReadWeight(bias_));
    TFD_ASSIGN_OR_RETURN(y, Execute1("BiasAdd", {y, bias}));
  }
  return (*activation_)(y);
}

}  // namespace nn
}  // namespace tfd
