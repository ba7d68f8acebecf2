// GPU kernels of the multi-tensor optimizer updates
// (core/kernels/multi_tensor_training_ops.cc): the N variables of one op
// become one table of UpdateTensors, and the launchers of
// optimizer_updates.h take it in one launch (one per kMaxTensorsPerLaunch
// variables). The hyperparameters come from update_params.h, as for the
// single-variable kernels (training_kernels.cc), so a grouped update steps
// by the same values as N single ones.
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/cuda/optimizer_updates.h"
#include "core/kernels/cuda/update_params.h"

namespace tfd {
namespace {

using cuda_kernels::UpdateTensors;

// The table of `lists` lists (var, slots..., grad) over n variables.
template <typename T>
std::vector<UpdateTensors<T>> Table(const KernelContext& ctx, int lists, int n) {
  std::vector<UpdateTensors<T>> table(n);
  for (int i = 0; i < n; ++i) {
    UpdateTensors<T>& u = table[i];
    u.var = ctx.input(i).data<T>();
    T** slots[] = {&u.slot0, &u.slot1, &u.slot2};
    for (int l = 1; l < lists - 1; ++l) *slots[l - 1] = ctx.input(l * n + i).data<T>();
    u.grad = ctx.input((lists - 1) * n + i).data<T>();
    u.n = ctx.input(i).NumElements();
  }
  return table;
}

// var, accum, grad: N each; lr, momentum.
template <typename T>
absl::Status KerasMomentumGpu(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(bool nesterov, ctx.GetAttr<bool>("use_nesterov"));
  const int n = (ctx.num_inputs() - 2) / 3;
  std::vector<UpdateTensors<T>> table = Table<T>(ctx, 3, n);
  const cuda_kernels::MomentumParams p =
      cuda_kernels::MomentumParamsAt<T>(ctx, 3 * n, 3 * n + 1, nesterov);
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchKerasMomentum<T>(table.data(), n, p, gpu->stream()));
}

// var, m, v, [vhat,] grad: N each; beta1_power, beta2_power, lr, beta1,
// beta2, epsilon.
template <typename T, bool kAmsgrad>
absl::Status AdamGpu(KernelContext& ctx) {
  bool nesterov = false;
  if (!kAmsgrad) {
    TFD_ASSIGN_OR_RETURN(nesterov, ctx.GetAttr<bool>("use_nesterov"));
  }
  constexpr int kLists = kAmsgrad ? 5 : 4;
  const int n = (ctx.num_inputs() - 6) / kLists;
  std::vector<UpdateTensors<T>> table = Table<T>(ctx, kLists, n);
  const cuda_kernels::AdamParams p =
      cuda_kernels::AdamParamsAt<T>(ctx, kLists * n, nesterov, kAmsgrad);
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchAdam<T>(table.data(), n, p, gpu->stream()));
}

#define TFD_MULTI_TENSOR_GPU(T)                                                              \
  TFD_REGISTER_KERNEL("TfdMultiTensorApplyKerasMomentum", DeviceType::kGPU,                  \
                      DataTypeToEnum<T>::value, KerasMomentumGpu<T>);                        \
  TFD_REGISTER_KERNEL("TfdMultiTensorApplyAdam", DeviceType::kGPU, DataTypeToEnum<T>::value, \
                      (AdamGpu<T, false>));                                                  \
  TFD_REGISTER_KERNEL("TfdMultiTensorApplyAdamWithAmsgrad", DeviceType::kGPU,                \
                      DataTypeToEnum<T>::value, (AdamGpu<T, true>));
TFD_MULTI_TENSOR_GPU(float)
TFD_MULTI_TENSOR_GPU(double)
TFD_MULTI_TENSOR_GPU(half)
TFD_MULTI_TENSOR_GPU(bfloat16)
#undef TFD_MULTI_TENSOR_GPU

}  // namespace
}  // namespace tfd
