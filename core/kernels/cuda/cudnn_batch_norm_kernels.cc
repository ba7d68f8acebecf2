// GPU kernels of FusedBatchNormV3 and FusedBatchNormGradV3 on cuDNN's
// spatial batch normalization, for float, half and bfloat16 x with float
// per-channel tensors, in every data format.
//
// Channels-last data (NHWC, NDHWC) is described to cuDNN as what it is, an
// NHWC tensor [N, C, H, W] (NDHWC's depth folded into H), and trains on
// CUDNN_BATCHNORM_SPATIAL_PERSISTENT through the Ex calls
// (cudnnBatchNormalizationForwardTrainingEx / BackwardEx, with the
// workspace and reserve space they ask for), as PyTorch does for
// channels_last: cuDNN's generic spatial kernels are slow on that layout.
// The persistent kernels add in another order, so results differ from the
// SPATIAL path's by rounding (within the parity tests' tolerances).
// Channels-first data (NCHW, NCDHW) keeps the strided view [outer, C,
// inner, 1] of BatchNormLayout and CUDNN_BATCHNORM_SPATIAL. Inference
// runs CUDNN_BATCHNORM_SPATIAL on either descriptor.
//
// Outputs follow the CPU kernels (core/kernels/cpu/batch_norm_kernels.cc),
// reserve spaces included: reserve_space_2 is the biased batch variance,
// not cuDNN's saved inverse standard deviation, and reserve_space_3 is
// empty, so either device's forward output feeds either device's
// gradient. cuDNN runs training with an averaging factor of 1 (its running
// outputs are then the batch mean and the unbiased variance); batch_norm.cu
// derives the reserve spaces and applies exponential_avg_factor as
// TensorFlow does. The gradient gives cuDNN the reserve spaces as its
// saved statistics. The Ex forward's own reserve space is therefore not
// kept: where cuDNN asks for one, the gradient takes the plain
// cudnnBatchNormalizationBackward call, which reads only the saved
// statistics. A call the persistent kernels refuse (NOT_SUPPORTED or
// BAD_PARAM) runs on CUDNN_BATCHNORM_SPATIAL instead, reported once on
// stderr. With is_training off, which cuDNN
// has no call for, batch_norm.cu computes the gradient.
#include <algorithm>
#include <atomic>
#include <cstdio>
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

constexpr cudnnBatchNormMode_t kSpatial = CUDNN_BATCHNORM_SPATIAL;
constexpr cudnnBatchNormMode_t kPersistent = CUDNN_BATCHNORM_SPATIAL_PERSISTENT;
// The Ex calls' batch normalization alone, without activation or addend.
constexpr cudnnBatchNormOps_t kNormOnly = CUDNN_BATCHNORM_OPS_BN;

// The descriptors of one call: x (and y, dy, dx, which share its layout)
// and the per-channel tensors cuDNN derives from it.
struct BatchNormCall {
  BatchNormLayout layout;
  TensorDescriptor x, per_channel;
  // Channels-last: NHWC descriptor, persistent kernels, Ex calls.
  bool persistent() const { return layout.channels_last; }
  cudnnBatchNormMode_t training_mode() const { return persistent() ? kPersistent : kSpatial; }
};

// x as cuDNN's 4-D view: NHWC [N, C, H, W] with H holding every spatial
// axis but the last when channels come last, else [outer, C, inner, 1].
// x has elements.
cuda_kernels::NchwView BatchNormView(const BatchNormLayout& l, const TensorShape& x) {
  cuda_kernels::NchwView v;
  v.c = static_cast<int>(l.channels);
  if (l.channels_last) {
    v.n = static_cast<int>(x.dim(0));
    v.w = static_cast<int>(x.dim(x.rank() - 2));
    v.h = static_cast<int>(l.outer / (int64_t{v.n} * v.w));
    v.w_stride = v.c;
    v.h_stride = v.w * v.c;
    v.c_stride = 1;
    v.n_stride = v.h * v.w * v.c;
    return v;
  }
  v.n = static_cast<int>(l.outer);
  v.h = static_cast<int>(l.inner);
  v.w = 1;
  v.n_stride = v.c * v.h;
  v.c_stride = v.h;
  v.h_stride = 1;
  v.w_stride = 1;
  return v;
}

// Whether the persistent Ex call refused the call (NOT_SUPPORTED, or
// BAD_PARAM for a shape or argument it does not take) rather than failed
// it: the spatial kernels then run instead. The first refusal is reported
// on stderr, so a slow path is not taken unnoticed.
bool PersistentRefused(const absl::Status& s) {
  if (!absl::IsUnimplemented(s) && !absl::IsInvalidArgument(s)) return false;
  static std::atomic<bool> reported{false};
  if (!reported.exchange(true)) {
    std::fprintf(stderr,
                 "cuDNN's persistent batch-norm kernels refused a channels-last call; it and "
                 "others like it run on CUDNN_BATCHNORM_SPATIAL: %s\n",
                 std::string(s.message()).c_str());
  }
  return true;
}

// A scratch buffer of `bytes` (at least one) for cuDNN.
absl::StatusOr<Tensor> Scratch(CudaDevice* gpu, size_t bytes) {
  return Tensor::Allocate(DT_UINT8, TensorShape({static_cast<int64_t>(std::max<size_t>(bytes, 1))}),
                          gpu);
}

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
  TFD_RETURN_IF_ERROR(call->x.Create(x.dtype(), BatchNormView(l, x.shape())));
  return call->per_channel.CreateBatchNormParams(call->x, call->training_mode());
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

// Training forward of channels-last x on the persistent kernels: the
// running outputs get the batch mean and unbiased variance (factor 1);
// cuDNN's saved mean and inverse deviation go to `save_mean` and
// `save_inv_std`, which the caller overwrites with the reserve spaces.
absl::Status ForwardTrainingEx(cudnnHandle_t h, CudaDevice* gpu, const BatchNormCall& call,
                               const Tensor& x, const Tensor& scale, const Tensor& offset,
                               float epsilon, Tensor* y, Tensor* mean, Tensor* var,
                               Tensor* save_mean, Tensor* save_inv_std) {
  size_t ws_bytes = 0, reserve_bytes = 0;
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnGetBatchNormalizationForwardTrainingExWorkspaceSize(
      h, kPersistent, kNormOnly, call.x.get(), /*zDesc=*/nullptr, call.x.get(),
      call.per_channel.get(), /*activationDesc=*/nullptr, &ws_bytes)));
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
      h, kPersistent, kNormOnly, /*activationDesc=*/nullptr, call.x.get(), &reserve_bytes)));
  TFD_ASSIGN_OR_RETURN(Tensor ws, Scratch(gpu, ws_bytes));
  TFD_ASSIGN_OR_RETURN(Tensor reserve, Scratch(gpu, reserve_bytes));
  const Scaling s(x.dtype());
  return TFD_CUDNN_STATUS(cudnnBatchNormalizationForwardTrainingEx(
      h, kPersistent, kNormOnly, s.one(), s.zero(), call.x.get(), x.raw_data(),
      /*zDesc=*/nullptr, /*zData=*/nullptr, call.x.get(), y->raw_data(), call.per_channel.get(),
      scale.raw_data(), offset.raw_data(), /*exponentialAverageFactor=*/1.0, mean->raw_data(),
      var->raw_data(), static_cast<double>(epsilon), save_mean->raw_data(),
      save_inv_std->raw_data(), /*activationDesc=*/nullptr, ws.raw_data(), ws_bytes,
      reserve.raw_data(), reserve_bytes));
}

// Training gradient of channels-last x on the persistent kernels, from the
// saved statistics `mean` and `inv_std`.
absl::Status BackwardEx(cudnnHandle_t h, CudaDevice* gpu, const BatchNormCall& call,
                        const Tensor& x, const Tensor& dy, const Tensor& scale, const Tensor& mean,
                        const Tensor& inv_std, float epsilon, Tensor* dx, Tensor* dscale,
                        Tensor* doffset) {
  const Scaling s(x.dtype());
  size_t reserve_bytes = 0;
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnGetBatchNormalizationTrainingExReserveSpaceSize(
      h, kPersistent, kNormOnly, /*activationDesc=*/nullptr, call.x.get(), &reserve_bytes)));
  if (reserve_bytes > 0) {
    // BackwardEx would read the forward's reserve space, which is not kept
    // (see the file comment).
    return TFD_CUDNN_STATUS(cudnnBatchNormalizationBackward(
        h, kPersistent, s.one(), s.zero(), s.one(), s.zero(), call.x.get(), x.raw_data(),
        call.x.get(), dy.raw_data(), call.x.get(), dx->raw_data(), call.per_channel.get(),
        scale.raw_data(), dscale->raw_data(), doffset->raw_data(), static_cast<double>(epsilon),
        mean.raw_data(), inv_std.raw_data()));
  }
  size_t ws_bytes = 0;
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnGetBatchNormalizationBackwardExWorkspaceSize(
      h, kPersistent, kNormOnly, call.x.get(), /*yDesc=*/nullptr, call.x.get(),
      /*dzDesc=*/nullptr, call.x.get(), call.per_channel.get(), /*activationDesc=*/nullptr,
      &ws_bytes)));
  TFD_ASSIGN_OR_RETURN(Tensor ws, Scratch(gpu, ws_bytes));
  return TFD_CUDNN_STATUS(cudnnBatchNormalizationBackwardEx(
      h, kPersistent, kNormOnly, s.one(), s.zero(), s.one(), s.zero(), call.x.get(),
      x.raw_data(), /*yDesc=*/nullptr, /*yData=*/nullptr, call.x.get(), dy.raw_data(),
      /*dzDesc=*/nullptr, /*dzData=*/nullptr, call.x.get(), dx->raw_data(),
      call.per_channel.get(), scale.raw_data(), /*bnBiasData=*/nullptr, dscale->raw_data(),
      doffset->raw_data(), static_cast<double>(epsilon), mean.raw_data(), inv_std.raw_data(),
      /*activationDesc=*/nullptr, ws.raw_data(), ws_bytes, /*reserveSpace=*/nullptr,
      /*reserveSpaceSizeInBytes=*/0));
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
          h, kSpatial, s.one(), s.zero(), call.x.get(), x.raw_data(), call.x.get(),
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
  TFD_RETURN_IF_ERROR(cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) -> absl::Status {
    if (call.persistent()) {
      absl::Status ex = ForwardTrainingEx(h, gpu, call, x, ctx.input(1), ctx.input(2), epsilon,
                                          out[0], out[1], out[2], out[3], out[4]);
      if (!PersistentRefused(ex)) return ex;
    }
    return TFD_CUDNN_STATUS(cudnnBatchNormalizationForwardTraining(
        h, kSpatial, s.one(), s.zero(), call.x.get(), x.raw_data(), call.x.get(),
        out[0]->raw_data(),
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
    const cuda_kernels::ChannelSumPlan plan =
        cuda_kernels::MakeChannelSumPlan(C, call.layout.per_channel());
    Tensor partials;
    if (plan.runs > 1) {
      TFD_ASSIGN_OR_RETURN(partials,
                           Tensor::Allocate(DT_FLOAT,
                                            TensorShape({2 * plan.PartialsPerQuantity(C)}), gpu));
    }
    return TFD_CUDA_STATUS(cuda_kernels::LaunchBatchNormGradInference<T>(
        dy.data<T>(), x.data<T>(), ctx.input(2).data<float>(), ctx.input(3).data<float>(),
        inv_std.data<float>(), ToChannelLayout(call.layout), plan,
        plan.runs > 1 ? partials.data<float>() : nullptr, out[0]->data<T>(),
        out[1]->data<float>(), out[2]->data<float>(), gpu->stream()));
  }
  const Scaling s(x.dtype());
  return cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) -> absl::Status {
    if (call.persistent()) {
      absl::Status ex = BackwardEx(h, gpu, call, x, dy, ctx.input(2), ctx.input(3), inv_std,
                                   epsilon, out[0], out[1], out[2]);
      if (!PersistentRefused(ex)) return ex;
    }
    return TFD_CUDNN_STATUS(cudnnBatchNormalizationBackward(
        h, kSpatial, s.one(), s.zero(), s.one(), s.zero(), call.x.get(), x.raw_data(), call.x.get(),
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
