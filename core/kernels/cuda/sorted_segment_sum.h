// The deterministic GPU UnsortedSegmentSum (sorted_segment_sum.cu), used
// under op determinism (core/framework/determinism.h) instead of the
// atomic adds of gather.cu, whose order of addition changes run to run.
//
// The rows are sorted by segment id with a stable radix sort (CUB), each
// segment's first row is found by binary search, and one thread per output
// element adds its segment's rows in row order, in float for the 16-bit
// types. So every run gives the same bits, and the same as the CPU
// kernel, which adds each segment's rows in row order too. Rows whose id
// is outside [0, segments) are dropped, as on the atomic path.
//
// Cost: a sort of n keys, and a serial sum per output element: fast for
// embedding gradients (many segments, few rows each), slow for a handful
// of segments of millions of rows with a narrow inner dimension.
//
//   size_t bytes = 0;
//   SortedSegmentSumScratchBytes<int32_t>(n, segments, &bytes);
//   ... allocate `bytes` on the device ...
//   LaunchSortedSegmentSum<float, int32_t>(data, ids, out, n, inner, segments, scratch, bytes,
//                                          stream);
#ifndef TFD_CORE_KERNELS_CUDA_SORTED_SEGMENT_SUM_H_
#define TFD_CORE_KERNELS_CUDA_SORTED_SEGMENT_SUM_H_

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace tfd {
namespace cuda_kernels {

// The device scratch, in bytes, LaunchSortedSegmentSum needs for `n` rows
// and `segments` segments, in *bytes. Index: int32_t or int64_t.
template <typename Index>
cudaError_t SortedSegmentSumScratchBytes(int64_t n, int64_t segments, size_t* bytes);

// data: [n, inner], ids: [n] (device) -> out: [segments, inner], every
// element written (an empty segment gives zeros). `scratch` holds at least
// SortedSegmentSumScratchBytes bytes of device memory, aligned to 256.
// T: float, double, tfd::half, tfd::bfloat16. Returns the first launch's
// error; n == 0 or inner == 0 still zeroes `out`.
template <typename T, typename Index>
cudaError_t LaunchSortedSegmentSum(const T* data, const Index* ids, T* out, int64_t n,
                                   int64_t inner, int64_t segments, void* scratch,
                                   size_t scratch_bytes, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_SORTED_SEGMENT_SUM_H_
