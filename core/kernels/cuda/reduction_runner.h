// Runs a whole reduction on a GPU: the passes of MakeReductionPasses
// chained through accumulator-typed buffers (reduction.cu does one pass).
// Shared by the reduction ops and BiasAddGrad. Host C++, CUDA builds only.
#ifndef TFD_CORE_KERNELS_CUDA_REDUCTION_RUNNER_H_
#define TFD_CORE_KERNELS_CUDA_REDUCTION_RUNNER_H_

#include <vector>

#include "absl/status/status.h"
#include "core/device/cuda/cuda_device.h"
#include "core/framework/tensor.h"
#include "core/kernels/cuda/launch_plans.h"
#include "core/kernels/cuda/reduction.h"

namespace tfd {
namespace cuda_kernels {

// Reduces x (dtype T, on gpu) by `passes` into `out` (dtype T, on gpu,
// sized for the result). `mean` scales by 1/count. No passes copies x.
// Intermediate buffers come from the device's allocator and return to it
// once the work using them is queued. Errors: CUDA's, or
// RESOURCE_EXHAUSTED for a buffer.
template <typename T>
absl::Status RunReduction(CudaDevice* gpu, ReduceOp op, bool mean, const Tensor& x, Tensor* out,
                          const std::vector<ReductionPass>& passes);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_REDUCTION_RUNNER_H_
