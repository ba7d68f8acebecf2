// Byte-level strided copies and fills on the GPU: one element per thread,
// offsets from the plan's merged dimensions (one division each).
#include "core/kernels/cuda/gpu_launch_util.h"
#include "core/kernels/cuda/strided_copy.h"

namespace tfd {
namespace cuda_kernels {
namespace {

template <typename Word>
__global__ void StridedCopyKernel(StridedCopyParams p, const Word* __restrict__ src,
                                  Word* __restrict__ dst, int64_t n) {
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) {
    int64_t rest = i, s = 0, d = 0;
    for (int k = p.rank - 1; k >= 0; --k) {
      const int64_t idx = rest % p.dims[k];
      rest /= p.dims[k];
      s += idx * p.src_strides[k];
      d += idx * p.dst_strides[k];
    }
    dst[d] = src[s];
  }
}

template <typename Word>
__global__ void FillElementsKernel(const Word* __restrict__ value, Word* __restrict__ dst,
                                   int64_t n) {
  const Word v = *value;
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) dst[i] = v;
}

template <typename Word>
cudaError_t Copy(const StridedCopyParams& p, const void* src, void* dst, cudaStream_t stream) {
  int64_t n = 1;
  for (int k = 0; k < p.rank; ++k) n *= p.dims[k];
  if (n == 0) return cudaSuccess;
  StridedCopyKernel<Word><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      p, static_cast<const Word*>(src), static_cast<Word*>(dst), n);
  return cudaGetLastError();
}

template <typename Word>
cudaError_t Fill(const void* value, void* dst, int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  FillElementsKernel<Word><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      static_cast<const Word*>(value), static_cast<Word*>(dst), n);
  return cudaGetLastError();
}

}  // namespace

cudaError_t LaunchStridedCopy(int element_size, const StridedCopyParams& plan, const void* src,
                              void* dst, cudaStream_t stream) {
  switch (element_size) {
    case 1: return Copy<uint8_t>(plan, src, dst, stream);
    case 2: return Copy<uint16_t>(plan, src, dst, stream);
    case 4: return Copy<uint32_t>(plan, src, dst, stream);
    case 8: return Copy<uint64_t>(plan, src, dst, stream);
    default: return cudaErrorInvalidValue;
  }
}

cudaError_t LaunchFillElements(int element_size, const void* value, void* dst, int64_t n,
                               cudaStream_t stream) {
  switch (element_size) {
    case 1: return Fill<uint8_t>(value, dst, n, stream);
    case 2: return Fill<uint16_t>(value, dst, n, stream);
    case 4: return Fill<uint32_t>(value, dst, n, stream);
    case 8: return Fill<uint64_t>(value, dst, n, stream);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda_kernels
}  // namespace tfd
