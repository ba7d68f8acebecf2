// GPU kernels of GatherV2 (any plain dtype), OneHot (any plain dtype) and
// UnsortedSegmentSum (float, double, half, bfloat16, int32, int64), from
// gather.cu: what Embedding, its gradient and one-hot labels use. Indices
// are read on the device; see gather.h for out-of-range indices.
//
// UnsortedSegmentSum adds with atomics, in an order that changes run to
// run; under op determinism the floating types take the sorted, ordered
// sums of sorted_segment_sum.cu instead (as TensorFlow does). Integer
// sums keep the atomics: integer addition gives the same bits in any
// order.
#include <type_traits>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/determinism.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/array_util.h"
#include "core/kernels/cuda/gather.h"
#include "core/kernels/cuda/sorted_segment_sum.h"

namespace tfd {
namespace {

absl::Status CheckElementSize(const KernelContext& ctx, DataType dtype) {
  const size_t es = DataTypeSize(dtype);
  if (es == 1 || es == 2 || es == 4 || es == 8) return absl::OkStatus();
  return ctx.Error("dtype ", DataTypeName(dtype), " is not supported on the GPU");
}

// params: P, indices: I (device), axis (host) -> P[:axis] + I + P[axis+1:].
absl::Status GatherGpu(KernelContext& ctx) {
  const Tensor& params = ctx.input(0);
  const Tensor& indices = ctx.input(1);
  TFD_RETURN_IF_ERROR(CheckElementSize(ctx, params.dtype()));
  int64_t axis = ReadIndexValues(ctx.input(2))[0];
  if (axis < 0) axis += params.rank();
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  if (out->NumElements() == 0) return absl::OkStatus();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= params.dim(i);
  for (int i = static_cast<int>(axis) + 1; i < params.rank(); ++i) inner *= params.dim(i);
  const int64_t limit = params.dim(static_cast<int>(axis));
  const int es = static_cast<int>(DataTypeSize(params.dtype()));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  const cudaError_t launched =
      indices.dtype() == DT_INT32
          ? cuda_kernels::LaunchGather<int32_t>(es, params.raw_data(), indices.data<int32_t>(),
                                                out->raw_data(), outer, limit,
                                                indices.NumElements(), inner, gpu->stream())
          : cuda_kernels::LaunchGather<int64_t>(es, params.raw_data(), indices.data<int64_t>(),
                                                out->raw_data(), outer, limit,
                                                indices.NumElements(), inner, gpu->stream());
  return TFD_CUDA_STATUS(launched);
}

// indices (device), depth (host), on_value, off_value -> one-hot at axis.
absl::Status OneHotGpu(KernelContext& ctx) {
  const Tensor& indices = ctx.input(0);
  const int64_t depth = ReadIndexValues(ctx.input(1))[0];
  TFD_ASSIGN_OR_RETURN(int64_t axis, ctx.GetAttr<int64_t>("axis"));
  if (axis == -1) axis = indices.rank();
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  TFD_RETURN_IF_ERROR(CheckElementSize(ctx, out->dtype()));
  if (out->NumElements() == 0) return absl::OkStatus();
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < axis; ++i) outer *= indices.dim(i);
  for (int i = static_cast<int>(axis); i < indices.rank(); ++i) inner *= indices.dim(i);
  const int es = static_cast<int>(DataTypeSize(out->dtype()));
  const void* on = ctx.input(2).raw_data();
  const void* off = ctx.input(3).raw_data();
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  cudaError_t launched;
  switch (indices.dtype()) {
    case DT_UINT8:
      launched = cuda_kernels::LaunchOneHot<uint8_t>(es, indices.data<uint8_t>(), on, off,
                                                     out->raw_data(), outer, depth, inner,
                                                     gpu->stream());
      break;
    case DT_INT8:
      launched = cuda_kernels::LaunchOneHot<int8_t>(es, indices.data<int8_t>(), on, off,
                                                    out->raw_data(), outer, depth, inner,
                                                    gpu->stream());
      break;
    case DT_INT32:
      launched = cuda_kernels::LaunchOneHot<int32_t>(es, indices.data<int32_t>(), on, off,
                                                     out->raw_data(), outer, depth, inner,
                                                     gpu->stream());
      break;
    default:
      launched = cuda_kernels::LaunchOneHot<int64_t>(es, indices.data<int64_t>(), on, off,
                                                     out->raw_data(), outer, depth, inner,
                                                     gpu->stream());
  }
  return TFD_CUDA_STATUS(launched);
}

// The deterministic path: data: [n, inner], ids: [n] (device) -> out:
// [segments, inner], through a scratch buffer from the device's allocator.
template <typename T, typename Index>
absl::Status SortedSegmentSumGpu(CudaDevice* gpu, const Tensor& data, const Index* ids, Tensor* out,
                                 int64_t n, int64_t inner, int64_t segments) {
  size_t bytes = 0;
  const cudaError_t sized = cuda_kernels::SortedSegmentSumScratchBytes<Index>(n, segments, &bytes);
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(sized));
  TFD_ASSIGN_OR_RETURN(Tensor scratch,
                       Tensor::Allocate(DT_UINT8, TensorShape({static_cast<int64_t>(bytes)}), gpu));
  const cudaError_t launched = cuda_kernels::LaunchSortedSegmentSum<T, Index>(
      data.data<T>(), ids, out->data<T>(), n, inner, segments, scratch.raw_data(), bytes,
      gpu->stream());
  return TFD_CUDA_STATUS(launched);
}

// data: [N..., R...], segment_ids: [N...] (device), num_segments (host)
//   -> [S, R...].
template <typename T>
absl::Status SegmentSumGpu(KernelContext& ctx) {
  const Tensor& data = ctx.input(0);
  const Tensor& ids = ctx.input(1);
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Memset(out->raw_data(), 0, out->TotalBytes()));
  if (out->NumElements() == 0 || data.NumElements() == 0) return absl::OkStatus();
  const int64_t segments = out->dim(0);
  const int64_t inner = out->NumElements() / segments;
  const int64_t n = ids.NumElements();
  TFD_RETURN_IF_ERROR(gpu->Activate());
  if (!std::is_integral<T>::value && OpDeterminismEnabled()) {
    return ids.dtype() == DT_INT32
               ? SortedSegmentSumGpu<T, int32_t>(gpu, data, ids.data<int32_t>(), out, n, inner,
                                                 segments)
               : SortedSegmentSumGpu<T, int64_t>(gpu, data, ids.data<int64_t>(), out, n, inner,
                                                 segments);
  }
  const cudaError_t launched =
      ids.dtype() == DT_INT32
          ? cuda_kernels::LaunchSegmentSum<T, int32_t>(data.data<T>(), ids.data<int32_t>(),
                                                       out->data<T>(), n, inner, segments,
                                                       gpu->stream())
          : cuda_kernels::LaunchSegmentSum<T, int64_t>(data.data<T>(), ids.data<int64_t>(),
                                                       out->data<T>(), n, inner, segments,
                                                       gpu->stream());
  return TFD_CUDA_STATUS(launched);
}

TFD_REGISTER_KERNEL("GatherV2", DeviceType::kGPU, DT_INVALID, GatherGpu);
TFD_REGISTER_KERNEL("OneHot", DeviceType::kGPU, DT_INVALID, OneHotGpu);
TFD_REGISTER_KERNEL("UnsortedSegmentSum", DeviceType::kGPU, DT_FLOAT, SegmentSumGpu<float>);
TFD_REGISTER_KERNEL("UnsortedSegmentSum", DeviceType::kGPU, DT_DOUBLE, SegmentSumGpu<double>);
TFD_REGISTER_KERNEL("UnsortedSegmentSum", DeviceType::kGPU, DT_HALF, SegmentSumGpu<half>);
TFD_REGISTER_KERNEL("UnsortedSegmentSum", DeviceType::kGPU, DT_BFLOAT16, SegmentSumGpu<bfloat16>);
TFD_REGISTER_KERNEL("UnsortedSegmentSum", DeviceType::kGPU, DT_INT32, SegmentSumGpu<int32_t>);
TFD_REGISTER_KERNEL("UnsortedSegmentSum", DeviceType::kGPU, DT_INT64, SegmentSumGpu<int64_t>);

}  // namespace
}  // namespace tfd
