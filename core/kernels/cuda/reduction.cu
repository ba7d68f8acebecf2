// One reduction pass on the GPU over [outer, reduce, inner], over the
// whole reduce axis or over runs of it (ReductionPass::chunk).
//
// inner == 1 (contiguous rows): one block per row (or run), threads stride
// along it and combine through warp shuffles and shared memory. inner > 1:
// one thread per output walking its column (or run), so neighbouring
// threads read neighbouring addresses. Accumulation is in float (double
// for double); the order differs from the CPU's, within the parity
// tolerances.
#include <cmath>

#include "core/kernels/cuda/gpu_launch_util.h"
#include "core/kernels/cuda/reduction.h"

namespace tfd {
namespace cuda_kernels {
namespace {

template <ReduceOp kOp, typename A>
__device__ __forceinline__ A Identity() {
  if constexpr (kOp == ReduceOp::kSum) return A(0);
  if constexpr (kOp == ReduceOp::kProd) return A(1);
  if constexpr (kOp == ReduceOp::kMax) return -Infinity<A>();
  if constexpr (kOp == ReduceOp::kMin) return Infinity<A>();
}

template <ReduceOp kOp, typename A>
__device__ __forceinline__ A Combine(A a, A b) {
  if constexpr (kOp == ReduceOp::kSum) return a + b;
  if constexpr (kOp == ReduceOp::kProd) return a * b;
  // NaN wins whichever side it is on.
  if constexpr (kOp == ReduceOp::kMax) return (isnan(a) || a > b) ? a : b;
  if constexpr (kOp == ReduceOp::kMin) return (isnan(a) || a < b) ? a : b;
}

template <ReduceOp kOp, typename A>
__device__ __forceinline__ A WarpReduce(A v) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = Combine<kOp>(v, __shfl_down_sync(0xffffffffu, v, offset));
  }
  return v;
}

// The positions [begin, end) of run `run` of a reduce axis of `reduce`
// cut into runs of `chunk` (chunk == 0: the whole axis, run 0).
struct Run {
  int64_t begin, end;
};
__device__ __forceinline__ Run RunOf(int64_t run, int64_t reduce, int64_t chunk) {
  if (chunk == 0) return {0, reduce};
  const int64_t begin = run * chunk;
  return {begin, begin + chunk < reduce ? begin + chunk : reduce};
}

// in: [outer, reduce] -> out: [outer, runs] (runs == 1 unless chunked);
// blockDim.x == kThreadsPerBlock, one block per output.
template <typename In, typename Out, ReduceOp kOp>
__global__ void ReduceRowsKernel(const In* __restrict__ in, Out* __restrict__ out, int64_t outer,
                                 int64_t reduce, int64_t chunk, int64_t runs, double scale) {
  using A = typename Acc<Out>::type;
  __shared__ A partial[kThreadsPerBlock / 32];
  for (int64_t unit = blockIdx.x; unit < outer * runs; unit += gridDim.x) {
    const int64_t row = unit / runs;
    const Run span = RunOf(unit % runs, reduce, chunk);
    A acc = Identity<kOp, A>();
    const In* r = in + row * reduce;
    for (int64_t j = span.begin + threadIdx.x; j < span.end; j += blockDim.x) {
      acc = Combine<kOp>(acc, Load<A>(r[j]));
    }
    acc = WarpReduce<kOp>(acc);
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    if (lane == 0) partial[warp] = acc;
    __syncthreads();
    if (warp == 0) {
      acc = lane < kThreadsPerBlock / 32 ? partial[lane] : Identity<kOp, A>();
      acc = WarpReduce<kOp>(acc);
      if (lane == 0) out[unit] = Store<Out>(acc * static_cast<A>(scale));
    }
    __syncthreads();  // `partial` is reused by the next row
  }
}

// in: [outer, reduce, inner] -> out: [outer, runs, inner] (runs == 1
// unless chunked), one thread per output.
template <typename In, typename Out, ReduceOp kOp>
__global__ void ReduceColumnsKernel(const In* __restrict__ in, Out* __restrict__ out,
                                    int64_t outer, int64_t reduce, int64_t inner, int64_t chunk,
                                    int64_t runs, double scale) {
  using A = typename Acc<Out>::type;
  const int64_t n = outer * runs * inner;
  for (int64_t k = ThreadIndex(); k < n; k += GridSize()) {
    const int64_t i = k % inner, run = (k / inner) % runs, o = k / (inner * runs);
    const Run span = RunOf(run, reduce, chunk);
    const In* col = in + o * reduce * inner + i;
    A acc = Identity<kOp, A>();
    for (int64_t j = span.begin; j < span.end; ++j) {
      acc = Combine<kOp>(acc, Load<A>(col[j * inner]));
    }
    out[k] = Store<Out>(acc * static_cast<A>(scale));
  }
}

template <typename In, typename Out, ReduceOp kOp>
void Launch(const In* in, Out* out, const ReductionPass& p, double scale, cudaStream_t s) {
  const int64_t runs = p.ReducedLength();
  if (p.inner == 1) {
    const int blocks = static_cast<int>(std::min<int64_t>(p.outer * runs, kMaxBlocks));
    ReduceRowsKernel<In, Out, kOp><<<blocks, kThreadsPerBlock, 0, s>>>(
        in, out, p.outer, p.reduce, p.chunk, runs, scale);
  } else {
    ReduceColumnsKernel<In, Out, kOp><<<BlocksFor(p.OutputElements()), kThreadsPerBlock, 0, s>>>(
        in, out, p.outer, p.reduce, p.inner, p.chunk, runs, scale);
  }
}

}  // namespace

template <typename In, typename Out>
cudaError_t LaunchReducePass(ReduceOp op, const In* in, Out* out, const ReductionPass& pass,
                             double scale, cudaStream_t stream) {
  if (pass.OutputElements() == 0) return cudaSuccess;
  using NI = typename Native<In>::type;
  using NO = typename Native<Out>::type;
  const auto* ni = reinterpret_cast<const NI*>(in);
  auto* no = reinterpret_cast<NO*>(out);
  switch (op) {
    case ReduceOp::kSum:
      Launch<NI, NO, ReduceOp::kSum>(ni, no, pass, scale, stream);
      break;
    case ReduceOp::kMax:
      Launch<NI, NO, ReduceOp::kMax>(ni, no, pass, scale, stream);
      break;
    case ReduceOp::kMin:
      Launch<NI, NO, ReduceOp::kMin>(ni, no, pass, scale, stream);
      break;
    case ReduceOp::kProd:
      Launch<NI, NO, ReduceOp::kProd>(ni, no, pass, scale, stream);
      break;
  }
  return cudaGetLastError();
}

// Storage type to itself or to its accumulator, and accumulator onwards.
#define TFD_INSTANTIATE_REDUCE(IN, OUT)                                               \
  template cudaError_t LaunchReducePass<IN, OUT>(ReduceOp, const IN*, OUT*,           \
                                                 const ReductionPass&, double, cudaStream_t);
TFD_INSTANTIATE_REDUCE(float, float)
TFD_INSTANTIATE_REDUCE(double, double)
TFD_INSTANTIATE_REDUCE(tfd::half, tfd::half)
TFD_INSTANTIATE_REDUCE(tfd::bfloat16, tfd::bfloat16)
TFD_INSTANTIATE_REDUCE(tfd::half, float)
TFD_INSTANTIATE_REDUCE(tfd::bfloat16, float)
TFD_INSTANTIATE_REDUCE(float, tfd::half)
TFD_INSTANTIATE_REDUCE(float, tfd::bfloat16)
// All and Any: bool through a float count.
TFD_INSTANTIATE_REDUCE(bool, bool)
TFD_INSTANTIATE_REDUCE(bool, float)
TFD_INSTANTIATE_REDUCE(float, bool)
#undef TFD_INSTANTIATE_REDUCE

}  // namespace cuda_kernels
}  // namespace tfd
