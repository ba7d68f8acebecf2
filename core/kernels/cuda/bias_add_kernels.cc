// GPU kernels of BiasAdd and BiasAddGrad (declared with the NN ops) for
// float, double, half and bfloat16, built on the elementwise and reduction
// kernels: the value is viewed as [outer, C, inner] (inner == 1 for NHWC,
// H*W for NCHW), so BiasAdd is an Add broadcasting a [1, C, 1] bias and
// BiasAddGrad a Sum over the outer and inner axes.
#include <string>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/cuda/cwise.h"
#include "core/kernels/cuda/launch_plan_builders.h"
#include "core/kernels/cuda/reduction_runner.h"

namespace tfd {
namespace {

// `shape` as [outer, C, inner] for the op's data_format.
absl::StatusOr<TensorShape> ChannelView(const KernelContext& ctx, const TensorShape& shape) {
  TFD_ASSIGN_OR_RETURN(std::string format, ctx.GetAttr<std::string>("data_format"));
  const int channel_dim = format == "NCHW" ? 1 : shape.rank() - 1;
  int64_t outer = 1, inner = 1;
  for (int i = 0; i < channel_dim; ++i) outer *= shape.dim(i);
  for (int i = channel_dim + 1; i < shape.rank(); ++i) inner *= shape.dim(i);
  return TensorShape({outer, shape.dim(channel_dim), inner});
}

// value: [..., C] (NHWC) or [N, C, ...] (NCHW), bias: [C] -> value's shape.
template <typename T>
absl::Status BiasAddGpu(KernelContext& ctx) {
  const Tensor& value = ctx.input(0);
  const Tensor& bias = ctx.input(1);
  TFD_ASSIGN_OR_RETURN(TensorShape view, ChannelView(ctx, value.shape()));
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  if (out->NumElements() == 0) return absl::OkStatus();
  TFD_ASSIGN_OR_RETURN(cuda_kernels::BroadcastParams plan,
                       cuda_kernels::MakeBroadcastParams(view, TensorShape({1, view.dim(1), 1}),
                                                         view));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchBinary<T>(
      cuda_kernels::BinaryOp::kAdd, value.data<T>(), bias.data<T>(), out->data<T>(),
      out->NumElements(), plan, gpu->stream()));
}

// out_backprop: value's shape -> [C], summed over every other axis.
template <typename T>
absl::Status BiasAddGradGpu(KernelContext& ctx) {
  const Tensor& grad = ctx.input(0);
  TFD_ASSIGN_OR_RETURN(TensorShape view, ChannelView(ctx, grad.shape()));
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  if (grad.NumElements() == 0) {
    // No rows: every channel's sum is 0.
    TFD_RETURN_IF_ERROR(gpu->Activate());
    return TFD_CUDA_STATUS(cudaMemsetAsync(out->data<T>(), 0, out->NumElements() * sizeof(T),
                                           gpu->stream()));
  }
  return cuda_kernels::RunReduction<T>(
      gpu, cuda_kernels::ReduceOp::kSum, /*mean=*/false, grad, out,
      cuda_kernels::MakeReductionPasses(view, {true, false, true}));
}

#define TFD_BIAS_GPU(T)                                                                 \
  TFD_REGISTER_KERNEL("BiasAdd", DeviceType::kGPU, DataTypeToEnum<T>::value,            \
                      BiasAddGpu<T>);                                                   \
  TFD_REGISTER_KERNEL("BiasAddGrad", DeviceType::kGPU, DataTypeToEnum<T>::value,        \
                      BiasAddGradGpu<T>);
TFD_BIAS_GPU(float)
TFD_BIAS_GPU(double)
TFD_BIAS_GPU(half)
TFD_BIAS_GPU(bfloat16)
#undef TFD_BIAS_GPU

}  // namespace
}  // namespace tfd
