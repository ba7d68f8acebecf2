// How a Conv2D (or one of its backprops) and 2-D pooling map onto cuDNN:
// plain C++, so the mapping is built and tested in every build
// (cudnn_conv_plan_test); cudnn_conv_kernels.cc and cudnn_pool_kernels.cc
// turn it into descriptors and calls.
//
// cuDNN describes 4-D tensors as (N, C, H, W) with any element strides, so
// NHWC and NCHW buffers are used in place. Filters are another matter:
// cuDNN's filter layouts are KCRS and KRSC, and TensorFlow's is HWIO
// (R, S, C, K), so the filter is transformed first (a strided copy
// between two strided views of the same [K, C, R, S] tensor) and the
// filter gradient transformed back. The packed filter takes the data's
// layout, KRSC for NHWC and KCRS for NCHW: the configurations cuDNN's
// algorithms support throughout (TensorFlow and PyTorch never mix them).
//
// cuDNN pads symmetrically. TensorFlow's SAME padding puts an odd unit at
// the end; that is harmless when symmetric padding by `pad_before` yields
// the same output size (the extra zeros are never read), otherwise the
// input is first copied into a zeroed buffer with TensorFlow's padding
// (`pad_copy`, one strided 3-D copy) and cuDNN pads nothing. The backprop
// to the input then runs on the padded shape and the interior is copied
// out.
//
//   TFD_ASSIGN_OR_RETURN(CudnnConvPlan plan, MakeCudnnConvPlan(geometry));
#ifndef TFD_CORE_KERNELS_CUDA_CUDNN_CONV_PLAN_H_
#define TFD_CORE_KERNELS_CUDA_CUDNN_CONV_PLAN_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/kernels/conv_geometry.h"
#include "core/kernels/cuda/launch_plans.h"

namespace tfd {
namespace cuda_kernels {

// A 4-D tensor as cuDNN takes it: dims and element strides in N, C, H, W
// order.
struct NchwView {
  int n = 0, c = 0, h = 0, w = 0;
  int n_stride = 0, c_stride = 0, h_stride = 0, w_stride = 0;
  int64_t elements() const { return int64_t{n} * c * h * w; }
};

// A copy of `slices` blocks of `rows` rows of `row_elements` contiguous
// elements, from a dense source into a destination whose rows are
// `dst_row_pitch` elements apart, `dst_slice_rows` rows per block, the
// first element at `dst_offset` (cudaMemcpy3D's extent and pitches, in
// elements).
struct PadCopy {
  int64_t row_elements = 0;
  int64_t rows = 0;
  int64_t slices = 0;
  int64_t dst_row_pitch = 0;
  int64_t dst_slice_rows = 0;
  int64_t dst_offset = 0;
  int64_t dst_elements = 0;  // size of the padded buffer
};

struct CudnnConvPlan {
  NchwView input;   // what cuDNN reads: the tensor itself or its padded copy
  NchwView output;
  NchwView filter_hwio;  // TensorFlow's filter, as a strided [K, C, R, S]
  NchwView filter_packed;   // the dense copy cuDNN uses: KRSC or KCRS
  bool filter_nhwc = true;  // KRSC (CUDNN_TENSOR_NHWC), else KCRS (NCHW)
  int groups = 1;
  int pad_h = 0, pad_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  bool pad_input = false;  // copy the input through `pad_copy` first
  PadCopy pad_copy;
};

// UNIMPLEMENTED when a dimension or stride does not fit cuDNN's int.
absl::StatusOr<CudnnConvPlan> MakeCudnnConvPlan(const Conv2DGeometry& g);

// The strided copy (strided_copy.h) that packs the HWIO filter into
// `filter_packed` (to_packed), or unpacks a packed filter gradient into
// HWIO.
absl::StatusOr<StridedCopyParams> FilterCopyParams(const CudnnConvPlan& plan, bool to_packed);

struct CudnnPoolPlan {
  NchwView input;
  NchwView output;
  int window_h = 1, window_w = 1;
  int pad_h = 0, pad_w = 0;
  int stride_h = 1, stride_w = 1;
};

// UNIMPLEMENTED when the padding is asymmetric in a way symmetric padding
// cannot reproduce (SAME windows of even inputs with odd padding: a padded
// copy would need -inf for max and would change average counts), or a
// size does not fit cuDNN's int.
absl::StatusOr<CudnnPoolPlan> MakeCudnnPoolPlan(const PoolGeometry& g);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_CUDNN_CONV_PLAN_H_
