// Launcher of the Cast CUDA kernel (cast.cu), callable from host C++
// (cast_kernels.cc registers it for every supported pair).
//
// Conversions follow the CPU kernel (core/kernels/cpu/cast_kernels.cc):
// values go through the source's arithmetic type (float for the 16-bit
// types), floats convert to integers truncating toward zero, anything
// converts to bool as x != 0, and half/bfloat16 targets round to nearest
// even (Truncate=true is not supported on the GPU). Out-of-range and NaN
// float-to-integer conversions are undefined in C++; the GPU saturates
// them, the CPU does not, so they may differ. n == 0 launches nothing.
#ifndef TFD_CORE_KERNELS_CUDA_CAST_H_
#define TFD_CORE_KERNELS_CUDA_CAST_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/framework/types.h"

namespace tfd {
namespace cuda_kernels {

// Whether Cast from `src` to `dst` has a GPU kernel: float, double, half,
// bfloat16, int32, int64 and bool, each way.
bool GpuCastSupported(DataType src, DataType dst);

// y[i] = x[i] converted; `x` holds `src` elements, `y` `dst` elements.
// cudaErrorInvalidValue for an unsupported pair.
cudaError_t LaunchCast(DataType src, DataType dst, const void* x, void* y, int64_t n,
                       cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_CAST_H_
