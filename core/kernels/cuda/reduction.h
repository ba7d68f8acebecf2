// Launcher of the reduction CUDA kernel (reduction.cu): one pass of Sum,
// Max, Min or Prod over a row-major [outer, reduce, inner] view
// (launch_plans.h), callable from host C++ (reduction_kernels.cc chains the
// passes of MakeReductionPasses and registers Sum, Mean, Max, Min, Prod).
//
// In and Out are float, double, tfd::half or tfd::bfloat16, or the
// accumulator (float; double for double) for the intermediate results of
// multi-pass reductions, so 16-bit values are rounded once, at the end.
// Every output element is op over `reduce` inputs, or over one run of
// them when the pass is chunked (the identity when reduce == 0: 0, -inf,
// +inf, 1), times `scale` (1/count for Mean's last pass, else 1). `out`
// holds pass.OutputElements(). Max and Min propagate NaN. Returns the
// launch's error.
#ifndef TFD_CORE_KERNELS_CUDA_REDUCTION_H_
#define TFD_CORE_KERNELS_CUDA_REDUCTION_H_

#include <cuda_runtime_api.h>

#include "core/kernels/cuda/launch_plans.h"

namespace tfd {
namespace cuda_kernels {

enum class ReduceOp { kSum, kMax, kMin, kProd };

template <typename In, typename Out>
cudaError_t LaunchReducePass(ReduceOp op, const In* in, Out* out, const ReductionPass& pass,
                             double scale, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_REDUCTION_H_
