// ZeroPadding2D (tf.keras.layers.ZeroPadding2D), channels_last: adds rows
// of zeros above and below an image and columns of zeros left and right,
//   [n, h, w, c] -> [n, top + h + bottom, left + w + right, c]
// as one Pad op (differentiable: its gradient slices the padding off).
//
// `padding` takes Keras's three forms, written as nested lists:
//   ZeroPadding2D(2)                  (2, 2) rows and columns on each side
//   ZeroPadding2D({{1}, {2}})         (symmetric_height, symmetric_width)
//   ZeroPadding2D({{3, 3}, {1, 0}})   ((top, bottom), (left, right))
// The default is Keras's (1, 1). A malformed or negative padding is
// INVALID_ARGUMENT with Keras's message, reported when the layer is built
// or called; an input not of rank 4 is Keras's input-spec error.
// channels_first is not supported (the layer has no data_format).
//
//   auto pad = std::make_shared<ZeroPadding2D>(std::vector<std::vector<int64_t>>{{3, 3}, {3, 3}});
//   TFD_ASSIGN_OR_RETURN(Tensor y, pad->Call(x));  // [n, 224, 224, 3] -> [n, 230, 230, 3]
#ifndef TFD_CORE_NN_ZERO_PADDING2D_H_
#define TFD_CORE_NN_ZERO_PADDING2D_H_

#include <array>
#include <cstdint>
#include <vector>

#include "core/nn/layer.h"

namespace tfd {
namespace nn {

class ZeroPadding2D : public Layer {
 public:
  // The same padding on all four sides.
  explicit ZeroPadding2D(int64_t padding = 1, const LayerOptions& options = LayerOptions());
  // Two entries (height, width), each one value (symmetric) or two
  // (before, after).
  explicit ZeroPadding2D(const std::vector<std::vector<int64_t>>& padding,
                         const LayerOptions& options = LayerOptions());

  // ((top, bottom), (left, right)); meaningful only when the padding was
  // valid.
  const std::array<std::array<int64_t, 2>, 2>& padding() const { return padding_; }

 protected:
  absl::StatusOr<Tensor> CallImpl(const std::vector<Tensor>& inputs, bool training) override;
  absl::StatusOr<Shape> ComputeOutputShapeImpl(
      const std::vector<Shape>& input_shapes) const override;

 private:
  std::array<std::array<int64_t, 2>, 2> padding_ = {};
  absl::Status arguments_status_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_ZERO_PADDING2D_H_
