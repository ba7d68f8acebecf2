#include "tools/tfd/train_model.h"

#include <string>

#include "core/framework/status.h"
#include "core/io/file.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/functional.h"
#include "core/nn/model_from_json.h"
#include "core/nn/sequential.h"
#include "tools/tfd/fashion_models.h"

namespace tfd {
namespace cli {
namespace {

constexpr int64_t kPixels = 28 * 28;
constexpr int64_t kClasses = 10;

// The checks that make a Keras model trainable on Fashion-MNIST by tfd
// train: images in, one logit per class out.
absl::Status CheckFitsFashionMnist(const nn::Model& model, const std::string& path) {
  TFD_ASSIGN_OR_RETURN(nn::Shape image, ModelImageShape(model));
  int64_t values = 1;
  for (int64_t d : image) values = d < 0 ? -1 : values * d;
  if (values != kPixels) {
    return InvalidArgument("--model_json=", path, ": the model's input ",
                           nn::ShapeToString(image),
                           " per example does not hold one 28x28 image (784 values)");
  }
  nn::Shape batch = {nn::kNone};
  batch.insert(batch.end(), image.begin(), image.end());
  TFD_ASSIGN_OR_RETURN(nn::Shape output, model.ComputeOutputShape(batch));
  if (output.size() != 2 || output[1] != kClasses) {
    return InvalidArgument("--model_json=", path, ": the model outputs ",
                           nn::ShapeToString(output),
                           "; tfd train needs one logit per class, (None, 10)");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<nn::Shape> ModelImageShape(const nn::Model& model) {
  std::vector<nn::KerasTensor> inputs;
  if (auto* seq = dynamic_cast<const nn::Sequential*>(&model); seq != nullptr) {
    if (seq->input().defined()) inputs = {seq->input()};
  } else if (auto* fn = dynamic_cast<const nn::Functional*>(&model)) {
    inputs = fn->inputs();
  }
  if (inputs.empty()) {
    return FailedPrecondition("model '", model.name(),
                              "' does not say its input shape; give it an InputLayer");
  }
  if (inputs.size() != 1) {
    return InvalidArgument("model '", model.name(), "' has ", inputs.size(),
                           " inputs; tfd train feeds one, the image");
  }
  const nn::Shape& shape = inputs[0].shape();
  return nn::Shape(shape.begin() + 1, shape.end());
}

absl::Status ShapeImagesFor(const nn::Model& model, FashionMnistSplit* split) {
  TFD_ASSIGN_OR_RETURN(nn::Shape image, ModelImageShape(model));
  TFD_ASSIGN_OR_RETURN(split->images, ImagesShapedAs(split->images, image));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<nn::Model>> MakeTrainModel(const TrainFlags& flags) {
  // Keras's set_global_policy before the model is built; scoped, so that
  // nothing built later in the process inherits it. A model read from JSON
  // takes it as Keras's model_from_json does: layers whose config names a
  // dtype keep theirs, the model itself (whose policy decides Compile's
  // loss scaling) and layers naming none take this one.
  TFD_ASSIGN_OR_RETURN(nn::DTypePolicy policy, nn::DTypePolicy::FromName(flags.policy));
  nn::ScopedGlobalPolicy scope(policy);
  if (flags.model_json.empty()) {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Sequential> model, MakeFashionModel(flags.model));
    return std::shared_ptr<nn::Model>(std::move(model));
  }
  TFD_ASSIGN_OR_RETURN(std::string json, io::ReadFileToString(flags.model_json));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Model> model, nn::ModelFromJson(json));
  TFD_RETURN_IF_ERROR(CheckFitsFashionMnist(*model, flags.model_json));
  return model;
}

}  // namespace cli
}  // namespace tfd
