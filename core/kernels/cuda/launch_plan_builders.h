// Host-side builders of the GPU launch plans (launch_plans.h) from tensor
// shapes. Plain C++; used by the GPU kernels' registration code and tested
// without a GPU.
#ifndef TFD_CORE_KERNELS_CUDA_LAUNCH_PLAN_BUILDERS_H_
#define TFD_CORE_KERNELS_CUDA_LAUNCH_PLAN_BUILDERS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "core/framework/tensor_shape.h"
#include "core/kernels/cuda/launch_plans.h"

namespace tfd {
namespace cuda_kernels {

// The plan for z = f(x, y) with x, y broadcast to `out` (which must be
// BroadcastShapes(x, y)). UNIMPLEMENTED when the merged output has more
// than kMaxBroadcastDims dimensions.
absl::StatusOr<BroadcastParams> MakeBroadcastParams(const TensorShape& x, const TensorShape& y,
                                                    const TensorShape& out);

// The plan for out = transpose(x, perm) as a gather (kGeneral: out's
// dims, x's strides permuted), for the broadcast-copy kernel. Size-1 axes
// are dropped. UNIMPLEMENTED past kMaxBroadcastDims dimensions; perm must
// be a permutation of x's axes (the op's shape function checked it).
absl::StatusOr<BroadcastParams> MakeTransposeParams(const TensorShape& x,
                                                   const std::vector<int64_t>& perm);

// The plan of a strided copy of `shape` (see StridedCopyParams).
// UNIMPLEMENTED when more than kMaxBroadcastDims dimensions remain after
// merging.
absl::StatusOr<StridedCopyParams> MakeStridedCopyParams(const std::vector<int64_t>& shape,
                                                       const std::vector<int64_t>& src_strides,
                                                       const std::vector<int64_t>& dst_strides);

// The passes that reduce `input` over the axes marked in `reduced` (one
// flag per dimension), in execution order. Empty when nothing is reduced
// (or only size-1 axes are): the result is then a copy of the input. Long
// reductions into few outputs come as a pass over runs of the axis
// (ReductionPass::chunk) followed by one over the runs' results.
std::vector<ReductionPass> MakeReductionPasses(const TensorShape& input,
                                               const std::vector<bool>& reduced);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_LAUNCH_PLAN_BUILDERS_H_
