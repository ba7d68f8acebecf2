// Per-channel batch-norm kernels around cuDNN's (batch_norm.h). The
// inference gradient sums each channel in `plan.runs` blocks
// (batch_norm_plan.h): a block walks its run of the channel's elements
// over [outer, inner], sums in float, then across the block through shared
// memory; with more than one run a second kernel adds each channel's
// partial sums.
#include "core/kernels/cuda/batch_norm.h"
#include "core/kernels/cuda/gpu_launch_util.h"

namespace tfd {
namespace cuda_kernels {
namespace {

__global__ void FinishBatchStatsKernel(const float* old_mean, const float* old_var, float factor,
                                       int64_t count, int64_t channels, float* batch_mean,
                                       float* batch_var, float* reserve_mean,
                                       float* reserve_var) {
  for (int64_t c = ThreadIndex(); c < channels; c += GridSize()) {
    const float mean = batch_mean[c];
    // A single element has variance 0; cuDNN's n / (n - 1) would not.
    const float unbiased = count > 1 ? batch_var[c] : 0.0f;
    reserve_mean[c] = mean;
    reserve_var[c] = count > 1 ? unbiased * (float(count - 1) / float(count)) : 0.0f;
    if (factor != 1.0f) {
      batch_mean[c] = (1.0f - factor) * old_mean[c] + factor * mean;
      batch_var[c] = (1.0f - factor) * old_var[c] + factor * unbiased;
    } else {
      batch_var[c] = unbiased;
    }
  }
}

__global__ void InverseStdKernel(const float* var, float epsilon, int64_t channels,
                                 float* inv_std) {
  for (int64_t c = ThreadIndex(); c < channels; c += GridSize()) {
    inv_std[c] = rsqrtf(var[c] + epsilon);
  }
}

// The two sums of the inference gradient. Block b sums run b % runs of
// channel b / runs into sum_dy[b] and sum_dy_xhat[b]: the outputs
// themselves when runs == 1, else the partials a second pass adds.
template <typename N>
__global__ void ChannelGradSumsKernel(const N* dy, const N* x, const float* mean,
                                      const float* inv_std, ChannelLayout l, int64_t runs,
                                      int64_t run_length, float* sum_dy, float* sum_dy_xhat) {
  __shared__ float a_shared[kThreadsPerBlock];
  __shared__ float b_shared[kThreadsPerBlock];
  const int64_t c = blockIdx.x / runs;
  const int64_t begin = (blockIdx.x % runs) * run_length;
  const int64_t count = l.outer * l.inner;
  const int64_t end = begin + run_length < count ? begin + run_length : count;
  const float m = mean[c], s = inv_std[c];
  float a = 0, b = 0;
  for (int64_t j = begin + threadIdx.x; j < end; j += blockDim.x) {
    const int64_t k = ((j / l.inner) * l.channels + c) * l.inner + j % l.inner;
    const float g = Load<float>(dy[k]);
    a += g;
    b += g * (Load<float>(x[k]) - m) * s;
  }
  a_shared[threadIdx.x] = a;
  b_shared[threadIdx.x] = b;
  __syncthreads();
  for (int half = blockDim.x / 2; half > 0; half /= 2) {
    if (threadIdx.x < half) {
      a_shared[threadIdx.x] += a_shared[threadIdx.x + half];
      b_shared[threadIdx.x] += b_shared[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    sum_dy[blockIdx.x] = a_shared[0];
    sum_dy_xhat[blockIdx.x] = b_shared[0];
  }
}

// The second pass: each channel's `runs` partial sums, in run order.
__global__ void AddRunsKernel(const float* partial_dy, const float* partial_dy_xhat,
                              int64_t runs, int64_t channels, float* offset_backprop,
                              float* scale_backprop) {
  for (int64_t c = ThreadIndex(); c < channels; c += GridSize()) {
    float a = 0, b = 0;
    for (int64_t r = 0; r < runs; ++r) {
      a += partial_dy[c * runs + r];
      b += partial_dy_xhat[c * runs + r];
    }
    offset_backprop[c] = a;
    scale_backprop[c] = b;
  }
}

template <typename N>
__global__ void ScaleGradKernel(const N* dy, const float* scale, const float* inv_std,
                                ChannelLayout l, int64_t n, N* dx) {
  for (int64_t k = ThreadIndex(); k < n; k += GridSize()) {
    const int64_t c = (k / l.inner) % l.channels;
    dx[k] = Store<N>(Load<float>(dy[k]) * scale[c] * inv_std[c]);
  }
}

}  // namespace

cudaError_t LaunchFinishBatchStats(const float* old_mean, const float* old_var, float factor,
                                   int64_t count, int64_t channels, float* batch_mean,
                                   float* batch_var, float* reserve_mean, float* reserve_var,
                                   cudaStream_t stream) {
  if (channels == 0) return cudaSuccess;
  FinishBatchStatsKernel<<<BlocksFor(channels), kThreadsPerBlock, 0, stream>>>(
      old_mean, old_var, factor, count, channels, batch_mean, batch_var, reserve_mean,
      reserve_var);
  return cudaGetLastError();
}

cudaError_t LaunchInverseStd(const float* var, float epsilon, int64_t channels, float* inv_std,
                             cudaStream_t stream) {
  if (channels == 0) return cudaSuccess;
  InverseStdKernel<<<BlocksFor(channels), kThreadsPerBlock, 0, stream>>>(var, epsilon, channels,
                                                                         inv_std);
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchBatchNormGradInference(const T* dy, const T* x, const float* scale,
                                         const float* mean, const float* inv_std,
                                         const ChannelLayout& layout, const ChannelSumPlan& plan,
                                         float* partials, T* dx, float* scale_backprop,
                                         float* offset_backprop, cudaStream_t stream) {
  using N = typename Native<T>::type;
  if (layout.channels == 0) return cudaSuccess;
  if (plan.runs > 1 && partials == nullptr) return cudaErrorInvalidValue;
  const auto* ndy = reinterpret_cast<const N*>(dy);
  const int64_t blocks = layout.channels * plan.runs;
  const int64_t per_quantity = plan.PartialsPerQuantity(layout.channels);
  float* sum_dy = plan.runs > 1 ? partials : offset_backprop;
  float* sum_dy_xhat = plan.runs > 1 ? partials + per_quantity : scale_backprop;
  ChannelGradSumsKernel<N><<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(
      ndy, reinterpret_cast<const N*>(x), mean, inv_std, layout, plan.runs, plan.run_length,
      sum_dy, sum_dy_xhat);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  if (plan.runs > 1) {
    AddRunsKernel<<<BlocksFor(layout.channels), kThreadsPerBlock, 0, stream>>>(
        sum_dy, sum_dy_xhat, plan.runs, layout.channels, offset_backprop, scale_backprop);
    err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  const int64_t n = layout.outer * layout.channels * layout.inner;
  if (n == 0) return cudaSuccess;
  ScaleGradKernel<N><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
      ndy, scale, inv_std, layout, n, reinterpret_cast<N*>(dx));
  return cudaGetLastError();
}

#define TFD_INSTANTIATE_BATCH_NORM(T)                                                         \
  template cudaError_t LaunchBatchNormGradInference<T>(                                       \
      const T*, const T*, const float*, const float*, const float*, const ChannelLayout&,     \
      const ChannelSumPlan&, float*, T*, float*, float*, cudaStream_t);
TFD_INSTANTIATE_BATCH_NORM(float)
TFD_INSTANTIATE_BATCH_NORM(tfd::half)
TFD_INSTANTIATE_BATCH_NORM(tfd::bfloat16)
#undef TFD_INSTANTIATE_BATCH_NORM

}  // namespace cuda_kernels
}  // namespace tfd
