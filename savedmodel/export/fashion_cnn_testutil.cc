#include "savedmodel/export/fashion_cnn_testutil.h"

#include "core/kernels/random_seed.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"

namespace tfd {
namespace savedmodel {

absl::StatusOr<std::shared_ptr<nn::Sequential>> MakeFashionCnn(int64_t seed) {
  SetRandomSeed(seed);
  using namespace nn;  // NOLINT: layer names read better unqualified here.
  ConvOptions relu = ConvOptions().Activation("relu");
  return Sequential::Make({MakeInputLayer({kNone, 28, 28, 1}),
                           std::make_shared<Conv2D>(32, std::vector<int64_t>{3}, relu),
                           std::make_shared<MaxPooling2D>(),
                           std::make_shared<Conv2D>(64, std::vector<int64_t>{3}, relu),
                           std::make_shared<MaxPooling2D>(), std::make_shared<Flatten>(),
                           std::make_shared<Dense>(64, DenseOptions().Activation("relu")),
                           std::make_shared<Dense>(10)});
}

}  // namespace savedmodel
}  // namespace tfd
