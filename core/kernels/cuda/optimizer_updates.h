// Launchers of the fused optimizer updates on the GPU
// (optimizer_updates.cu): plain SGD, Keras's SGD with momentum and Adam
// (optionally AMSGrad), each over a LIST of variables in one launch, as
// PyTorch's multi-tensor optimizers do: per-variable launches would cost a
// launch each for every weight of a model every step.
//
// Each UpdateTensors entry is one variable: its buffer, its slot buffers
// (unused ones null) and its gradient, all device memory of n elements,
// updated in place with the CPU kernels' formulas
// (core/kernels/cpu/training_kernels.cc) computed in float (double for
// double). The table travels as a kernel parameter, which CUDA 12.1 and
// later allow up to 32764 bytes on sm_70 and newer: kMaxTensorsPerLaunch
// variables fit, so a model's whole update (ResNet-50: 214 variables) is
// one launch; longer lists take one launch per kMaxTensorsPerLaunch
// variables. Hyperparameters are given already widened and combined by
// the caller as the CPU kernel combines them (Adam's alpha). Returns the
// first launch error.
#ifndef TFD_CORE_KERNELS_CUDA_OPTIMIZER_UPDATES_H_
#define TFD_CORE_KERNELS_CUDA_OPTIMIZER_UPDATES_H_

#include <cuda_runtime_api.h>

#include <cstdint>

namespace tfd {
namespace cuda_kernels {

constexpr int kMaxTensorsPerLaunch = 512;

template <typename T>
struct UpdateTensors {
  T* var = nullptr;
  T* slot0 = nullptr;  // momentum, Adagrad: accum; Adam: m; RMSprop: ms
  T* slot1 = nullptr;  // Adam: v; centered RMSprop: mg
  T* slot2 = nullptr;  // AMSGrad: vhat; RMSprop with momentum: mom
  const T* grad = nullptr;
  int64_t n = 0;
};

// var -= alpha * grad.
struct GradientDescentParams {
  double alpha;
};
// accum = accum * momentum - grad * lr; var += accum (nesterov:
// var += accum * momentum - grad * lr).
struct MomentumParams {
  double lr;
  double momentum;
  bool nesterov;
};
// m += (g - m) * (1 - beta1); v += (g^2 - v) * (1 - beta2);
// [vhat = max(vhat, v)]; var -= numer * alpha / (sqrt(v or vhat) + epsilon)
// with numer = m, or g * (1 - beta1) + beta1 * m when nesterov, and
// alpha = lr * sqrt(1 - beta2_power) / (1 - beta1_power).
struct AdamParams {
  double alpha;
  double beta1;
  double beta2;
  double epsilon;
  bool nesterov;
  bool amsgrad;
};

// ms += (g^2 - ms) * (1 - rho); centered: mg += (g - mg) * (1 - rho) and
// denom = ms - mg^2 + epsilon, else ms + epsilon; step = g * lr /
// sqrt(denom); with momentum: mom = mom * momentum + step, step = mom;
// var -= step.
struct RMSPropParams {
  double lr;
  double rho;
  double momentum;
  double epsilon;
  bool centered;
  bool use_momentum;
};
// Keras's Adagrad: accum += g^2; var -= lr * g / sqrt(accum + epsilon).
struct AdagradParams {
  double lr;
  double epsilon;
};

template <typename T>
cudaError_t LaunchGradientDescent(const UpdateTensors<T>* tensors, int count,
                                  const GradientDescentParams& params, cudaStream_t stream);
template <typename T>
cudaError_t LaunchKerasMomentum(const UpdateTensors<T>* tensors, int count,
                                const MomentumParams& params, cudaStream_t stream);
template <typename T>
cudaError_t LaunchAdam(const UpdateTensors<T>* tensors, int count, const AdamParams& params,
                       cudaStream_t stream);
template <typename T>
cudaError_t LaunchRMSProp(const UpdateTensors<T>* tensors, int count, const RMSPropParams& params,
                          cudaStream_t stream);
template <typename T>
cudaError_t LaunchKerasAdagrad(const UpdateTensors<T>* tensors, int count,
                               const AdagradParams& params, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_OPTIMIZER_UPDATES_H_
