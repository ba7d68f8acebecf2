// Deterministic segment sums: sort rows by segment, then one thread per
// output element adds its segment's rows in row order (see
// sorted_segment_sum.h).
#include <cub/device/device_radix_sort.cuh>

#include "core/kernels/cuda/gpu_launch_util.h"
#include "core/kernels/cuda/sorted_segment_sum.h"

namespace tfd {
namespace cuda_kernels {
namespace {

constexpr size_t kAlign = 256;

size_t AlignUp(size_t bytes) { return (bytes + kAlign - 1) / kAlign * kAlign; }

// Note [Scratch layout]: sorted ids [n] (Index), row numbers in [n] and
// sorted [n] (int64), segment starts [segments + 1] (int64), then CUB's own
// temporary storage; each part starts on a 256-byte boundary.
struct ScratchLayout {
  size_t sorted_ids = 0, rows_in = 0, rows_sorted = 0, starts = 0, cub = 0, cub_bytes = 0;
  size_t total = 0;
};

template <typename Index>
cudaError_t PlanScratch(int64_t n, int64_t segments, ScratchLayout* l) {
  size_t cub_bytes = 0;
  const cudaError_t queried = cub::DeviceRadixSort::SortPairs(
      nullptr, cub_bytes, static_cast<const Index*>(nullptr), static_cast<Index*>(nullptr),
      static_cast<const int64_t*>(nullptr), static_cast<int64_t*>(nullptr), n);
  if (queried != cudaSuccess) return queried;
  const size_t rows = static_cast<size_t>(n);
  l->sorted_ids = 0;
  l->rows_in = l->sorted_ids + AlignUp(rows * sizeof(Index));
  l->rows_sorted = l->rows_in + AlignUp(rows * sizeof(int64_t));
  l->starts = l->rows_sorted + AlignUp(rows * sizeof(int64_t));
  l->cub = l->starts + AlignUp((static_cast<size_t>(segments) + 1) * sizeof(int64_t));
  l->cub_bytes = cub_bytes;
  l->total = l->cub + AlignUp(cub_bytes);
  return cudaSuccess;
}

__global__ void RowNumbersKernel(int64_t* __restrict__ rows, int64_t n) {
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) rows[i] = i;
}

// starts[s] = the first position in the sorted ids holding an id >= s, for
// s in [0, segments]: segment s owns positions [starts[s], starts[s + 1]).
template <typename Index>
__global__ void SegmentStartsKernel(const Index* __restrict__ sorted, int64_t n,
                                    int64_t* __restrict__ starts, int64_t segments) {
  for (int64_t s = ThreadIndex(); s <= segments; s += GridSize()) {
    int64_t lo = 0, hi = n;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (static_cast<int64_t>(sorted[mid]) < s) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    starts[s] = lo;
  }
}

// out[s, j] = the sum over the segment's rows, in row order (the sort is
// stable), of data[row, j]. Neighbouring threads read neighbouring columns
// of one row.
template <typename N>
__global__ void SumSortedRowsKernel(const N* __restrict__ data, const int64_t* __restrict__ rows,
                                    const int64_t* __restrict__ starts, N* __restrict__ out,
                                    int64_t inner, int64_t total) {
  using A = typename Acc<N>::type;
  for (int64_t k = ThreadIndex(); k < total; k += GridSize()) {
    const int64_t s = k / inner, j = k % inner;
    A acc = A(0);
    for (int64_t p = starts[s]; p < starts[s + 1]; ++p) {
      acc += Load<A>(data[rows[p] * inner + j]);
    }
    out[k] = Store<N>(acc);
  }
}

template <typename N>
__global__ void ZeroKernel(N* __restrict__ out, int64_t total) {
  for (int64_t k = ThreadIndex(); k < total; k += GridSize()) out[k] = Store<N>(0.0f);
}

}  // namespace

template <typename Index>
cudaError_t SortedSegmentSumScratchBytes(int64_t n, int64_t segments, size_t* bytes) {
  ScratchLayout l;
  const cudaError_t planned = PlanScratch<Index>(n, segments, &l);
  if (planned == cudaSuccess) *bytes = l.total;
  return planned;
}

template <typename T, typename Index>
cudaError_t LaunchSortedSegmentSum(const T* data, const Index* ids, T* out, int64_t n,
                                   int64_t inner, int64_t segments, void* scratch,
                                   size_t scratch_bytes, cudaStream_t stream) {
  using N = typename Native<T>::type;
  N* const out_n = reinterpret_cast<N*>(out);
  const int64_t total = segments * inner;
  if (total == 0) return cudaSuccess;
  if (n == 0) {
    ZeroKernel<N><<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(out_n, total);
    return cudaGetLastError();
  }
  ScratchLayout l;
  cudaError_t err = PlanScratch<Index>(n, segments, &l);
  if (err != cudaSuccess) return err;
  if (scratch_bytes < l.total) return cudaErrorInvalidValue;
  char* base = static_cast<char*>(scratch);
  Index* sorted_ids = reinterpret_cast<Index*>(base + l.sorted_ids);
  int64_t* rows_in = reinterpret_cast<int64_t*>(base + l.rows_in);
  int64_t* rows_sorted = reinterpret_cast<int64_t*>(base + l.rows_sorted);
  int64_t* starts = reinterpret_cast<int64_t*>(base + l.starts);

  RowNumbersKernel<<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(rows_in, n);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  // All bits of the ids: negative ones must sort (and be dropped) too.
  size_t cub_bytes = l.cub_bytes;
  err = cub::DeviceRadixSort::SortPairs(base + l.cub, cub_bytes, ids, sorted_ids, rows_in,
                                        rows_sorted, n, 0, static_cast<int>(sizeof(Index) * 8),
                                        stream);
  if (err != cudaSuccess) return err;
  SegmentStartsKernel<Index><<<BlocksFor(segments + 1), kThreadsPerBlock, 0, stream>>>(
      sorted_ids, n, starts, segments);
  if ((err = cudaGetLastError()) != cudaSuccess) return err;
  SumSortedRowsKernel<N><<<BlocksFor(total), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const N*>(data), rows_sorted, starts, out_n, inner, total);
  return cudaGetLastError();
}

template cudaError_t SortedSegmentSumScratchBytes<int32_t>(int64_t, int64_t, size_t*);
template cudaError_t SortedSegmentSumScratchBytes<int64_t>(int64_t, int64_t, size_t*);
#define TFD_INSTANTIATE_SORTED_SEGMENT_SUM(T)                                                  \
  template cudaError_t LaunchSortedSegmentSum<T, int32_t>(const T*, const int32_t*, T*,        \
                                                          int64_t, int64_t, int64_t, void*,    \
                                                          size_t, cudaStream_t);               \
  template cudaError_t LaunchSortedSegmentSum<T, int64_t>(const T*, const int64_t*, T*,        \
                                                          int64_t, int64_t, int64_t, void*,    \
                                                          size_t, cudaStream_t);
TFD_INSTANTIATE_SORTED_SEGMENT_SUM(float)
TFD_INSTANTIATE_SORTED_SEGMENT_SUM(double)
TFD_INSTANTIATE_SORTED_SEGMENT_SUM(tfd::half)
TFD_INSTANTIATE_SORTED_SEGMENT_SUM(tfd::bfloat16)
#undef TFD_INSTANTIATE_SORTED_SEGMENT_SUM

}  // namespace cuda_kernels
}  // namespace tfd
