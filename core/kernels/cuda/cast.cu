// Cast on the GPU: one elementwise kernel per (source, destination) pair,
// chosen by two nested switches over the dtypes.
#include <type_traits>

#include "core/kernels/cuda/cast.h"
#include "core/kernels/cuda/gpu_launch_util.h"

namespace tfd {
namespace cuda_kernels {
namespace {

template <typename S, typename D>
__device__ __forceinline__ D Convert(S s) {
  using A = typename Acc<S>::type;  // the source's arithmetic type
  const A a = Load<A>(s);
  if constexpr (std::is_same_v<D, bool>) {
    return a != A(0);
  } else if constexpr (std::is_same_v<D, __half> || std::is_same_v<D, __nv_bfloat16>) {
    return D(static_cast<float>(a));
  } else {
    return static_cast<D>(a);
  }
}

template <typename S, typename D>
__global__ void CastKernel(const S* __restrict__ x, D* __restrict__ y, int64_t n) {
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) y[i] = Convert<S, D>(x[i]);
}

template <typename S, typename D>
cudaError_t Launch(const void* x, void* y, int64_t n, cudaStream_t stream) {
  using NS = typename Native<S>::type;
  using ND = typename Native<D>::type;
  CastKernel<NS, ND><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const NS*>(x), static_cast<ND*>(y), n);
  return cudaGetLastError();
}

// The dtypes Cast converts between on the GPU (bool loads as 0 or 1).
#define TFD_CAST_TYPES(M) \
  M(float) M(double) M(::tfd::half) M(::tfd::bfloat16) M(int32_t) M(int64_t) M(bool)

template <typename S>
cudaError_t LaunchFrom(DataType dst, const void* x, void* y, int64_t n, cudaStream_t stream) {
  switch (dst) {
#define TFD_CAST_TO(D)            \
  case DataTypeToEnum<D>::value: \
    return Launch<S, D>(x, y, n, stream);
    TFD_CAST_TYPES(TFD_CAST_TO)
#undef TFD_CAST_TO
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

bool GpuCastSupported(DataType src, DataType dst) {
  auto ok = [](DataType t) {
    switch (t) {
#define TFD_CAST_CASE(T) case DataTypeToEnum<T>::value:
      TFD_CAST_TYPES(TFD_CAST_CASE)
#undef TFD_CAST_CASE
      return true;
      default:
        return false;
    }
  };
  return ok(src) && ok(dst);
}

cudaError_t LaunchCast(DataType src, DataType dst, const void* x, void* y, int64_t n,
                       cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (src) {
#define TFD_CAST_FROM(S)          \
  case DataTypeToEnum<S>::value: \
    return LaunchFrom<S>(dst, x, y, n, stream);
    TFD_CAST_TYPES(TFD_CAST_FROM)
#undef TFD_CAST_FROM
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace cuda_kernels
}  // namespace tfd
