// ResNet50: the ResNet-50 v1 of tf.keras.applications.ResNet50 (weights
// = None), built as a Functional model on tfd's layers with Keras's layer
// names, so its weights line up with a tf-keras ResNet50's one for one:
//
//   input_1 -> conv1_pad (ZeroPadding2D 3) -> conv1_conv (7x7/2, 64)
//     -> conv1_bn -> conv1_relu -> pool1_pad (ZeroPadding2D 1)
//     -> pool1_pool (MaxPooling2D 3x3/2)
//     -> conv2 .. conv5: 3, 4, 6, 3 bottleneck blocks of 64, 128, 256, 512
//        filters (out 4x as many); the first block of each stage has a
//        projection shortcut (convK_block1_0_conv/_0_bn) and, from conv3 on,
//        stride 2 in its first 1x1 convolution
//     -> avg_pool (GlobalAveragePooling2D) -> predictions (Dense, softmax)
//
// Every convolution has a bias and is followed by BatchNormalization(axis
// 3, epsilon 1.001e-5). Block k of stage s names its layers
// conv<s>_block<k>_{1,2,3}_{conv,bn,relu}, _0_{conv,bn}, _add and _out.
// channels_last only. With include_top and 1000 classes the model has
// 25,636,712 parameters (25,583,592 trainable), as tf-keras's.
//
// The model is built under the caller's strategy scope and dtype policy
// (under mixed_bfloat16 every layer computes in bfloat16, the predictions
// included, as in Keras's applications). Initial weights come from the
// global seed as tf.random's do, so values differ from tf-keras's.
//
// Errors (INVALID_ARGUMENT, Keras's messages): an input_shape that is not
// three dimensions, or smaller than 32x32; an input_shape with unknown
// dimensions under include_top; a pooling other than "", "avg" or "max".
//
//   distribute::StrategyScope scope(strategy);
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<Functional> model, ResNet50());
//   TFD_ASSIGN_OR_RETURN(Tensor probabilities, model->Call(images));  // [n, 1000]
#ifndef TFD_CORE_NN_MODELS_RESNET50_H_
#define TFD_CORE_NN_MODELS_RESNET50_H_

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/nn/functional.h"

namespace tfd {
namespace nn {

// The arguments of keras.applications.ResNet50 that need no pretrained
// weights, with its defaults.
struct ResNet50Options {
  // Global pooling and the Dense classifier on top of the last stage.
  bool include_top = true;
  // One example's shape, (height, width, channels). Unset: (224, 224, 3)
  // with include_top, else (None, None, 3).
  std::optional<Shape> input_shape;
  // Without include_top: "" (the last stage's 4-D output), "avg" or "max"
  // (global pooling to [n, 2048]).
  std::string pooling;
  int64_t classes = 1000;
  // The classifier's activation by Keras name; "" for logits (Keras's None).
  std::string classifier_activation = "softmax";
};

absl::StatusOr<std::shared_ptr<Functional>> ResNet50(
    const ResNet50Options& options = ResNet50Options());

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_MODELS_RESNET50_H_
