// Models, data and training loops shared by the checkpoint tests: the same
// architectures as testdata/make_keras_object_graphs.py builds in tf-keras,
// with Keras's default layer names (call nn::ClearSession() first).
#ifndef TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_TESTUTIL_H_
#define TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_TESTUTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/framework/tensor.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"

namespace tfd {
namespace savedmodel {
namespace test {

// Conv2D(32,3,relu) MaxPooling2D Conv2D(64,3,relu) MaxPooling2D Flatten
// Dense(64,relu) Dense(10) on 28x28x1 images: the Fashion-MNIST CNN.
absl::StatusOr<std::shared_ptr<nn::Model>> MakeCnn();
// Input(8) Dense(16) BatchNormalization Activation(relu) Dense(4).
absl::StatusOr<std::shared_ptr<nn::Model>> MakeFunctionalBn();
// Input(4), a Sequential of Dense(8, relu) Dense(8), then Dense(4).
absl::StatusOr<std::shared_ptr<nn::Model>> MakeNestedSequential();
// Dense(16, relu) Dense(4) on 8 features.
absl::StatusOr<std::shared_ptr<nn::Model>> MakeMlp();

// A deterministic batch: inputs of `shape` in [0, 1) and int32 labels in
// [0, classes).
struct Batch {
  Tensor x;
  Tensor y;
};
Batch MakeBatch(const TensorShape& shape, int classes, uint32_t seed);

// `steps` steps of sparse softmax cross-entropy on `batch` in a custom loop
// (GradientTape, ApplyGradients).
absl::Status Train(nn::Model& model, nn::Optimizer& optimizer, const Batch& batch, int steps);

// Every weight of the model and every optimizer variable, as raw bytes in
// order, for bit-exact comparisons.
std::vector<std::string> StateBytes(const nn::Model& model, const nn::Optimizer& optimizer);

// A fresh directory under TEST_TMPDIR.
std::string TempDir(const std::string& name);

}  // namespace test
}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_TESTUTIL_H_
