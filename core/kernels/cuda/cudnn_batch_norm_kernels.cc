// GPU kernels of FusedBatchNormV3 and FusedBatchNormGradV3 on cuDNN's
// spatial batch normalization, for float, half and bfloat16 x with float
// per-channel tensors, in every data format. The input is described to
// cuDNN as the strided 4-D view [outer, C, inner, 1] of BatchNormLayout,
// which is NHWC's and NCHW's memory order alike.
//
// Outputs follow the CPU kernels (core/kernels/cpu/batch_norm_kernels.cc),
// reserve spaces included: reserve_space_2 is the biased batch variance,
// not cuDNN's saved inverse standard deviation, so either device's
// forward output feeds either device's gradient. cuDNN runs training with
// an averaging factor of 1 (its running outputs are then the batch mean and
// the unbiased variance); batch_norm.cu derives the reserve spaces and
// applies exponential_avg_factor as TensorFlow does. The gradient gives
// cuDNN the reserve spaces as its saved statistics; with is_training off,
// which cuDNN has no call for, batch_norm.cu computes it.
#include <limits>
#include <string>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/batch_norm_layout.h"
#include "core/kernels/cuda/batch_norm.h"
#include "core/kernels/cuda/cudnn_util.h"

namespace tfd {
namespace {

using cuda_kernels::Scaling;
using cuda_kernels::TensorDescriptor;

constexpr cudnnBatchNormMode_t kMode = CUDNN_BATCHNORM_SPATIAL;

// The descriptors of one call: x (and y, dy, dx, which share its layout)
// and the per-channel tensors cuDNN derives from it.
struct BatchNormCall {
  BatchNormLayout layout;
  TensorDescriptor x, per_channel;
};

// The layout, and the descriptors when x has elements (cuDNN refuses a
// dimension of 0; the callers answer empty inputs without cuDNN).
absl::Status Prepare(const KernelContext& ctx, const Tensor& x, BatchNormCall* call) {
  TFD_ASSIGN_OR_RETURN(std::string format, ctx.GetAttr<std::string>("data_format"));
  TFD_ASSIGN_OR_RETURN(call->layout, MakeBatchNormLayout(format, x.shape()));
  if (x.NumElements() == 0) return absl::OkStatus();
  const BatchNormLayout& l = call->layout;
  constexpr int64_t kMaxDim = std::numeric_limits<int>::max();
  if (l.outer > kMaxDim || l.channels > kMaxDim || l.inner > kMaxDim ||
      l.outer * l.channels * l.inner > kMaxDim) {
    return absl::UnimplementedError(ctx.op_name() + ": cuDNN takes at most 2^31 - 1 elements, got " +
                                    x.shape().DebugString());
  }
  cuda_kernels::NchwView view;
  view.n = static_cast<int>(l.outer);
  view.c = static_cast<int>(l.channels);
  view.h = static_cast<int>(l.inner);
  view.w = 1;
  view.n_stride = view.c * view.h;
  view.c_stride = view.h;
  view.h_stride = 1;
  view.w_stride = 1;
  TFD_RETURN_IF_ERROR(call->x.Create(x.dtype(), view));
  return call->per_channel.CreateBatchNormParams(call->x, kMode);
}

cuda_kernels::ChannelLayout ToChannelLayout(const BatchNormLayout& l) {
  cuda_kernels::ChannelLayout c;
  c.outer = l.outer;
  c.channels = l.channels;
  c.inner = l.inner;
  return c;
}

absl::Status FillNaN(CudaDevice* gpu, Tensor* t) {
  const std::vector<float> nan(t->NumElements(), std::numeric_limits<float>::quiet_NaN());
  return gpu->CopyHostToDevice(nan.data(), t->raw_data(), t->TotalBytes());
}

// x, scale, offset, mean, variance -> y, batch_mean, batch_variance,
// reserve_space_1, reserve_space_2, reserve_space_3.
absl::Status FusedBatchNormGpu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  TFD_ASSIGN_OR_RETURN(float epsilon, ctx.GetAttr<float>("epsilon"));
  TFD_ASSIGN_OR_RETURN(float factor, ctx.GetAttr<float>("exponential_avg_factor"));
  TFD_ASSIGN_OR_RETURN(bool is_training, ctx.GetAttr<bool>("is_training"));
  std::vector<Tensor*> out(6);
  for (int i = 0; i < 6; ++i) {
    TFD_ASSIGN_OR_RETURN(out[i], ctx.AllocateOutput(i));
  }
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  BatchNormCall call;
  TFD_RETURN_IF_ERROR(Prepare(ctx, x, &call));
  const size_t stat_bytes = out[1]->TotalBytes();
  const Scaling s(x.dtype());

  if (!is_training) {
    // The statistics pass through to all four per-channel outputs.
    for (int i : {1, 3}) {
      TFD_RETURN_IF_ERROR(gpu->CopyDeviceToDevice(ctx.input(3).raw_data(), out[i]->raw_data(), stat_bytes));
    }
    for (int i : {2, 4}) {
      TFD_RETURN_IF_ERROR(gpu->CopyDeviceToDevice(ctx.input(4).raw_data(), out[i]->raw_data(), stat_bytes));
    }
    if (x.NumElements() == 0) return absl::OkStatus();
    return cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) {
      return TFD_CUDNN_STATUS(cudnnBatchNormalizationForwardInference(
          h, kMode, s.one(), s.zero(), call.x.get(), x.raw_data(), call.x.get(),
          out[0]->raw_data(), call.per_channel.get(), ctx.input(1).raw_data(),
          ctx.input(2).raw_data(), ctx.input(3).raw_data(), ctx.input(4).raw_data(),
          static_cast<double>(epsilon)));
    });
  }

  if (call.layout.per_channel() == 0) {
    // No elements: NaN statistics and zero reserve spaces, as on the CPU.
    TFD_RETURN_IF_ERROR(FillNaN(gpu, out[1]));
    TFD_RETURN_IF_ERROR(FillNaN(gpu, out[2]));
    TFD_RETURN_IF_ERROR(gpu->Memset(out[3]->raw_data(), 0, stat_bytes));
    return gpu->Memset(out[4]->raw_data(), 0, stat_bytes);
  }
  // No channels: every output is empty.
  if (x.NumElements() == 0) return absl::OkStatus();
  // cuDNN scales the running outputs' old values by 1 - factor = 0 before
  // adding; zeros keep garbage (NaN * 0) out.
  TFD_RETURN_IF_ERROR(gpu->Memset(out[1]->raw_data(), 0, stat_bytes));
  TFD_RETURN_IF_ERROR(gpu->Memset(out[2]->raw_data(), 0, stat_bytes));
  TFD_RETURN_IF_ERROR(cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) {
    return TFD_CUDNN_STATUS(cudnnBatchNormalizationForwardTraining(
        h, kMode, s.one(), s.zero(), call.x.get(), x.raw_data(), call.x.get(), out[0]->raw_data(),
        call.per_channel.get(), ctx.input(1).raw_data(), ctx.input(2).raw_data(),
        /*exponentialAverageFactor=*/1.0, out[1]->raw_data(), out[2]->raw_data(),
        static_cast<double>(epsilon), /*resultSaveMean=*/nullptr,
        /*resultSaveInvVariance=*/nullptr));
  }));
  // With factor 1 the old statistics are not read (and may be empty).
  const float* old_mean = factor == 1.0f ? nullptr : ctx.input(3).data<float>();
  const float* old_var = factor == 1.0f ? nullptr : ctx.input(4).data<float>();
  return TFD_CUDA_STATUS(cuda_kernels::LaunchFinishBatchStats(
      old_mean, old_var, factor, call.layout.per_channel(), call.layout.channels,
      out[1]->data<float>(), out[2]->data<float>(), out[3]->data<float>(), out[4]->data<float>(),
      gpu->stream()));
}

// y_backprop, x, scale, reserve_space_1 (mean), reserve_space_2 (variance),
// reserve_space_3 -> x_backprop, scale_backprop, offset_backprop,
// reserve_space_4, reserve_space_5.
template <typename T>
absl::Status FusedBatchNormGradGpu(KernelContext& ctx) {
  const Tensor& dy = ctx.input(0);
  const Tensor& x = ctx.input(1);
  TFD_ASSIGN_OR_RETURN(float epsilon, ctx.GetAttr<float>("epsilon"));
  TFD_ASSIGN_OR_RETURN(bool is_training, ctx.GetAttr<bool>("is_training"));
  std::vector<Tensor*> out(5);
  for (int i = 0; i < 5; ++i) {
    TFD_ASSIGN_OR_RETURN(out[i], ctx.AllocateOutput(i));
  }
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  BatchNormCall call;
  TFD_RETURN_IF_ERROR(Prepare(ctx, x, &call));
  const int64_t C = call.layout.channels;
  if (call.layout.per_channel() == 0) {
    TFD_RETURN_IF_ERROR(gpu->Memset(out[1]->raw_data(), 0, out[1]->TotalBytes()));
    return gpu->Memset(out[2]->raw_data(), 0, out[2]->TotalBytes());
  }
  // No channels: every output is empty.
  if (x.NumElements() == 0) return absl::OkStatus();
  TFD_ASSIGN_OR_RETURN(Tensor inv_std, Tensor::Allocate(DT_FLOAT, TensorShape({C}), gpu));
  TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(cuda_kernels::LaunchInverseStd(
      ctx.input(4).data<float>(), epsilon, C, inv_std.data<float>(), gpu->stream())));
  if (!is_training) {
    return TFD_CUDA_STATUS(cuda_kernels::LaunchBatchNormGradInference<T>(
        dy.data<T>(), x.data<T>(), ctx.input(2).data<float>(), ctx.input(3).data<float>(),
        inv_std.data<float>(), ToChannelLayout(call.layout), out[0]->data<T>(),
        out[1]->data<float>(), out[2]->data<float>(), gpu->stream()));
  }
  const Scaling s(x.dtype());
  return cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) {
    return TFD_CUDNN_STATUS(cudnnBatchNormalizationBackward(
        h, kMode, s.one(), s.zero(), s.one(), s.zero(), call.x.get(), x.raw_data(), call.x.get(),
        dy.raw_data(), call.x.get(), out[0]->raw_data(), call.per_channel.get(),
        ctx.input(2).raw_data(), out[1]->raw_data(), out[2]->raw_data(),
        static_cast<double>(epsilon), ctx.input(3).raw_data(), inv_std.raw_data()));
  });
}

#define TFD_BATCH_NORM_GPU(T)                                                             \
  TFD_REGISTER_KERNEL("FusedBatchNormV3", DeviceType::kGPU, DataTypeToEnum<T>::value,     \
                      FusedBatchNormGpu);                                                 \
  TFD_REGISTER_KERNEL("FusedBatchNormGradV3", DeviceType::kGPU, DataTypeToEnum<T>::value, \
                      FusedBatchNormGradGpu<T>);
TFD_BATCH_NORM_GPU(float)
TFD_BATCH_NORM_GPU(half)
TFD_BATCH_NORM_GPU(bfloat16)
#undef TFD_BATCH_NORM_GPU

}  // namespace
}  // namespace tfd
