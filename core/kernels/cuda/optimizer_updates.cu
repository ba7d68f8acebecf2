// Multi-tensor optimizer updates. The launch's blocks are dealt out to the
// variables of a table, kChunk elements per block: block b works on the
// variable whose range of blocks holds b (a binary search of the table's
// block starts), so small and large variables share one grid without idle
// blocks.
#include <algorithm>

#include "core/kernels/cuda/gpu_launch_util.h"
#include "core/kernels/cuda/optimizer_updates.h"

namespace tfd {
namespace cuda_kernels {
namespace {

constexpr int64_t kChunk = kThreadsPerBlock * 8;

// The kernel parameter: up to kMaxTensorsPerLaunch variables and the first
// block of each (block_start[count] is the grid size).
template <typename N>
struct Table {
  int count;
  int64_t block_start[kMaxTensorsPerLaunch + 1];
  UpdateTensors<N> t[kMaxTensorsPerLaunch];
};

enum class Kind { kGradientDescent, kMomentum, kAdam, kRMSProp, kAdagrad };

struct Params {
  GradientDescentParams sgd;
  MomentumParams momentum;
  AdamParams adam;
  RMSPropParams rmsprop;
  AdagradParams adagrad;
};

// CUDA's limit on a kernel's parameters (12.1 and later, sm_70 and newer).
constexpr size_t kMaxKernelParamBytes = 32764;
static_assert(sizeof(Table<double>) + sizeof(Params) <= kMaxKernelParamBytes,
              "the update table no longer fits a kernel parameter");

template <typename N, Kind kKind>
__device__ __forceinline__ void UpdateOne(const UpdateTensors<N>& u, int64_t i, const Params& p) {
  using A = typename Acc<N>::type;
  const A g = Load<A>(u.grad[i]);
  if constexpr (kKind == Kind::kGradientDescent) {
    u.var[i] = Store<N>(Load<A>(u.var[i]) - static_cast<A>(p.sgd.alpha) * g);
  } else if constexpr (kKind == Kind::kMomentum) {
    const A lr = static_cast<A>(p.momentum.lr), mom = static_cast<A>(p.momentum.momentum);
    const A a = Load<A>(u.slot0[i]) * mom - g * lr;
    u.slot0[i] = Store<N>(a);
    const A step = p.momentum.nesterov ? a * mom - g * lr : a;
    u.var[i] = Store<N>(Load<A>(u.var[i]) + step);
  } else if constexpr (kKind == Kind::kRMSProp) {
    const RMSPropParams& r = p.rmsprop;
    const A one_minus_rho = A(1) - static_cast<A>(r.rho);
    const A ms = Load<A>(u.slot0[i]) + (g * g - Load<A>(u.slot0[i])) * one_minus_rho;
    u.slot0[i] = Store<N>(ms);
    A denom = ms + static_cast<A>(r.epsilon);
    if (r.centered) {
      const A mg = Load<A>(u.slot1[i]) + (g - Load<A>(u.slot1[i])) * one_minus_rho;
      u.slot1[i] = Store<N>(mg);
      denom = ms - mg * mg + static_cast<A>(r.epsilon);
    }
    A step = g * static_cast<A>(r.lr) / sqrt(denom);
    if (r.use_momentum) {
      step = Load<A>(u.slot2[i]) * static_cast<A>(r.momentum) + step;
      u.slot2[i] = Store<N>(step);
    }
    u.var[i] = Store<N>(Load<A>(u.var[i]) - step);
  } else if constexpr (kKind == Kind::kAdagrad) {
    const A accum = Load<A>(u.slot0[i]) + g * g;
    u.slot0[i] = Store<N>(accum);
    u.var[i] = Store<N>(Load<A>(u.var[i]) - static_cast<A>(p.adagrad.lr) * g /
                                                sqrt(accum + static_cast<A>(p.adagrad.epsilon)));
  } else {
    const A one(1);
    const A beta1 = static_cast<A>(p.adam.beta1), beta2 = static_cast<A>(p.adam.beta2);
    const A m = Load<A>(u.slot0[i]) + (g - Load<A>(u.slot0[i])) * (one - beta1);
    const A v = Load<A>(u.slot1[i]) + (g * g - Load<A>(u.slot1[i])) * (one - beta2);
    u.slot0[i] = Store<N>(m);
    u.slot1[i] = Store<N>(v);
    A denom_v = v;
    if (p.adam.amsgrad) {
      const A vhat = Load<A>(u.slot2[i]);
      denom_v = vhat > v ? vhat : v;
      u.slot2[i] = Store<N>(denom_v);
    }
    const A numer = p.adam.nesterov ? g * (one - beta1) + beta1 * m : m;
    u.var[i] = Store<N>(Load<A>(u.var[i]) - numer * static_cast<A>(p.adam.alpha) /
                                                (sqrt(denom_v) + static_cast<A>(p.adam.epsilon)));
  }
}

template <typename N, Kind kKind>
__global__ void MultiTensorKernel(Table<N> table, Params params) {
  // The last k with block_start[k] <= blockIdx.x (empty variables are not
  // in the table, so the starts increase strictly).
  int lo = 0, hi = table.count - 1;
  while (lo < hi) {
    const int mid = (lo + hi + 1) / 2;
    if (table.block_start[mid] <= blockIdx.x) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  const int k = lo;
  const UpdateTensors<N>& u = table.t[k];
  const int64_t begin = (blockIdx.x - table.block_start[k]) * kChunk;
  const int64_t end = begin + kChunk < u.n ? begin + kChunk : u.n;
  for (int64_t i = begin + threadIdx.x; i < end; i += blockDim.x) UpdateOne<N, kKind>(u, i, params);
}

template <typename T, Kind kKind>
cudaError_t LaunchAll(const UpdateTensors<T>* tensors, int count, const Params& params,
                      cudaStream_t stream) {
  using N = typename Native<T>::type;
  for (int first = 0; first < count; first += kMaxTensorsPerLaunch) {
    Table<N> table;
    table.count = 0;
    int64_t blocks = 0;
    for (int i = first; i < std::min(count, first + kMaxTensorsPerLaunch); ++i) {
      if (tensors[i].n == 0) continue;
      UpdateTensors<N>& u = table.t[table.count];
      u.var = reinterpret_cast<N*>(tensors[i].var);
      u.slot0 = reinterpret_cast<N*>(tensors[i].slot0);
      u.slot1 = reinterpret_cast<N*>(tensors[i].slot1);
      u.slot2 = reinterpret_cast<N*>(tensors[i].slot2);
      u.grad = reinterpret_cast<const N*>(tensors[i].grad);
      u.n = tensors[i].n;
      table.block_start[table.count] = blocks;
      blocks += (u.n + kChunk - 1) / kChunk;
      ++table.count;
    }
    if (table.count == 0) continue;
    table.block_start[table.count] = blocks;
    MultiTensorKernel<N, kKind><<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(
        table, params);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

}  // namespace

template <typename T>
cudaError_t LaunchGradientDescent(const UpdateTensors<T>* tensors, int count,
                                  const GradientDescentParams& params, cudaStream_t stream) {
  Params p{};
  p.sgd = params;
  return LaunchAll<T, Kind::kGradientDescent>(tensors, count, p, stream);
}

template <typename T>
cudaError_t LaunchKerasMomentum(const UpdateTensors<T>* tensors, int count,
                                const MomentumParams& params, cudaStream_t stream) {
  Params p{};
  p.momentum = params;
  return LaunchAll<T, Kind::kMomentum>(tensors, count, p, stream);
}

template <typename T>
cudaError_t LaunchAdam(const UpdateTensors<T>* tensors, int count, const AdamParams& params,
                       cudaStream_t stream) {
  Params p{};
  p.adam = params;
  return LaunchAll<T, Kind::kAdam>(tensors, count, p, stream);
}

template <typename T>
cudaError_t LaunchRMSProp(const UpdateTensors<T>* tensors, int count, const RMSPropParams& params,
                          cudaStream_t stream) {
  Params p{};
  p.rmsprop = params;
  return LaunchAll<T, Kind::kRMSProp>(tensors, count, p, stream);
}

template <typename T>
cudaError_t LaunchKerasAdagrad(const UpdateTensors<T>* tensors, int count,
                               const AdagradParams& params, cudaStream_t stream) {
  Params p{};
  p.adagrad = params;
  return LaunchAll<T, Kind::kAdagrad>(tensors, count, p, stream);
}

#define TFD_INSTANTIATE_UPDATES(T)                                                          \
  template cudaError_t LaunchGradientDescent<T>(const UpdateTensors<T>*, int,               \
                                                const GradientDescentParams&, cudaStream_t); \
  template cudaError_t LaunchKerasMomentum<T>(const UpdateTensors<T>*, int,                 \
                                              const MomentumParams&, cudaStream_t);          \
  template cudaError_t LaunchAdam<T>(const UpdateTensors<T>*, int, const AdamParams&,       \
                                     cudaStream_t);                                          \
  template cudaError_t LaunchRMSProp<T>(const UpdateTensors<T>*, int, const RMSPropParams&, \
                                        cudaStream_t);                                       \
  template cudaError_t LaunchKerasAdagrad<T>(const UpdateTensors<T>*, int,                  \
                                             const AdagradParams&, cudaStream_t);
TFD_INSTANTIATE_UPDATES(float)
TFD_INSTANTIATE_UPDATES(double)
TFD_INSTANTIATE_UPDATES(tfd::half)
TFD_INSTANTIATE_UPDATES(tfd::bfloat16)
#undef TFD_INSTANTIATE_UPDATES

}  // namespace cuda_kernels
}  // namespace tfd
