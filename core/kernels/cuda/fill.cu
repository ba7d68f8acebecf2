// Fills on the GPU: one store per element in a grid-stride loop; the
// device-scalar variant reads its value once per thread (cached).
#include "core/kernels/cuda/fill.h"
#include "core/kernels/cuda/gpu_launch_util.h"

namespace tfd {
namespace cuda_kernels {
namespace {

template <typename N>
__global__ void FillKernel(const N* __restrict__ from, N value, N* __restrict__ out, int64_t n) {
  const N v = from != nullptr ? *from : value;
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) out[i] = v;
}

// out: [n], in read through the x strides of p (a general plan; the fast
// kinds are handled by their own formulas).
template <typename Word>
__global__ void BroadcastCopyKernel(const Word* __restrict__ in, Word* __restrict__ out,
                                    int64_t n, BroadcastParams p) {
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) {
    int64_t xi;
    if (p.kind == BroadcastParams::kSameShape || p.kind == BroadcastParams::kScalarRight) {
      xi = i;
    } else if (p.kind == BroadcastParams::kScalarLeft) {
      xi = 0;
    } else {
      int64_t rest = i;
      xi = 0;
      for (int d = p.rank - 1; d >= 0; --d) {
        xi += (rest % p.dims[d]) * p.x_strides[d];
        rest /= p.dims[d];
      }
    }
    out[i] = in[xi];
  }
}

template <typename Word>
cudaError_t BroadcastCopy(const void* in, void* out, int64_t n, const BroadcastParams& p,
                          cudaStream_t stream) {
  BroadcastCopyKernel<Word><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const Word*>(in), static_cast<Word*>(out), n, p);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchBroadcastCopy(int element_size, const void* in, void* out, int64_t n,
                                const BroadcastParams& plan, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  switch (element_size) {
    case 1: return BroadcastCopy<uint8_t>(in, out, n, plan, stream);
    case 2: return BroadcastCopy<uint16_t>(in, out, n, plan, stream);
    case 4: return BroadcastCopy<uint32_t>(in, out, n, plan, stream);
    case 8: return BroadcastCopy<uint64_t>(in, out, n, plan, stream);
    default: return cudaErrorInvalidValue;
  }
}

template <typename T>
cudaError_t LaunchFill(T value, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  N v;
  static_assert(sizeof(N) == sizeof(T), "storage types must match");
  memcpy(&v, &value, sizeof(T));
  FillKernel<N><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(nullptr, v,
                                                               reinterpret_cast<N*>(out), n);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchFillFromDevice(const T* value, T* out, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  FillKernel<N><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const N*>(value), N(), reinterpret_cast<N*>(out), n);
  return cudaGetLastError();
}

#define TFD_INSTANTIATE_FILL(T)                                                  \
  template cudaError_t LaunchFill<T>(T, T*, int64_t, cudaStream_t);              \
  template cudaError_t LaunchFillFromDevice<T>(const T*, T*, int64_t, cudaStream_t);
TFD_INSTANTIATE_FILL(float)
TFD_INSTANTIATE_FILL(double)
TFD_INSTANTIATE_FILL(tfd::half)
TFD_INSTANTIATE_FILL(tfd::bfloat16)
TFD_INSTANTIATE_FILL(int32_t)
TFD_INSTANTIATE_FILL(int64_t)
TFD_INSTANTIATE_FILL(bool)
#undef TFD_INSTANTIATE_FILL

}  // namespace cuda_kernels
}  // namespace tfd
