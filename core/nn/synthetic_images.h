// Synthetic Fashion-MNIST-shaped data for benchmarks: deterministic images
// whose pixels ramp through [0, 1) and labels cycling through 0..9, so
// runs are comparable without reading the dataset.
#ifndef TFD_CORE_NN_SYNTHETIC_IMAGES_H_
#define TFD_CORE_NN_SYNTHETIC_IMAGES_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace nn {

// [n, 28, 28, 1] float32; element i is (i % 255) / 255.
Tensor SyntheticImages(int64_t n);
// [n] int32; element i is i % 10.
Tensor SyntheticLabels(int64_t n);
// (images, labels) of n examples in batches of `batch`, the last partial
// batch dropped.
absl::StatusOr<data::DatasetPtr> SyntheticImageBatches(int64_t n, int64_t batch);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_SYNTHETIC_IMAGES_H_
