// Launchers of the fill and broadcast-copy CUDA kernels (fill.cu), for
// Fill, OnesLike and BroadcastTo (array_kernels.cc). T is float, double,
// tfd::half, tfd::bfloat16, int32_t, int64_t or bool. n == 0 launches
// nothing; each returns the launch's error.
#ifndef TFD_CORE_KERNELS_CUDA_FILL_H_
#define TFD_CORE_KERNELS_CUDA_FILL_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/kernels/cuda/launch_plans.h"

namespace tfd {
namespace cuda_kernels {

// out[i] = value, a host value.
template <typename T>
cudaError_t LaunchFill(T value, T* out, int64_t n, cudaStream_t stream);

// out[i] = *value, a device scalar (Fill's value input lives on the GPU).
template <typename T>
cudaError_t LaunchFillFromDevice(const T* value, T* out, int64_t n, cudaStream_t stream);

// out[i] = in[xi] for the n output elements, xi from `plan`'s x strides
// (MakeBroadcastParams(in, out, out)); elements of `element_size` bytes
// (1, 2, 4 or 8, else cudaErrorInvalidValue), whatever their type.
cudaError_t LaunchBroadcastCopy(int element_size, const void* in, void* out, int64_t n,
                                const BroadcastParams& plan, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_FILL_H_
