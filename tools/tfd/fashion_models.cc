#include "tools/tfd/fashion_models.h"

#include "core/framework/status.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"

namespace tfd {
namespace cli {
namespace {

using nn::Layer;

std::shared_ptr<Layer> Input() { return nn::MakeInputLayer({nn::kNone, 28, 28, 1}); }

// The output layer: float32 whatever the global policy, so that mixed
// precision never rounds the logits the loss reads (Keras's advice; under
// float32 it is the layer it always was).
std::shared_ptr<Layer> Logits() {
  return std::make_shared<nn::Dense>(10, nn::DenseOptions().Dtype(DT_FLOAT));
}

absl::StatusOr<std::shared_ptr<nn::Sequential>> FashionCnn() {
  const nn::ConvOptions relu = nn::ConvOptions().Activation("relu");
  return nn::Sequential::Make(
      {Input(), std::make_shared<nn::Conv2D>(32, std::vector<int64_t>{3}, relu),
       std::make_shared<nn::MaxPooling2D>(),
       std::make_shared<nn::Conv2D>(64, std::vector<int64_t>{3}, relu),
       std::make_shared<nn::MaxPooling2D>(), std::make_shared<nn::Flatten>(),
       std::make_shared<nn::Dense>(64, nn::DenseOptions().Activation("relu")), Logits()});
}

absl::StatusOr<std::shared_ptr<nn::Sequential>> FashionMlp() {
  return nn::Sequential::Make(
      {Input(), std::make_shared<nn::Flatten>(),
       std::make_shared<nn::Dense>(128, nn::DenseOptions().Activation("relu")), Logits()});
}

}  // namespace

absl::StatusOr<std::shared_ptr<nn::Sequential>> MakeFashionModel(const std::string& name) {
  if (name == "fashion_cnn") return FashionCnn();
  if (name == "fashion_mlp") return FashionMlp();
  return InvalidArgument("unknown model '", name, "' (fashion_cnn or fashion_mlp)");
}

}  // namespace cli
}  // namespace tfd
