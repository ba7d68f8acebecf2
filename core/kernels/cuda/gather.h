// Launchers of the gather CUDA kernels (gather.cu): GatherV2, OneHot and
// UnsortedSegmentSum, callable from host C++ (gather_kernels.cc).
//
// Indices live on the device and are not checked on the host (that would
// cost a synchronization each call); as TensorFlow's GPU kernels do,
// GatherV2 writes zeros for an out-of-range index, OneHot writes off_value,
// and UnsortedSegmentSum drops rows whose segment is out of range (tfd's
// CPU kernels report those as errors). n == 0 launches nothing; each
// returns the launch's error.
#ifndef TFD_CORE_KERNELS_CUDA_GATHER_H_
#define TFD_CORE_KERNELS_CUDA_GATHER_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tfd {
namespace cuda_kernels {

// params: [outer, limit, inner], indices: [n] -> out: [outer, n, inner];
// elements of `element_size` bytes (1, 2, 4 or 8). Index: int32_t/int64_t.
template <typename Index>
cudaError_t LaunchGather(int element_size, const void* params, const Index* indices, void* out,
                         int64_t outer, int64_t limit, int64_t n, int64_t inner,
                         cudaStream_t stream);

// indices: [outer, inner] -> out: [outer, depth, inner], `on` where the
// index equals the depth position, else `off` (both one device element).
// Index: uint8_t, int8_t, int32_t or int64_t.
template <typename Index>
cudaError_t LaunchOneHot(int element_size, const Index* indices, const void* on, const void* off,
                         void* out, int64_t outer, int64_t depth, int64_t inner,
                         cudaStream_t stream);

// out: [segments, inner] += data: [n, inner] rows by segment id; `out` must
// be zeroed first. T: float, double, tfd::half, tfd::bfloat16, int32_t,
// int64_t. Summation order is not fixed (atomic adds).
template <typename T, typename Index>
cudaError_t LaunchSegmentSum(const T* data, const Index* ids, T* out, int64_t n, int64_t inner,
                             int64_t segments, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_GATHER_H_
