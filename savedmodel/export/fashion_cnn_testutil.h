// The Fashion-MNIST CNN of the SavedModel tests and interop checks:
// Conv2D(32,3,relu), MaxPooling2D, Conv2D(64,3,relu), MaxPooling2D,
// Flatten, Dense(64,relu), Dense(10) on [batch,28,28,1] float32 images.
#ifndef TFD_SAVEDMODEL_EXPORT_FASHION_CNN_TESTUTIL_H_
#define TFD_SAVEDMODEL_EXPORT_FASHION_CNN_TESTUTIL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/nn/sequential.h"

namespace tfd {
namespace savedmodel {

// A fresh model, its weights initialized from the global seed `seed`.
absl::StatusOr<std::shared_ptr<nn::Sequential>> MakeFashionCnn(int64_t seed);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_EXPORT_FASHION_CNN_TESTUTIL_H_
