// The models `tfd train` knows, built as Keras Sequential models with
// Keras's layer names, under the caller's strategy scope:
//
//   fashion_cnn: Conv2D(32, 3, relu) -> MaxPooling2D -> Conv2D(64, 3, relu)
//                -> MaxPooling2D -> Flatten -> Dense(64, relu) -> Dense(10)
//                (the CNN of TensorFlow's distributed-training tutorials)
//   fashion_mlp: Flatten -> Dense(128, relu) -> Dense(10)
//                (the MLP of TensorFlow's basic classification tutorial)
//
// Both take float32 images [batch, 28, 28, 1] and return logits [batch, 10].
// Their layers take the global dtype policy (nn::ScopedGlobalPolicy) but
// the last, whose dtype is float32 as Keras's mixed-precision guide asks
// of a model's output: under mixed_bfloat16 the hidden layers compute in
// bfloat16 and the logits, and so the loss, stay float32.
// Initial weights come from the global seed (SetRandomSeed) as tf.random's do.
//
//   distribute::StrategyScope scope(strategy);
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Sequential> model, MakeFashionModel("fashion_cnn"));
#ifndef TFD_TOOLS_TFD_FASHION_MODELS_H_
#define TFD_TOOLS_TFD_FASHION_MODELS_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/nn/sequential.h"

namespace tfd {
namespace cli {

// INVALID_ARGUMENT for an unknown name.
absl::StatusOr<std::shared_ptr<nn::Sequential>> MakeFashionModel(const std::string& name);

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_FASHION_MODELS_H_
