#include "core/nn/synthetic_images.h"

#include "core/data/transforms.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {

Tensor SyntheticImages(int64_t n) {
  Tensor images(DT_FLOAT, TensorShape({n, 28, 28, 1}));
  float* p = images.data<float>();
  for (int64_t i = 0; i < images.NumElements(); ++i) p[i] = static_cast<float>(i % 255) / 255.0f;
  return images;
}

Tensor SyntheticLabels(int64_t n) {
  Tensor labels(DT_INT32, TensorShape({n}));
  int32_t* p = labels.data<int32_t>();
  for (int64_t i = 0; i < n; ++i) p[i] = static_cast<int32_t>(i % 10);
  return labels;
}

absl::StatusOr<data::DatasetPtr> SyntheticImageBatches(int64_t n, int64_t batch) {
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr ds,
                       data::FromTensorSlices({SyntheticImages(n), SyntheticLabels(n)}));
  return data::Batch(ds, batch, /*drop_remainder=*/true);
}

}  // namespace nn
}  // namespace tfd
