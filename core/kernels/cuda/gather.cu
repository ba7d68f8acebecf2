// Gathers and scatters on the GPU: one output (or input) element per
// thread. Segment sums use atomic adds on the output; 16-bit types add in
// 16 bits there (hardware atomics), within the 16-bit tolerance.
#include "core/kernels/cuda/gather.h"
#include "core/kernels/cuda/gpu_launch_util.h"

namespace tfd {
namespace cuda_kernels {
namespace {

template <typename Word, typename Index>
__global__ void GatherKernel(const Word* __restrict__ params, const Index* __restrict__ indices,
                             Word* __restrict__ out, int64_t limit, int64_t n, int64_t inner,
                             int64_t total) {
  for (int64_t k = ThreadIndex(); k < total; k += GridSize()) {
    const int64_t j = k % inner, rest = k / inner;
    const int64_t i = rest % n, o = rest / n;
    const int64_t idx = static_cast<int64_t>(indices[i]);
    out[k] = (idx >= 0 && idx < limit) ? params[(o * limit + idx) * inner + j] : Word(0);
  }
}

template <typename Word, typename Index>
__global__ void OneHotKernel(const Index* __restrict__ indices, const Word* __restrict__ on,
                             const Word* __restrict__ off, Word* __restrict__ out,
                             int64_t depth, int64_t inner, int64_t total) {
  const Word on_v = *on, off_v = *off;
  for (int64_t k = ThreadIndex(); k < total; k += GridSize()) {
    const int64_t i = k % inner, rest = k / inner;
    const int64_t d = rest % depth, o = rest / depth;
    out[k] = static_cast<int64_t>(indices[o * inner + i]) == d ? on_v : off_v;
  }
}

__device__ __forceinline__ void AtomicAdd(float* p, float v) { atomicAdd(p, v); }
__device__ __forceinline__ void AtomicAdd(double* p, double v) { atomicAdd(p, v); }
__device__ __forceinline__ void AtomicAdd(__half* p, __half v) { atomicAdd(p, v); }
__device__ __forceinline__ void AtomicAdd(__nv_bfloat16* p, __nv_bfloat16 v) { atomicAdd(p, v); }
__device__ __forceinline__ void AtomicAdd(int32_t* p, int32_t v) { atomicAdd(p, v); }
__device__ __forceinline__ void AtomicAdd(int64_t* p, int64_t v) {
  // Two's complement addition is the same on unsigned words.
  atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
}

template <typename N, typename Index>
__global__ void SegmentSumKernel(const N* __restrict__ data, const Index* __restrict__ ids,
                                 N* __restrict__ out, int64_t inner, int64_t segments,
                                 int64_t total) {
  for (int64_t k = ThreadIndex(); k < total; k += GridSize()) {
    const int64_t row = k / inner, j = k % inner;
    const int64_t s = static_cast<int64_t>(ids[row]);
    if (s < 0 || s >= segments) continue;
    AtomicAdd(out + s * inner + j, data[k]);
  }
}

template <typename Word, typename Index>
cudaError_t Gather(const void* params, const Index* indices, void* out, int64_t outer,
                   int64_t limit, int64_t n, int64_t inner, cudaStream_t stream) {
  const int64_t total = outer * n * inner;
  if (total == 0) return cudaSuccess;
  GatherKernel<Word, Index><<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(
      static_cast<const Word*>(params), indices, static_cast<Word*>(out), limit, n, inner, total);
  return cudaGetLastError();
}

template <typename Word, typename Index>
cudaError_t OneHot(const Index* indices, const void* on, const void* off, void* out,
                   int64_t outer, int64_t depth, int64_t inner, cudaStream_t stream) {
  const int64_t total = outer * depth * inner;
  if (total == 0) return cudaSuccess;
  OneHotKernel<Word, Index><<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(
      indices, static_cast<const Word*>(on), static_cast<const Word*>(off),
      static_cast<Word*>(out), depth, inner, total);
  return cudaGetLastError();
}

}  // namespace

template <typename Index>
cudaError_t LaunchGather(int element_size, const void* params, const Index* indices, void* out,
                         int64_t outer, int64_t limit, int64_t n, int64_t inner,
                         cudaStream_t stream) {
  switch (element_size) {
    case 1: return Gather<uint8_t>(params, indices, out, outer, limit, n, inner, stream);
    case 2: return Gather<uint16_t>(params, indices, out, outer, limit, n, inner, stream);
    case 4: return Gather<uint32_t>(params, indices, out, outer, limit, n, inner, stream);
    case 8: return Gather<uint64_t>(params, indices, out, outer, limit, n, inner, stream);
    default: return cudaErrorInvalidValue;
  }
}

template <typename Index>
cudaError_t LaunchOneHot(int element_size, const Index* indices, const void* on, const void* off,
                         void* out, int64_t outer, int64_t depth, int64_t inner,
                         cudaStream_t stream) {
  switch (element_size) {
    case 1: return OneHot<uint8_t>(indices, on, off, out, outer, depth, inner, stream);
    case 2: return OneHot<uint16_t>(indices, on, off, out, outer, depth, inner, stream);
    case 4: return OneHot<uint32_t>(indices, on, off, out, outer, depth, inner, stream);
    case 8: return OneHot<uint64_t>(indices, on, off, out, outer, depth, inner, stream);
    default: return cudaErrorInvalidValue;
  }
}

template <typename T, typename Index>
cudaError_t LaunchSegmentSum(const T* data, const Index* ids, T* out, int64_t n, int64_t inner,
                             int64_t segments, cudaStream_t stream) {
  const int64_t total = n * inner;
  if (total == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  SegmentSumKernel<N, Index><<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const N*>(data), ids, reinterpret_cast<N*>(out), inner, segments, total);
  return cudaGetLastError();
}

template cudaError_t LaunchGather<int32_t>(int, const void*, const int32_t*, void*, int64_t,
                                           int64_t, int64_t, int64_t, cudaStream_t);
template cudaError_t LaunchGather<int64_t>(int, const void*, const int64_t*, void*, int64_t,
                                           int64_t, int64_t, int64_t, cudaStream_t);
#define TFD_INSTANTIATE_ONE_HOT(I)                                                            \
  template cudaError_t LaunchOneHot<I>(int, const I*, const void*, const void*, void*, int64_t, \
                                       int64_t, int64_t, cudaStream_t);
TFD_INSTANTIATE_ONE_HOT(uint8_t)
TFD_INSTANTIATE_ONE_HOT(int8_t)
TFD_INSTANTIATE_ONE_HOT(int32_t)
TFD_INSTANTIATE_ONE_HOT(int64_t)
#undef TFD_INSTANTIATE_ONE_HOT
#define TFD_INSTANTIATE_SEGMENT_SUM(T)                                                         \
  template cudaError_t LaunchSegmentSum<T, int32_t>(const T*, const int32_t*, T*, int64_t,     \
                                                    int64_t, int64_t, cudaStream_t);           \
  template cudaError_t LaunchSegmentSum<T, int64_t>(const T*, const int64_t*, T*, int64_t,     \
                                                    int64_t, int64_t, cudaStream_t);
TFD_INSTANTIATE_SEGMENT_SUM(float)
TFD_INSTANTIATE_SEGMENT_SUM(double)
TFD_INSTANTIATE_SEGMENT_SUM(tfd::half)
TFD_INSTANTIATE_SEGMENT_SUM(tfd::bfloat16)
TFD_INSTANTIATE_SEGMENT_SUM(int32_t)
TFD_INSTANTIATE_SEGMENT_SUM(int64_t)
#undef TFD_INSTANTIATE_SEGMENT_SUM

}  // namespace cuda_kernels
}  // namespace tfd
