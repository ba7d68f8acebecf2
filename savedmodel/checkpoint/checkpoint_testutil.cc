#include "savedmodel/checkpoint/checkpoint_testutil.h"

#include <cstdlib>
#include <filesystem>
#include <random>

#include "core/autodiff/gradient_tape.h"
#include "core/framework/status.h"
#include "core/nn/activation_layer.h"
#include "core/nn/batch_normalization.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/functional.h"
#include "core/nn/input_layer.h"
#include "core/nn/losses.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"

namespace tfd {
namespace savedmodel {
namespace test {

using nn::Dense;
using nn::DenseOptions;

absl::StatusOr<std::shared_ptr<nn::Model>> MakeCnn() {
  const auto relu = nn::ConvOptions().Activation("relu");
  TFD_ASSIGN_OR_RETURN(
      auto model,
      nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 28, 28, 1}),
                            std::make_shared<nn::Conv2D>(32, std::vector<int64_t>{3}, relu),
                            std::make_shared<nn::MaxPooling2D>(),
                            std::make_shared<nn::Conv2D>(64, std::vector<int64_t>{3}, relu),
                            std::make_shared<nn::MaxPooling2D>(), std::make_shared<nn::Flatten>(),
                            std::make_shared<Dense>(64, DenseOptions().Activation("relu")),
                            std::make_shared<Dense>(10)}));
  return std::shared_ptr<nn::Model>(model);
}

absl::StatusOr<std::shared_ptr<nn::Model>> MakeFunctionalBn() {
  nn::KerasTensor x = nn::Input({8});
  TFD_ASSIGN_OR_RETURN(nn::KerasTensor h, (*std::make_shared<Dense>(16))(x));
  TFD_ASSIGN_OR_RETURN(h, (*std::make_shared<nn::BatchNormalization>())(h));
  TFD_ASSIGN_OR_RETURN(h, (*std::make_shared<nn::Activation>("relu"))(h));
  TFD_ASSIGN_OR_RETURN(nn::KerasTensor y, (*std::make_shared<Dense>(4))(h));
  TFD_ASSIGN_OR_RETURN(auto model, nn::Functional::Make({x}, {y}));
  return std::shared_ptr<nn::Model>(model);
}

absl::StatusOr<std::shared_ptr<nn::Model>> MakeNestedSequential() {
  TFD_ASSIGN_OR_RETURN(
      auto inner,
      nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 4}),
                            std::make_shared<Dense>(8, DenseOptions().Activation("relu")),
                            std::make_shared<Dense>(8)}));
  nn::KerasTensor x = nn::Input({4});
  TFD_ASSIGN_OR_RETURN(nn::KerasTensor h, (*inner)(x));
  TFD_ASSIGN_OR_RETURN(nn::KerasTensor y, (*std::make_shared<Dense>(4))(h));
  TFD_ASSIGN_OR_RETURN(auto model, nn::Functional::Make({x}, {y}));
  return std::shared_ptr<nn::Model>(model);
}

absl::StatusOr<std::shared_ptr<nn::Model>> MakeMlp() {
  TFD_ASSIGN_OR_RETURN(
      auto model,
      nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 8}),
                            std::make_shared<Dense>(16, DenseOptions().Activation("relu")),
                            std::make_shared<Dense>(4)}));
  return std::shared_ptr<nn::Model>(model);
}

Batch MakeBatch(const TensorShape& shape, int classes, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  Batch batch;
  batch.x = Tensor(DT_FLOAT, shape);
  float* x = batch.x.data<float>();
  for (int64_t i = 0; i < batch.x.NumElements(); ++i) x[i] = uniform(rng);
  batch.y = Tensor(DT_INT32, {shape.dims()[0]});
  for (int64_t i = 0; i < shape.dims()[0]; ++i) {
    batch.y.data<int32_t>()[i] = static_cast<int32_t>(rng() % classes);
  }
  return batch;
}

absl::Status Train(nn::Model& model, nn::Optimizer& optimizer, const Batch& batch, int steps) {
  nn::SparseCategoricalCrossentropy::Options options;
  options.from_logits = true;
  nn::SparseCategoricalCrossentropy loss_fn(options);
  for (int step = 0; step < steps; ++step) {
    GradientTape tape;
    TFD_ASSIGN_OR_RETURN(Tensor logits, model.Call(batch.x, /*training=*/true));
    TFD_ASSIGN_OR_RETURN(Tensor loss, loss_fn.Call(batch.y, logits));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads,
                         tape.Gradient(loss, nn::LocalVariables(model.TrainableVariables())));
    TFD_RETURN_IF_ERROR(optimizer.ApplyGradients(grads, model.TrainableVariables()));
  }
  return absl::OkStatus();
}

namespace {
std::string Bytes(const distribute::DistributedVariable& var, int component) {
  Tensor value = var.component(component).Peek().CopyTo(HostDevice()).value();
  return std::string(static_cast<const char*>(value.raw_data()), value.TotalBytes());
}
}  // namespace

std::vector<std::string> StateBytes(const nn::Model& model, const nn::Optimizer& optimizer) {
  std::vector<std::string> out;
  for (const nn::Weight& w : model.weights()) {
    for (int c = 0; c < w->num_components(); ++c) out.push_back(w->name() + "=" + Bytes(*w, c));
  }
  for (const auto& v : optimizer.variables()) {
    for (int c = 0; c < v->num_components(); ++c) out.push_back(v->name() + "=" + Bytes(*v, c));
  }
  return out;
}

std::string TempDir(const std::string& name) {
  const char* root = std::getenv("TEST_TMPDIR");
  std::filesystem::path dir = std::filesystem::path(root ? root : "/tmp") / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir.string();
}

}  // namespace test
}  // namespace savedmodel
}  // namespace tfd
