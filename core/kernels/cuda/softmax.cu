// Row-wise softmax and cross-entropy on the GPU: one block per row (a
// grid-stride loop over rows), three sweeps over the row: its maximum, the
// sum of exp(x - max), then the outputs. Rows are short next to the
// tensors around them (classes of a classifier), so the second and third
// sweeps read from L1/L2.
#include <cmath>

#include "core/kernels/cuda/gpu_launch_util.h"
#include "core/kernels/cuda/softmax.h"

namespace tfd {
namespace cuda_kernels {
namespace {

// The block-wide max (kMax) or sum of v, returned to every thread.
template <bool kMax, typename A>
__device__ A BlockReduce(A v, A* shared) {
  for (int offset = 16; offset > 0; offset /= 2) {
    const A o = __shfl_down_sync(0xffffffffu, v, offset);
    v = kMax ? (o > v ? o : v) : v + o;
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) shared[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kThreadsPerBlock / 32 ? shared[lane]
                                     : (kMax ? -Infinity<A>() : A(0));
    for (int offset = 16; offset > 0; offset /= 2) {
      const A o = __shfl_down_sync(0xffffffffu, v, offset);
      v = kMax ? (o > v ? o : v) : v + o;
    }
    if (lane == 0) shared[0] = v;
  }
  __syncthreads();
  const A result = shared[0];
  __syncthreads();  // `shared` is reused by the next reduction
  return result;
}

// The row's maximum m and s = sum(exp(x - m)).
template <typename T, typename A>
__device__ void RowStats(const T* row, int64_t classes, A* shared, A* m, A* s) {
  A local = -Infinity<A>();
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    const A x = Load<A>(row[c]);
    local = x > local ? x : local;
  }
  *m = BlockReduce<true>(local, shared);
  A sum = 0;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) sum += exp(Load<A>(row[c]) - *m);
  *s = BlockReduce<false>(sum, shared);
}

template <typename T, bool kLog>
__global__ void SoftmaxKernel(const T* __restrict__ logits, T* __restrict__ out, int64_t rows,
                              int64_t classes) {
  using A = typename Acc<T>::type;
  __shared__ A shared[kThreadsPerBlock / 32];
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = logits + r * classes;
    T* y = out + r * classes;
    A m, s;
    RowStats(x, classes, shared, &m, &s);
    const A inv = A(1) / s, log_s = log(s);
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      const A shifted = Load<A>(x[c]) - m;
      y[c] = Store<T>(kLog ? shifted - log_s : exp(shifted) * inv);
    }
  }
}

// Dense labels, or sparse ones (labels_dense == nullptr).
template <typename T, typename Index>
__global__ void XentKernel(const T* __restrict__ features, const T* __restrict__ labels_dense,
                           const Index* __restrict__ labels_sparse, T* __restrict__ loss,
                           T* __restrict__ backprop, int64_t rows, int64_t classes) {
  using A = typename Acc<T>::type;
  __shared__ A shared[kThreadsPerBlock / 32];
  const A nan = QuietNaN<A>();
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    const T* x = features + r * classes;
    T* dx = backprop + r * classes;
    A m, s;
    RowStats(x, classes, shared, &m, &s);
    const A log_s = log(s);
    int64_t label = -1;
    bool valid = true;
    if (labels_dense == nullptr) {
      label = static_cast<int64_t>(labels_sparse[r]);
      valid = label >= 0 && label < classes;
    }
    A partial = 0;
    for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
      const A shifted = Load<A>(x[c]) - m;
      const A p = labels_dense != nullptr ? Load<A>(labels_dense[r * classes + c])
                                          : A(c == label ? 1 : 0);
      partial += p * (log_s - shifted);
      dx[c] = Store<T>(valid ? exp(shifted) / s - p : nan);
    }
    const A total = BlockReduce<false>(partial, shared);
    if (threadIdx.x == 0) loss[r] = Store<T>(valid ? total : nan);
  }
}

int RowBlocks(int64_t rows) { return static_cast<int>(std::min<int64_t>(rows, kMaxBlocks)); }

}  // namespace

template <typename T>
cudaError_t LaunchSoftmax(const T* logits, T* out, int64_t rows, int64_t classes, bool log,
                          cudaStream_t stream) {
  if (rows == 0 || classes == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  const auto* x = reinterpret_cast<const N*>(logits);
  auto* y = reinterpret_cast<N*>(out);
  if (log) {
    SoftmaxKernel<N, true><<<RowBlocks(rows), kThreadsPerBlock, 0, stream>>>(x, y, rows, classes);
  } else {
    SoftmaxKernel<N, false><<<RowBlocks(rows), kThreadsPerBlock, 0, stream>>>(x, y, rows, classes);
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchSoftmaxXent(const T* features, const T* labels, T* loss, T* backprop,
                              int64_t rows, int64_t classes, cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  XentKernel<N, int32_t><<<RowBlocks(rows), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const N*>(features), reinterpret_cast<const N*>(labels), nullptr,
      reinterpret_cast<N*>(loss), reinterpret_cast<N*>(backprop), rows, classes);
  return cudaGetLastError();
}

template <typename T, typename Index>
cudaError_t LaunchSparseSoftmaxXent(const T* features, const Index* labels, T* loss,
                                    T* backprop, int64_t rows, int64_t classes,
                                    cudaStream_t stream) {
  if (rows == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  XentKernel<N, Index><<<RowBlocks(rows), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const N*>(features), nullptr, labels, reinterpret_cast<N*>(loss),
      reinterpret_cast<N*>(backprop), rows, classes);
  return cudaGetLastError();
}

#define TFD_INSTANTIATE_SOFTMAX(T)                                                           \
  template cudaError_t LaunchSoftmax<T>(const T*, T*, int64_t, int64_t, bool, cudaStream_t); \
  template cudaError_t LaunchSoftmaxXent<T>(const T*, const T*, T*, T*, int64_t, int64_t,    \
                                            cudaStream_t);                                   \
  template cudaError_t LaunchSparseSoftmaxXent<T, int32_t>(const T*, const int32_t*, T*, T*, \
                                                           int64_t, int64_t, cudaStream_t);  \
  template cudaError_t LaunchSparseSoftmaxXent<T, int64_t>(const T*, const int64_t*, T*, T*, \
                                                           int64_t, int64_t, cudaStream_t);
TFD_INSTANTIATE_SOFTMAX(float)
TFD_INSTANTIATE_SOFTMAX(double)
TFD_INSTANTIATE_SOFTMAX(tfd::half)
TFD_INSTANTIATE_SOFTMAX(tfd::bfloat16)
#undef TFD_INSTANTIATE_SOFTMAX

}  // namespace cuda_kernels
}  // namespace tfd
