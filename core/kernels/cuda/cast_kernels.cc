// GPU kernel of Cast (declared in core/kernels/cwise_ops.cc) between
// float, double, half, bfloat16, int32, int64 and bool, from cast.cu. A
// cast to the same dtype is a view, as on the CPU.
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/cuda/cast.h"

namespace tfd {
namespace {

// x: SrcT -> y: DstT, same shape.
absl::Status CastGpu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const DataType dst = ctx.output_dtype(0);
  if (x.dtype() == dst) {
    TFD_ASSIGN_OR_RETURN(Tensor view, x.Reshaped(x.shape()));
    return ctx.SetOutput(0, std::move(view));
  }
  TFD_ASSIGN_OR_RETURN(bool truncate, ctx.GetAttr<bool>("Truncate"));
  if (truncate) {
    return absl::UnimplementedError(
        absl::StrCat(ctx.op_name(), ": Truncate=true is not supported on the GPU"));
  }
  if (!cuda_kernels::GpuCastSupported(x.dtype(), dst)) {
    return absl::UnimplementedError(absl::StrCat(ctx.op_name(), ": no GPU cast from ",
                                                 DataTypeName(x.dtype()), " to ",
                                                 DataTypeName(dst)));
  }
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchCast(x.dtype(), dst, x.raw_data(), y->raw_data(),
                                                  x.NumElements(), gpu->stream()));
}

TFD_REGISTER_KERNEL("Cast", DeviceType::kGPU, DT_INVALID, CastGpu);

}  // namespace
}  // namespace tfd
