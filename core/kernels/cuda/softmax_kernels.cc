// GPU kernels of Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits and
// SparseSoftmaxCrossEntropyWithLogits (declared with the NN ops) for
// float, double, half and bfloat16, from softmax.cu. Leading dimensions
// are flattened into rows; the last is the classes.
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/cuda/softmax.h"

namespace tfd {
namespace {

int64_t Classes(const Tensor& t) { return t.rank() == 0 ? 1 : t.shape().dim(t.rank() - 1); }
int64_t Rows(const Tensor& t) {
  const int64_t c = Classes(t);
  return c == 0 ? 0 : t.NumElements() / c;
}

// logits: [..., C] -> the same shape.
template <typename T, bool kLog>
absl::Status SoftmaxGpu(KernelContext& ctx) {
  const Tensor& logits = ctx.input(0);
  TFD_ASSIGN_OR_RETURN(Tensor * out, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchSoftmax<T>(
      logits.data<T>(), out->data<T>(), Rows(logits), Classes(logits), kLog, gpu->stream()));
}

// features, labels: [B, C] -> loss: [B], backprop: [B, C].
template <typename T>
absl::Status XentGpu(KernelContext& ctx) {
  const Tensor& features = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  if (labels.shape() != features.shape()) {
    // The shape function broadcasts nothing here; guard the buffer sizes.
    return ctx.Error("features and labels must have the same shape, got ",
                     features.shape().DebugString(), " and ", labels.shape().DebugString());
  }
  TFD_ASSIGN_OR_RETURN(Tensor * loss, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(Tensor * backprop, ctx.AllocateOutput(1));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchSoftmaxXent<T>(
      features.data<T>(), labels.data<T>(), loss->data<T>(), backprop->data<T>(),
      Rows(features), Classes(features), gpu->stream()));
}

// features: [B, C], labels: [B] int32/int64 -> loss: [B], backprop: [B, C].
template <typename T>
absl::Status SparseXentGpu(KernelContext& ctx) {
  const Tensor& features = ctx.input(0);
  const Tensor& labels = ctx.input(1);
  TFD_ASSIGN_OR_RETURN(Tensor * loss, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(Tensor * backprop, ctx.AllocateOutput(1));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  const int64_t rows = Rows(features), classes = Classes(features);
  if (labels.dtype() == DT_INT32) {
    const cudaError_t launched = cuda_kernels::LaunchSparseSoftmaxXent<T, int32_t>(
        features.data<T>(), labels.data<int32_t>(), loss->data<T>(), backprop->data<T>(), rows,
        classes, gpu->stream());
    return TFD_CUDA_STATUS(launched);
  }
  const cudaError_t launched = cuda_kernels::LaunchSparseSoftmaxXent<T, int64_t>(
      features.data<T>(), labels.data<int64_t>(), loss->data<T>(), backprop->data<T>(), rows,
      classes, gpu->stream());
  return TFD_CUDA_STATUS(launched);
}

#define TFD_SOFTMAX_GPU(T)                                                                 \
  TFD_REGISTER_KERNEL("Softmax", DeviceType::kGPU, DataTypeToEnum<T>::value,               \
                      (SoftmaxGpu<T, false>));                                             \
  TFD_REGISTER_KERNEL("LogSoftmax", DeviceType::kGPU, DataTypeToEnum<T>::value,            \
                      (SoftmaxGpu<T, true>));                                              \
  TFD_REGISTER_KERNEL("SoftmaxCrossEntropyWithLogits", DeviceType::kGPU,                   \
                      DataTypeToEnum<T>::value, XentGpu<T>);                               \
  TFD_REGISTER_KERNEL("SparseSoftmaxCrossEntropyWithLogits", DeviceType::kGPU,             \
                      DataTypeToEnum<T>::value, SparseXentGpu<T>);
TFD_SOFTMAX_GPU(float)
TFD_SOFTMAX_GPU(double)
TFD_SOFTMAX_GPU(half)
TFD_SOFTMAX_GPU(bfloat16)
#undef TFD_SOFTMAX_GPU

}  // namespace
}  // namespace tfd
