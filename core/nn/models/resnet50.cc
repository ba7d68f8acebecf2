#include "core/nn/models/resnet50.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/nn/activation_layer.h"
#include "core/nn/batch_normalization.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/input_layer.h"
#include "core/nn/merging.h"
#include "core/nn/pooling.h"
#include "core/nn/zero_padding2d.h"

namespace tfd {
namespace nn {
namespace {

// Keras's _obtain_input_shape floor for ResNet50.
constexpr int64_t kMinSize = 32;

LayerOptions Named(const std::string& name) {
  LayerOptions options;
  options.name = name;
  return options;
}

absl::StatusOr<KerasTensor> ConvLayer(const KerasTensor& x, int64_t filters, int64_t kernel,
                                 int64_t stride, const std::string& padding,
                                 const std::string& name) {
  return (*std::make_shared<Conv2D>(
      filters, std::vector<int64_t>{kernel},
      ConvOptions().Strides({stride}).Padding(padding).Name(name)))(x);
}

// The applications' epsilon: the fused kernel's floor, so fused and
// composed forms agree.
absl::StatusOr<KerasTensor> BatchNorm(const KerasTensor& x, const std::string& name) {
  return (*std::make_shared<BatchNormalization>(
      BatchNormalizationOptions().Axis(3).Epsilon(1.001e-5).Name(name)))(x);
}

absl::StatusOr<KerasTensor> Relu(const KerasTensor& x, const std::string& name) {
  return (*std::make_shared<Activation>("relu", Named(name)))(x);
}

// Keras's block1: a bottleneck residual block, 1x1 (stride) -> 3x3 -> 1x1
// to 4 * filters, added to the input or to its projection.
absl::StatusOr<KerasTensor> Bottleneck(const KerasTensor& x, int64_t filters, int64_t stride,
                                       bool conv_shortcut, const std::string& name) {
  KerasTensor shortcut = x;
  if (conv_shortcut) {
    TFD_ASSIGN_OR_RETURN(shortcut, ConvLayer(x, 4 * filters, 1, stride, "valid", name + "_0_conv"));
    TFD_ASSIGN_OR_RETURN(shortcut, BatchNorm(shortcut, name + "_0_bn"));
  }
  TFD_ASSIGN_OR_RETURN(KerasTensor y, ConvLayer(x, filters, 1, stride, "valid", name + "_1_conv"));
  TFD_ASSIGN_OR_RETURN(y, BatchNorm(y, name + "_1_bn"));
  TFD_ASSIGN_OR_RETURN(y, Relu(y, name + "_1_relu"));
  TFD_ASSIGN_OR_RETURN(y, ConvLayer(y, filters, 3, 1, "same", name + "_2_conv"));
  TFD_ASSIGN_OR_RETURN(y, BatchNorm(y, name + "_2_bn"));
  TFD_ASSIGN_OR_RETURN(y, Relu(y, name + "_2_relu"));
  TFD_ASSIGN_OR_RETURN(y, ConvLayer(y, 4 * filters, 1, 1, "valid", name + "_3_conv"));
  TFD_ASSIGN_OR_RETURN(y, BatchNorm(y, name + "_3_bn"));
  TFD_ASSIGN_OR_RETURN(y, (*std::make_shared<Add>(Named(name + "_add")))({shortcut, y}));
  return Relu(y, name + "_out");
}

// Keras's stack1: `blocks` bottleneck blocks, the first projecting.
absl::StatusOr<KerasTensor> Stack(KerasTensor x, int64_t filters, int blocks, int64_t stride,
                                  const std::string& name) {
  TFD_ASSIGN_OR_RETURN(x, Bottleneck(x, filters, stride, true, name + "_block1"));
  for (int i = 2; i <= blocks; ++i) {
    TFD_ASSIGN_OR_RETURN(x, Bottleneck(x, filters, 1, false, absl::StrCat(name, "_block", i)));
  }
  return x;
}

// Keras's _obtain_input_shape for weights=None, channels_last.
absl::StatusOr<Shape> InputShapeOf(const ResNet50Options& options) {
  if (!options.input_shape.has_value()) {
    return options.include_top ? Shape{224, 224, 3} : Shape{kNone, kNone, 3};
  }
  const Shape& shape = *options.input_shape;
  if (shape.size() != 3) {
    return absl::InvalidArgumentError("`input_shape` must be a tuple of three integers.");
  }
  if ((shape[0] != kNone && shape[0] < kMinSize) || (shape[1] != kNone && shape[1] < kMinSize)) {
    return absl::InvalidArgumentError(absl::StrCat("Input size must be at least ", kMinSize, "x",
                                                   kMinSize, "; Received: input_shape=",
                                                   ShapeToString(shape)));
  }
  if (options.include_top &&
      (shape[0] == kNone || shape[1] == kNone || shape[2] == kNone)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "If `include_top` is True, you should specify a static `input_shape`. Received: "
        "input_shape=",
        ShapeToString(shape)));
  }
  return shape;
}

}  // namespace

absl::StatusOr<std::shared_ptr<Functional>> ResNet50(const ResNet50Options& options) {
  if (!options.include_top && !options.pooling.empty() && options.pooling != "avg" &&
      options.pooling != "max") {
    return absl::InvalidArgumentError(absl::StrCat(
        "ResNet50: pooling must be \"\", \"avg\" or \"max\", got \"", options.pooling, "\""));
  }
  TFD_ASSIGN_OR_RETURN(Shape input_shape, InputShapeOf(options));
  const KerasTensor input = Input(input_shape);

  TFD_ASSIGN_OR_RETURN(KerasTensor x, (*std::make_shared<ZeroPadding2D>(
                                          std::vector<std::vector<int64_t>>{{3, 3}, {3, 3}},
                                          Named("conv1_pad")))(input));
  TFD_ASSIGN_OR_RETURN(x, ConvLayer(x, 64, 7, 2, "valid", "conv1_conv"));
  TFD_ASSIGN_OR_RETURN(x, BatchNorm(x, "conv1_bn"));
  TFD_ASSIGN_OR_RETURN(x, Relu(x, "conv1_relu"));
  TFD_ASSIGN_OR_RETURN(x, (*std::make_shared<ZeroPadding2D>(
                              std::vector<std::vector<int64_t>>{{1, 1}, {1, 1}},
                              Named("pool1_pad")))(x));
  TFD_ASSIGN_OR_RETURN(
      x, (*std::make_shared<MaxPooling2D>(std::vector<int64_t>{3},
                                          PoolingOptions().Strides({2}).Name("pool1_pool")))(x));

  TFD_ASSIGN_OR_RETURN(x, Stack(x, 64, 3, 1, "conv2"));
  TFD_ASSIGN_OR_RETURN(x, Stack(x, 128, 4, 2, "conv3"));
  TFD_ASSIGN_OR_RETURN(x, Stack(x, 256, 6, 2, "conv4"));
  TFD_ASSIGN_OR_RETURN(x, Stack(x, 512, 3, 2, "conv5"));

  if (options.include_top) {
    TFD_ASSIGN_OR_RETURN(x, (*std::make_shared<GlobalAveragePooling2D>(
                                GlobalPoolingOptions().Name("avg_pool")))(x));
    TFD_ASSIGN_OR_RETURN(
        x, (*std::make_shared<Dense>(
               options.classes,
               DenseOptions().Activation(options.classifier_activation).Name("predictions")))(x));
  } else if (options.pooling == "avg") {
    TFD_ASSIGN_OR_RETURN(x, (*std::make_shared<GlobalAveragePooling2D>(
                                GlobalPoolingOptions().Name("avg_pool")))(x));
  } else if (options.pooling == "max") {
    TFD_ASSIGN_OR_RETURN(x, (*std::make_shared<GlobalMaxPooling2D>(
                                GlobalPoolingOptions().Name("max_pool")))(x));
  }
  return Functional::Make({input}, {x}, Named("resnet50"));
}

}  // namespace nn
}  // namespace tfd
