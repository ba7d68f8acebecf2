// Launchers of the byte-level copy and fill CUDA kernels (strided_copy.cu)
// behind the GPU array kernels (slice_kernels.cc, concat_kernels.cc):
// element sizes 1, 2, 4 and 8, whatever the dtype. n == 0 (or an empty
// shape) launches nothing; each returns the launch's error, and
// cudaErrorInvalidValue for another element size.
#ifndef TFD_CORE_KERNELS_CUDA_STRIDED_COPY_H_
#define TFD_CORE_KERNELS_CUDA_STRIDED_COPY_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/kernels/cuda/launch_plans.h"

namespace tfd {
namespace cuda_kernels {

// dst[...] = src[...] over every index of `plan` (launch_plans.h); src and
// dst point at index 0 (either may be offset into a larger buffer).
cudaError_t LaunchStridedCopy(int element_size, const StridedCopyParams& plan, const void* src,
                              void* dst, cudaStream_t stream);

// dst[i] = *value for i < n, value being one element in device memory.
cudaError_t LaunchFillElements(int element_size, const void* value, void* dst, int64_t n,
                               cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_STRIDED_COPY_H_
