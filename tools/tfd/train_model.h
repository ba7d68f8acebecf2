// The model `tfd train` trains, built from its flags: one of the fashion
// models (--model) or any Keras model from model.to_json() (--model_json)
// that takes one 28x28 image per example and outputs 10 logits. The side-car
// evaluator builds the same model to restore the chief's checkpoints into,
// so it evaluates whatever training trains.
//
// Build it inside the strategy's scope to get mirrored weights.
//
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Model> model, MakeTrainModel(flags));
//   TFD_RETURN_IF_ERROR(ShapeImagesFor(*model, &train));
#ifndef TFD_TOOLS_TFD_TRAIN_MODEL_H_
#define TFD_TOOLS_TFD_TRAIN_MODEL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/nn/layer_node.h"
#include "core/nn/model.h"
#include "tools/tfd/fashion_mnist.h"
#include "tools/tfd/train_flags.h"

namespace tfd {
namespace cli {

// flags.model_json's model when given, else flags.model's built under the
// global dtype policy flags.policy (Keras's set_global_policy; the logits
// layer stays float32, fashion_models.h), so the policy's model is what
// Compile sees and wraps the optimizer for. Errors:
// INVALID_ARGUMENT for an unknown policy; reading the file (NOT_FOUND),
// ModelFromJson's (INVALID_ARGUMENT,
// UNIMPLEMENTED for a layer tfd lacks), and INVALID_ARGUMENT when the
// model does not take one image of 784 values per example or does not
// output [batch, 10].
absl::StatusOr<std::shared_ptr<nn::Model>> MakeTrainModel(const TrainFlags& flags);

// One example's input shape, without the batch: [28, 28, 1] for the
// fashion models, [28, 28] or [784] for a Keras MLP. FAILED_PRECONDITION
// when the model does not know it; INVALID_ARGUMENT for several inputs.
absl::StatusOr<nn::Shape> ModelImageShape(const nn::Model& model);

// Reshapes `split`'s images in place (views) to what `model` takes per
// example. ModelImageShape's and ImagesShapedAs's errors.
absl::Status ShapeImagesFor(const nn::Model& model, FashionMnistSplit* split);

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_TRAIN_MODEL_H_
