#include "core/kernels/cuda/cudnn_util.h"

#include <map>
#include <memory>

#include "absl/synchronization/mutex.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/status.h"

namespace tfd {
namespace cuda_kernels {
namespace {

struct DeviceHandle {
  absl::Mutex mu;
  cudnnHandle_t handle = nullptr;
};

absl::Mutex handles_mu(absl::kConstInit);
// Leaked on purpose: handles live as long as the process's devices.
std::map<int, std::unique_ptr<DeviceHandle>>* handles ABSL_GUARDED_BY(handles_mu) = nullptr;

DeviceHandle* HandleSlot(int ordinal) {
  absl::MutexLock lock(&handles_mu);
  if (handles == nullptr) handles = new std::map<int, std::unique_ptr<DeviceHandle>>();
  std::unique_ptr<DeviceHandle>& slot = (*handles)[ordinal];
  if (slot == nullptr) slot = std::make_unique<DeviceHandle>();
  return slot.get();
}

}  // namespace

absl::Status WithCudnn(CudaDevice* gpu, const std::function<absl::Status(cudnnHandle_t)>& fn) {
  TFD_RETURN_IF_ERROR(gpu->Activate());
  DeviceHandle* slot = HandleSlot(gpu->ordinal());
  absl::MutexLock lock(&slot->mu);
  if (slot->handle == nullptr) {
    cudnnHandle_t handle;
    TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnCreate(&handle)));
    absl::Status bound = TFD_CUDNN_STATUS(cudnnSetStream(handle, gpu->stream()));
    if (!bound.ok()) {
      cudnnDestroy(handle);
      return bound;
    }
    slot->handle = handle;
  }
  return fn(slot->handle);
}

absl::StatusOr<cudnnDataType_t> CudnnDataType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return CUDNN_DATA_FLOAT;
    case DT_DOUBLE: return CUDNN_DATA_DOUBLE;
    case DT_HALF: return CUDNN_DATA_HALF;
    case DT_BFLOAT16: return CUDNN_DATA_BFLOAT16;
    default:
      return absl::UnimplementedError("cuDNN kernels take float, double, half or bfloat16, got " +
                                      DataTypeName(dtype));
  }
}

TensorDescriptor::~TensorDescriptor() {
  if (desc_ != nullptr) cudnnDestroyTensorDescriptor(desc_);
}

absl::Status TensorDescriptor::Create(DataType dtype, const NchwView& v) {
  TFD_ASSIGN_OR_RETURN(cudnnDataType_t type, CudnnDataType(dtype));
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnCreateTensorDescriptor(&desc_)));
  return TFD_CUDNN_STATUS(cudnnSetTensor4dDescriptorEx(desc_, type, v.n, v.c, v.h, v.w,
                                                       v.n_stride, v.c_stride, v.h_stride,
                                                       v.w_stride));
}

absl::Status TensorDescriptor::CreateBatchNormParams(const TensorDescriptor& x,
                                                     cudnnBatchNormMode_t mode) {
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnCreateTensorDescriptor(&desc_)));
  return TFD_CUDNN_STATUS(cudnnDeriveBNTensorDescriptor(desc_, x.get(), mode));
}

FilterDescriptor::~FilterDescriptor() {
  if (desc_ != nullptr) cudnnDestroyFilterDescriptor(desc_);
}

absl::Status FilterDescriptor::Create(DataType dtype, const NchwView& packed, bool nhwc) {
  TFD_ASSIGN_OR_RETURN(cudnnDataType_t type, CudnnDataType(dtype));
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnCreateFilterDescriptor(&desc_)));
  return TFD_CUDNN_STATUS(cudnnSetFilter4dDescriptor(desc_, type,
                                                     nhwc ? CUDNN_TENSOR_NHWC : CUDNN_TENSOR_NCHW,
                                                     packed.n, packed.c, packed.h, packed.w));
}

ConvolutionDescriptor::~ConvolutionDescriptor() {
  if (desc_ != nullptr) cudnnDestroyConvolutionDescriptor(desc_);
}

absl::Status ConvolutionDescriptor::Create(DataType dtype, const CudnnConvPlan& p) {
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnCreateConvolutionDescriptor(&desc_)));
  const cudnnDataType_t compute = dtype == DT_DOUBLE ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnSetConvolution2dDescriptor(
      desc_, p.pad_h, p.pad_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w,
      CUDNN_CROSS_CORRELATION, compute)));
  TFD_RETURN_IF_ERROR(TFD_CUDNN_STATUS(cudnnSetConvolutionGroupCount(desc_, p.groups)));
  return SetMathType(ConvolutionMathType(dtype));
}

absl::Status ConvolutionDescriptor::SetMathType(cudnnMathType_t math) {
  return TFD_CUDNN_STATUS(cudnnSetConvolutionMathType(desc_, math));
}

cudnnMathType_t ConvolutionMathType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT: return CUDNN_FMA_MATH;
    case DT_DOUBLE: return CUDNN_DEFAULT_MATH;
    default: return CUDNN_TENSOR_OP_MATH;
  }
}

}  // namespace cuda_kernels
}  // namespace tfd
