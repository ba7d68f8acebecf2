// Device-side helpers shared by tfd's own CUDA kernels (nvcc only): the
// CUDA type behind each framework element type, the type arithmetic runs
// in, grid-stride indices and grid sizes.
#ifndef TFD_CORE_KERNELS_CUDA_GPU_LAUNCH_UTIL_H_
#define TFD_CORE_KERNELS_CUDA_GPU_LAUNCH_UTIL_H_

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <math_constants.h>

#include <algorithm>
#include <cstdint>

#include "core/framework/float16.h"

namespace tfd {
namespace cuda_kernels {

constexpr int kThreadsPerBlock = 256;
// Enough blocks to fill any current GPU several times; grid-stride loops
// cover the rest.
constexpr int64_t kMaxBlocks = 1 << 16;

// tfd::half and tfd::bfloat16 are bit-identical to CUDA's types.
template <typename T>
struct Native {
  using type = T;
};
template <>
struct Native<tfd::half> {
  using type = __half;
};
template <>
struct Native<tfd::bfloat16> {
  using type = __nv_bfloat16;
};

// Arithmetic type: float for the 16-bit types and float, double for
// double, integers their own type, as the CPU kernels compute.
template <typename T>
struct Acc {
  using type = float;
};
template <>
struct Acc<double> {
  using type = double;
};
template <>
struct Acc<int32_t> {
  using type = int32_t;
};
template <>
struct Acc<int64_t> {
  using type = int64_t;
};

template <typename A, typename T>
__device__ __forceinline__ A Load(T x) {
  return static_cast<A>(x);
}
template <typename T, typename A>
__device__ __forceinline__ T Store(A x) {
  return T(x);
}

// std::numeric_limits is host-only in device code; CUDA's constants are not.
template <typename A>
__device__ __forceinline__ A Infinity() {
  return CUDART_INF_F;
}
template <>
__device__ __forceinline__ double Infinity<double>() {
  return CUDART_INF;
}
template <typename A>
__device__ __forceinline__ A QuietNaN() {
  return CUDART_NAN_F;
}
template <>
__device__ __forceinline__ double QuietNaN<double>() {
  return CUDART_NAN;
}

__device__ __forceinline__ int64_t ThreadIndex() {
  return static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ int64_t GridSize() {
  return static_cast<int64_t>(gridDim.x) * blockDim.x;
}

inline int BlocksFor(int64_t work) {
  return static_cast<int>(std::max<int64_t>(
      1, std::min((work + kThreadsPerBlock - 1) / kThreadsPerBlock, kMaxBlocks)));
}

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_GPU_LAUNCH_UTIL_H_
