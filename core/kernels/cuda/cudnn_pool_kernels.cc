// GPU kernels of MaxPool, MaxPoolGrad, AvgPool and AvgPoolGrad on cuDNN
// for float, double, half and bfloat16, NHWC and NCHW. Max pooling uses
// cuDNN's deterministic mode, so the gradient of a window goes to one
// maximum every time; average pooling divides by the number of input
// elements in the window (padding excluded), as TensorFlow's SAME average
// does. Padding that symmetric padding cannot reproduce is UNIMPLEMENTED
// (MakeCudnnPoolPlan).
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/conv_geometry.h"
#include "core/kernels/cuda/cudnn_conv_plan.h"
#include "core/kernels/cuda/cudnn_util.h"

namespace tfd {
namespace {

using cuda_kernels::CudnnPoolPlan;
using cuda_kernels::Scaling;
using cuda_kernels::TensorDescriptor;

class PoolingDescriptor {
 public:
  ~PoolingDescriptor() {
    if (desc_ != nullptr) cudnnDestroyPoolingDescriptor(desc_);
  }
  absl::Status Create(bool max, const CudnnPoolPlan& p) {
    TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnCreatePoolingDescriptor(&desc_)));
    return TFD_CUDNN_STATUS(cudnnSetPooling2dDescriptor(
        desc_, max ? CUDNN_POOLING_MAX_DETERMINISTIC : CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
        CUDNN_NOT_PROPAGATE_NAN, p.window_h, p.window_w, p.pad_h, p.pad_w, p.stride_h,
        p.stride_w));
  }
  cudnnPoolingDescriptor_t get() const { return desc_; }

 private:
  cudnnPoolingDescriptor_t desc_ = nullptr;
};

// Descriptors of one pooling call over an input of `input_shape`.
struct PoolCall {
  DataType dtype;
  CudnnPoolPlan plan;
  TensorDescriptor x, y;
  PoolingDescriptor pool;
};

// The plan only: no cuDNN call, so it also serves empty tensors.
absl::Status Plan(const KernelContext& ctx, bool max, DataType dtype,
                  const TensorShape& input_shape, PoolCall* call) {
  TFD_ASSIGN_OR_RETURN(PoolAttrs attrs, ParsePoolAttrs(ctx.attrs(), /*allow_explicit=*/max));
  TFD_ASSIGN_OR_RETURN(PoolGeometry g, ComputePoolGeometry(attrs, input_shape));
  absl::StatusOr<CudnnPoolPlan> plan = cuda_kernels::MakeCudnnPoolPlan(g);
  if (!plan.ok()) return WithOpName(ctx.op_name(), plan.status());
  call->dtype = dtype;
  call->plan = *plan;
  return absl::OkStatus();
}

// The descriptors of a planned call. Only for non-empty tensors: cuDNN
// refuses a dimension of 0.
absl::Status Describe(bool max, PoolCall* call) {
  TFD_RETURN_IF_ERROR(call->x.Create(call->dtype, call->plan.input));
  TFD_RETURN_IF_ERROR(call->y.Create(call->dtype, call->plan.output));
  return call->pool.Create(max, call->plan);
}

// input -> output (both in the op's data_format).
template <bool kMax>
absl::Status PoolGpu(KernelContext& ctx) {
  const Tensor& input = ctx.input(0);
  PoolCall call;
  TFD_RETURN_IF_ERROR(Plan(ctx, kMax, input.dtype(), input.shape(), &call));
  TFD_ASSIGN_OR_RETURN(Tensor * output, ctx.AllocateOutput(0));
  if (output->NumElements() == 0) return absl::OkStatus();
  if (input.NumElements() == 0) return ctx.Error("pooling an empty input");
  TFD_RETURN_IF_ERROR(Describe(kMax, &call));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  return cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) {
    const Scaling s(call.dtype);
    return TFD_CUDNN_STATUS(cudnnPoolingForward(h, call.pool.get(), s.one(), call.x.get(),
                                                input.raw_data(), s.zero(), call.y.get(),
                                                output->raw_data()));
  });
}

// Runs cudnnPoolingBackward; y and x are the forward output and input
// (average pooling reads neither, so its caller passes dy and dx there).
absl::Status Backward(CudaDevice* gpu, bool max, PoolCall& call, const void* y, const void* dy,
                      const void* x, Tensor* dx) {
  if (dx->NumElements() == 0) return absl::OkStatus();
  if (call.plan.output.elements() == 0) return gpu->Memset(dx->raw_data(), 0, dx->TotalBytes());
  TFD_RETURN_IF_ERROR(Describe(max, &call));
  return cuda_kernels::WithCudnn(gpu, [&](cudnnHandle_t h) {
    const Scaling s(call.dtype);
    return TFD_CUDNN_STATUS(cudnnPoolingBackward(h, call.pool.get(), s.one(), call.y.get(), y,
                                                 call.y.get(), dy, call.x.get(), x, s.zero(),
                                                 call.x.get(), dx->raw_data()));
  });
}

// orig_input, orig_output, grad -> the gradient of orig_input.
absl::Status MaxPoolGradGpu(KernelContext& ctx) {
  const Tensor& orig_input = ctx.input(0);
  const Tensor& orig_output = ctx.input(1);
  const Tensor& grad = ctx.input(2);
  PoolCall call;
  TFD_RETURN_IF_ERROR(Plan(ctx, true, orig_input.dtype(), orig_input.shape(), &call));
  if (orig_output.NumElements() != call.plan.output.elements() ||
      grad.NumElements() != call.plan.output.elements()) {
    return ctx.Error("orig_output and grad must have the pooled shape of orig_input");
  }
  TFD_ASSIGN_OR_RETURN(Tensor * dx, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  return Backward(gpu, /*max=*/true, call, orig_output.raw_data(), grad.raw_data(),
                  orig_input.raw_data(), dx);
}

// orig_input_shape (host), grad -> the gradient of the input.
absl::Status AvgPoolGradGpu(KernelContext& ctx) {
  const Tensor& grad = ctx.input(1);
  PoolCall call;
  TFD_RETURN_IF_ERROR(Plan(ctx, false, grad.dtype(), ctx.output_shape(0), &call));
  if (grad.NumElements() != call.plan.output.elements()) {
    return ctx.Error("grad must have the pooled shape of orig_input_shape");
  }
  TFD_ASSIGN_OR_RETURN(Tensor * dx, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  return Backward(gpu, /*max=*/false, call, grad.raw_data(), grad.raw_data(), dx->raw_data(),
                  dx);
}

#define TFD_POOL_GPU(T)                                                                      \
  TFD_REGISTER_KERNEL("MaxPool", DeviceType::kGPU, DataTypeToEnum<T>::value, PoolGpu<true>); \
  TFD_REGISTER_KERNEL("AvgPool", DeviceType::kGPU, DataTypeToEnum<T>::value, PoolGpu<false>); \
  TFD_REGISTER_KERNEL("MaxPoolGrad", DeviceType::kGPU, DataTypeToEnum<T>::value,             \
                      MaxPoolGradGpu);                                                       \
  TFD_REGISTER_KERNEL("AvgPoolGrad", DeviceType::kGPU, DataTypeToEnum<T>::value, AvgPoolGradGpu);
TFD_POOL_GPU(float)
TFD_POOL_GPU(double)
TFD_POOL_GPU(half)
TFD_POOL_GPU(bfloat16)
#undef TFD_POOL_GPU

}  // namespace
}  // namespace tfd
