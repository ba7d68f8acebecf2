// cuDNN plumbing for the GPU kernels: one handle per GPU bound to its
// stream, RAII descriptors, and the cuDNN data type and scaling constants
// of each tfd dtype. Host C++, CUDA builds only.
//
// Thread safety: WithCudnn serializes users of a device's handle, as
// CudaDevice::WithCublas does for cuBLAS.
#ifndef TFD_CORE_KERNELS_CUDA_CUDNN_UTIL_H_
#define TFD_CORE_KERNELS_CUDA_CUDNN_UTIL_H_

#include <cudnn.h>

#include <functional>

#include "absl/status/statusor.h"
#include "core/device/cuda/cuda_device.h"
#include "core/framework/types.h"
#include "core/kernels/cuda/cudnn_conv_plan.h"

namespace tfd {
namespace cuda_kernels {

// Runs `fn` with `gpu`'s cuDNN handle (created on first use, bound to
// gpu->stream()), the device active and no other thread using the handle.
absl::Status WithCudnn(CudaDevice* gpu, const std::function<absl::Status(cudnnHandle_t)>& fn);

// CUDNN_DATA_FLOAT, _DOUBLE, _HALF, _BFLOAT16; UNIMPLEMENTED otherwise.
absl::StatusOr<cudnnDataType_t> CudnnDataType(DataType dtype);

// The math type ConvolutionDescriptor::Create gives `dtype`: FMA for
// float (no TF32), the default for double, tensor cores for 16-bit types.
cudnnMathType_t ConvolutionMathType(DataType dtype);

// alpha = 1, beta = 0 in the type cuDNN reads them as for `dtype` (double
// for double, float otherwise).
struct Scaling {
  explicit Scaling(DataType dtype) : is_double(dtype == DT_DOUBLE) {}
  const void* one() const { return is_double ? static_cast<const void*>(&d1) : &f1; }
  const void* zero() const { return is_double ? static_cast<const void*>(&d0) : &f0; }
  bool is_double;
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
};

// Owners of cuDNN descriptors; Create() reports cuDNN's error.
class TensorDescriptor {
 public:
  TensorDescriptor() = default;
  ~TensorDescriptor();
  TensorDescriptor(const TensorDescriptor&) = delete;
  TensorDescriptor& operator=(const TensorDescriptor&) = delete;
  // A 4-D descriptor of `view` with the element type of `dtype`
  // (UNIMPLEMENTED for a type cuDNN lacks, as CudnnDataType).
  absl::Status Create(DataType dtype, const NchwView& view);
  // The per-channel scale/offset/mean/variance tensor of a batch
  // normalization over `x` (float for 16-bit x), as cuDNN derives it.
  absl::Status CreateBatchNormParams(const TensorDescriptor& x, cudnnBatchNormMode_t mode);
  cudnnTensorDescriptor_t get() const { return desc_; }

 private:
  cudnnTensorDescriptor_t desc_ = nullptr;
};

class FilterDescriptor {
 public:
  FilterDescriptor() = default;
  ~FilterDescriptor();
  FilterDescriptor(const FilterDescriptor&) = delete;
  FilterDescriptor& operator=(const FilterDescriptor&) = delete;
  // A packed filter of [k, c, r, s]: KRSC (CUDNN_TENSOR_NHWC) when `nhwc`,
  // else KCRS (CUDNN_TENSOR_NCHW).
  absl::Status Create(DataType dtype, const NchwView& packed, bool nhwc);
  cudnnFilterDescriptor_t get() const { return desc_; }

 private:
  cudnnFilterDescriptor_t desc_ = nullptr;
};

class ConvolutionDescriptor {
 public:
  ConvolutionDescriptor() = default;
  ~ConvolutionDescriptor();
  ConvolutionDescriptor(const ConvolutionDescriptor&) = delete;
  ConvolutionDescriptor& operator=(const ConvolutionDescriptor&) = delete;
  // The plan's pads, strides, dilations and groups; accumulation in float
  // (double for double). float32 is restricted to FMA math, so no TF32
  // rounding creeps in (GPU and CPU agree to 1e-5); 16-bit types may use
  // tensor cores.
  absl::Status Create(DataType dtype, const CudnnConvPlan& plan);
  // Replaces the math type Create chose (with an autotuned algorithm's).
  absl::Status SetMathType(cudnnMathType_t math);
  cudnnConvolutionDescriptor_t get() const { return desc_; }

 private:
  cudnnConvolutionDescriptor_t desc_ = nullptr;
};

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_CUDNN_UTIL_H_
