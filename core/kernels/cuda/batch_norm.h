// Launchers of the batch-norm work cuDNN does not do (batch_norm.cu), for
// cudnn_batch_norm_kernels.cc. Per-channel tensors are float device
// arrays of `channels` elements; x-shaped ones are laid out as
// BatchNormLayout's [outer, channels, inner]. Each returns the launch's
// error (cudaGetLastError).
#ifndef TFD_CORE_KERNELS_CUDA_BATCH_NORM_H_
#define TFD_CORE_KERNELS_CUDA_BATCH_NORM_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/kernels/cuda/batch_norm_plan.h"

namespace tfd {
namespace cuda_kernels {

struct ChannelLayout {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;
};

// After cuDNN's training forward with an averaging factor of 1, which left
// the batch mean in batch_mean and the unbiased batch variance in
// batch_var: reserve_mean = the batch mean, reserve_var = the biased
// variance (0 when a channel has one element, `count`), then batch_mean
// and batch_var become (1 - factor) * old + factor * batch in place.
cudaError_t LaunchFinishBatchStats(const float* old_mean, const float* old_var, float factor,
                                   int64_t count, int64_t channels, float* batch_mean,
                                   float* batch_var, float* reserve_mean, float* reserve_var,
                                   cudaStream_t stream);

// inv_std[c] = 1 / sqrt(var[c] + epsilon), cuDNN's saved inverse variance.
cudaError_t LaunchInverseStd(const float* var, float epsilon, int64_t channels, float* inv_std,
                             cudaStream_t stream);

// The gradient of batch norm with fixed statistics (inference):
// dx = dy * scale * inv_std, scale_backprop = sum(dy * (x - mean) *
// inv_std), offset_backprop = sum(dy), per channel. T is float, tfd::half
// or tfd::bfloat16. The sums are split as `plan` says
// (MakeChannelSumPlan(channels, outer * inner)); `partials` holds 2 *
// plan.PartialsPerQuantity(channels) floats of device scratch, or is null
// when plan.runs == 1.
template <typename T>
cudaError_t LaunchBatchNormGradInference(const T* dy, const T* x, const float* scale,
                                         const float* mean, const float* inv_std,
                                         const ChannelLayout& layout, const ChannelSumPlan& plan,
                                         float* partials, T* dx, float* scale_backprop,
                                         float* offset_backprop, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_BATCH_NORM_H_
