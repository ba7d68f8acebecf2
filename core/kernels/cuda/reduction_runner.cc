#include "core/kernels/cuda/reduction_runner.h"

#include <type_traits>
#include <utility>

#include "core/device/cuda/cuda_status.h"
#include "core/framework/status.h"

namespace tfd {
namespace cuda_kernels {
namespace {

// The accumulator of T on the GPU: double for double, float otherwise.
template <typename T>
using GpuAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

}  // namespace

template <typename T>
absl::Status RunReduction(CudaDevice* gpu, ReduceOp op, bool mean, const Tensor& x, Tensor* out,
                          const std::vector<ReductionPass>& passes) {
  using A = GpuAcc<T>;
  TFD_RETURN_IF_ERROR(gpu->Activate());
  if (out->NumElements() == 0) return absl::OkStatus();
  if (passes.empty()) {
    // Only size-1 axes are reduced: the values are the input's.
    return TFD_CUDA_STATUS(cudaMemcpyAsync(out->data<T>(), x.data<T>(),
                                           x.NumElements() * sizeof(T),
                                           cudaMemcpyDeviceToDevice, gpu->stream()));
  }
  // The inputs behind each output (0 for an empty input: Mean is NaN).
  // Not the product of the passes' lengths: a chunked pass and the pass
  // over its runs reduce the same axis.
  const double count =
      static_cast<double>(x.NumElements()) / static_cast<double>(out->NumElements());
  const double last_scale = mean ? 1.0 / count : 1.0;
  if (passes.size() == 1) {
    const cudaError_t launched = LaunchReducePass<T, T>(op, x.data<T>(), out->data<T>(),
                                                        passes[0], last_scale, gpu->stream());
    return TFD_CUDA_STATUS(launched);
  }
  // First pass T -> A, middle passes A -> A, last A -> T.
  Tensor current;
  for (size_t i = 0; i + 1 < passes.size(); ++i) {
    const ReductionPass& p = passes[i];
    TFD_ASSIGN_OR_RETURN(Tensor next, Tensor::Allocate(DataTypeToEnum<A>::value,
                                                       TensorShape({p.OutputElements()}), gpu));
    const cudaError_t launched =
        i == 0 ? LaunchReducePass<T, A>(op, x.data<T>(), next.data<A>(), p, 1.0, gpu->stream())
               : LaunchReducePass<A, A>(op, current.data<A>(), next.data<A>(), p, 1.0,
                                        gpu->stream());
    TFD_RETURN_IF_ERROR(TFD_CUDA_STATUS(launched));
    current = std::move(next);
  }
  const cudaError_t launched = LaunchReducePass<A, T>(op, current.data<A>(), out->data<T>(),
                                                      passes.back(), last_scale, gpu->stream());
  return TFD_CUDA_STATUS(launched);
}

template absl::Status RunReduction<float>(CudaDevice*, ReduceOp, bool, const Tensor&, Tensor*,
                                          const std::vector<ReductionPass>&);
template absl::Status RunReduction<double>(CudaDevice*, ReduceOp, bool, const Tensor&, Tensor*,
                                           const std::vector<ReductionPass>&);
template absl::Status RunReduction<half>(CudaDevice*, ReduceOp, bool, const Tensor&, Tensor*,
                                         const std::vector<ReductionPass>&);
template absl::Status RunReduction<bfloat16>(CudaDevice*, ReduceOp, bool, const Tensor&,
                                             Tensor*, const std::vector<ReductionPass>&);
template absl::Status RunReduction<bool>(CudaDevice*, ReduceOp, bool, const Tensor&, Tensor*,
                                         const std::vector<ReductionPass>&);

}  // namespace cuda_kernels
}  // namespace tfd
