// GPU kernels of the shape and fill ops that layers and gradients use
// between the math: Reshape, Identity, ExpandDims and Squeeze (views of
// the input, no copy, whatever the dtype, as on the CPU); Shape, Size and
// Rank (computed on the host, copied to the GPU output); BroadcastTo and
// Transpose (any dtype, by element size); Fill, ZerosLike and OnesLike (fill.cu) for
// float, double, half, bfloat16, int32, int64 and bool.
#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/cuda/fill.h"
#include "core/kernels/cuda/launch_plan_builders.h"
#include "core/kernels/reduction_axes.h"

namespace tfd {
namespace {

// input (any dtype) -> a view under the output shape the op inferred.
absl::Status ViewGpu(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(Tensor view, ctx.input(0).Reshaped(ctx.output_shape(0)));
  return ctx.SetOutput(0, std::move(view));
}

// `values` as the int32/int64 output i, in host memory: as TensorFlow's
// HostMemory("output") of its shape ops, so that the ops that read a shape
// on the host (Reshape, Conv2DBackpropInput's sizes, BroadcastTo) take it
// without a copy to the device and a blocking read back. An op that wants
// it on the device gets it copied by Execute.
absl::Status WriteIndexOutput(KernelContext& ctx, int i, const std::vector<int64_t>& values) {
  Tensor host(ctx.output_dtype(i), ctx.output_shape(i));
  for (size_t k = 0; k < values.size(); ++k) {
    if (host.dtype() == DT_INT64) {
      host.data<int64_t>()[k] = values[k];
    } else {
      if (values[k] > INT32_MAX) {
        return ctx.Error("value ", values[k], " does not fit the int32 output; use int64");
      }
      host.data<int32_t>()[k] = static_cast<int32_t>(values[k]);
    }
  }
  return ctx.SetOutput(i, std::move(host));
}

absl::Status ShapeGpu(KernelContext& ctx) {
  return WriteIndexOutput(ctx, 0, ctx.input(0).shape().dims());
}
absl::Status SizeGpu(KernelContext& ctx) {
  return WriteIndexOutput(ctx, 0, {ctx.input(0).NumElements()});
}
absl::Status RankGpu(KernelContext& ctx) { return WriteIndexOutput(ctx, 0, {ctx.input(0).rank()}); }

// input, shape (host) -> input broadcast to shape.
absl::Status BroadcastToGpu(KernelContext& ctx) {
  const Tensor& in = ctx.input(0);
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  if (out->NumElements() == 0) return absl::OkStatus();
  absl::StatusOr<cuda_kernels::BroadcastParams> plan =
      cuda_kernels::MakeBroadcastParams(in.shape(), out->shape(), out->shape());
  if (!plan.ok()) return ctx.Error(plan.status().message());
  const size_t size = DataTypeSize(in.dtype());
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    return ctx.Error("dtype ", DataTypeName(in.dtype()), " is not supported");
  }
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchBroadcastCopy(
      static_cast<int>(size), in.raw_data(), out->raw_data(), out->NumElements(), *plan,
      gpu->stream()));
}

// x, perm (host) -> x transposed: a gather through the broadcast-copy
// kernel; an identity permutation is a view, as on the CPU.
absl::Status TransposeGpu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  TFD_ASSIGN_OR_RETURN(std::vector<int64_t> perm, IndexValues(ctx.input(1)));
  std::vector<int64_t> moved;  // the non-unit axes, in output order
  for (int64_t axis : perm) {
    if (x.dim(static_cast<int>(axis)) != 1) moved.push_back(axis);
  }
  if (std::is_sorted(moved.begin(), moved.end())) return ViewGpu(ctx);
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  if (out->NumElements() == 0) return absl::OkStatus();
  absl::StatusOr<cuda_kernels::BroadcastParams> plan =
      cuda_kernels::MakeTransposeParams(x.shape(), perm);
  if (!plan.ok()) {
    return absl::Status(plan.status().code(),
                        absl::StrCat(ctx.op_name(), ": ", plan.status().message()));
  }
  const size_t size = DataTypeSize(x.dtype());
  if (size != 1 && size != 2 && size != 4 && size != 8) {
    return ctx.Error("dtype ", DataTypeName(x.dtype()), " is not supported");
  }
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchBroadcastCopy(
      static_cast<int>(size), x.raw_data(), out->raw_data(), out->NumElements(), *plan,
      gpu->stream()));
}

// dims (host), value (a device scalar) -> dims filled with value.
template <typename T>
absl::Status FillGpu(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchFillFromDevice<T>(
      ctx.input(1).data<T>(), out->data<T>(), out->NumElements(), gpu->stream()));
}

// x -> zeros of x's shape (every supported dtype's zero is all-zero bytes).
absl::Status ZerosLikeGpu(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  return ctx.device()->Memset(out->raw_data(), 0, out->TotalBytes());
}

// x -> ones of x's shape.
template <typename T>
absl::Status OnesLikeGpu(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchFill<T>(static_cast<T>(1.0f), out->data<T>(),
                                                     out->NumElements(), gpu->stream()));
}

TFD_REGISTER_KERNEL("Reshape", DeviceType::kGPU, DT_INVALID, ViewGpu);
TFD_REGISTER_KERNEL("Identity", DeviceType::kGPU, DT_INVALID, ViewGpu);
TFD_REGISTER_KERNEL("ExpandDims", DeviceType::kGPU, DT_INVALID, ViewGpu);
TFD_REGISTER_KERNEL("Squeeze", DeviceType::kGPU, DT_INVALID, ViewGpu);
TFD_REGISTER_KERNEL("Shape", DeviceType::kGPU, DT_INVALID, ShapeGpu);
TFD_REGISTER_KERNEL("Size", DeviceType::kGPU, DT_INVALID, SizeGpu);
TFD_REGISTER_KERNEL("Rank", DeviceType::kGPU, DT_INVALID, RankGpu);
TFD_REGISTER_KERNEL("BroadcastTo", DeviceType::kGPU, DT_INVALID, BroadcastToGpu);
TFD_REGISTER_KERNEL("Transpose", DeviceType::kGPU, DT_INVALID, TransposeGpu);

#define TFD_FILL_GPU(T)                                                                     \
  TFD_REGISTER_KERNEL("Fill", DeviceType::kGPU, DataTypeToEnum<T>::value, FillGpu<T>);      \
  TFD_REGISTER_KERNEL("ZerosLike", DeviceType::kGPU, DataTypeToEnum<T>::value, ZerosLikeGpu); \
  TFD_REGISTER_KERNEL("OnesLike", DeviceType::kGPU, DataTypeToEnum<T>::value, OnesLikeGpu<T>);
TFD_FILL_GPU(float)
TFD_FILL_GPU(double)
TFD_FILL_GPU(half)
TFD_FILL_GPU(bfloat16)
TFD_FILL_GPU(int32_t)
TFD_FILL_GPU(int64_t)
TFD_FILL_GPU(bool)
#undef TFD_FILL_GPU

}  // namespace
}  // namespace tfd
