// Launchers of the fill CUDA kernels (fill.cu), for Fill, OnesLike and the
// like (array_kernels.cc). T is float, double, tfd::half, tfd::bfloat16,
// int32_t, int64_t or bool. n == 0 launches nothing; each returns the
// launch's error.
#ifndef TFD_CORE_KERNELS_CUDA_FILL_H_
#define TFD_CORE_KERNELS_CUDA_FILL_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tfd {
namespace cuda_kernels {

// out[i] = value, a host value.
template <typename T>
cudaError_t LaunchFill(T value, T* out, int64_t n, cudaStream_t stream);

// out[i] = *value, a device scalar (Fill's value input lives on the GPU).
template <typename T>
cudaError_t LaunchFillFromDevice(const T* value, T* out, int64_t n, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_FILL_H_
