// TensorFlow's (numpy's) broadcasting of shapes, shared by the op
// declarations (result shapes, errors), the CPU kernels (index mapping) and
// the gradients (which axes to sum a broadcast gradient over).
//
// Shapes are aligned at their last dimension; a missing leading dimension
// counts as 1; two sizes are compatible when they are equal or one is 1.
//
//   BroadcastShapes([2,3], [3])   -> [2,3]
//   BroadcastShapes([2,1], [1,3]) -> [2,3]
//   BroadcastShapes([2,3], [4])   -> INVALID_ARGUMENT
//                                    "Incompatible shapes: [2,3] vs. [4]"
//
// Pure functions of shapes; thread-safe.
#ifndef TFD_CORE_KERNELS_BROADCAST_H_
#define TFD_CORE_KERNELS_BROADCAST_H_

#include <cstdint>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/framework/tensor_shape.h"

namespace tfd {

// The shape `a` and `b` broadcast to. INVALID_ARGUMENT
// "Incompatible shapes: [2,3] vs. [4]" (callers prefix the op's name).
absl::StatusOr<TensorShape> BroadcastShapes(const TensorShape& a, const TensorShape& b);

// The same for any number of shapes (SelectV2 broadcasts three); the error
// names the first pair that does not fit.
absl::StatusOr<TensorShape> BroadcastShapes(absl::Span<const TensorShape> shapes);

// How each input of a broadcast maps onto the output, in a compact form
// kernels can loop over: adjacent output dimensions are merged when every
// input either spans both or is broadcast along both, and size-1 output
// dimensions are dropped. The element of input k at output index
// (i_0, ..., i_{r-1}) is at offset sum_d i_d * strides[k][d]; a stride of 0
// means that input is broadcast along that dimension.
//
//   [2,3] + [3]   -> dims [2,3],  strides {[3,1], [0,1]}
//   [4,5] + [4,5] -> dims [20],   strides {[1], [1]}
//   [2,1] + [1,3] -> dims [2,3],  strides {[1,0], [0,1]}
//
// A scalar output (or one with a single element) has empty `dims`.
// Inline up to rank 6 and three inputs, as TensorShape is: every binary op
// makes a plan, and heap vectors were several mallocs of each.
using BroadcastDims = absl::InlinedVector<int64_t, 6>;
struct BroadcastPlan {
  BroadcastDims dims;
  absl::InlinedVector<BroadcastDims, 3> strides;
};

// The plan for broadcasting `inputs` to `output` (which must be what
// BroadcastShapes returned for them).
BroadcastPlan MakeBroadcastPlan(absl::Span<const TensorShape> inputs,
                                const TensorShape& output);

// What TensorFlow's BroadcastGradientArgs computes: for the broadcast of
// shapes s0 and s1, the output axes (ascending) that the gradient must be
// summed over to get back each input's size. An axis where every shape is 1
// is listed for both, as TensorFlow does.
//
//   [2,3] vs [3]   -> r0 = [],  r1 = [0]
//   [2,1] vs [1,3] -> r0 = [1], r1 = [0]
struct GradientReductionAxes {
  std::vector<int64_t> r0;
  std::vector<int64_t> r1;
};
absl::StatusOr<GradientReductionAxes> BroadcastGradientAxes(const TensorShape& s0,
                                                            const TensorShape& s1);

// The output axes along which `input` is broadcast to `output` (ascending):
// the axes a gradient of the output is summed over to give the gradient of
// `input` (before reshaping it to input's shape).
std::vector<int64_t> BroadcastReductionAxes(const TensorShape& input,
                                            const TensorShape& output);

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_BROADCAST_H_
