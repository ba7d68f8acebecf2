// Elementwise CUDA kernels: binary ops with broadcasting, unary ops.
//
// Memory-bound: one element per thread per grid-stride step. The
// broadcast kind (launch_plans.h) is uniform across the grid, so its
// branch never diverges; only kGeneral pays for index arithmetic, one
// division per merged dimension. 16-bit types load into float, compute and
// round once on store.
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "core/kernels/cuda/cwise.h"
#include "core/kernels/cuda/gpu_launch_util.h"

namespace tfd {
namespace cuda_kernels {
namespace {

// Selu's constants, as TensorFlow spells them.
constexpr double kSeluScale = 1.0507009873554804934193349852946;
constexpr double kSeluScaleAlpha = 1.7580993408473768599402175208123;

template <BinaryOp kOp, typename A>
__device__ __forceinline__ A Apply(A a, A b, A param) {
  if constexpr (kOp == BinaryOp::kAdd) return a + b;
  if constexpr (kOp == BinaryOp::kSub) return a - b;
  if constexpr (kOp == BinaryOp::kMul) return a * b;
  if constexpr (kOp == BinaryOp::kRealDiv) return a / b;
  if constexpr (kOp == BinaryOp::kMaximum) {
    if constexpr (!std::is_integral_v<A>) {
      if (isnan(a)) return a;
    }
    return a > b ? a : b;
  }
  if constexpr (kOp == BinaryOp::kMinimum) {
    if constexpr (!std::is_integral_v<A>) {
      if (isnan(a)) return a;
    }
    return a < b ? a : b;
  }
  if constexpr (kOp == BinaryOp::kSquaredDifference) return (a - b) * (a - b);
  if constexpr (kOp == BinaryOp::kDivNoNan) return b == A(0) ? A(0) : a / b;
  if constexpr (kOp == BinaryOp::kPow) {
    if constexpr (std::is_integral_v<A>) {
      // Square-and-multiply, as the CPU; the kernel rejected negative
      // exponents.
      A result = 1;
      for (A e = b; e > 0; e >>= 1) {
        if (e & 1) result *= a;
        a *= a;
      }
      return result;
    } else {
      return pow(a, b);
    }
  }
  if constexpr (kOp == BinaryOp::kFloorDiv) {
    if constexpr (std::is_integral_v<A>) {
      // Truncation, one lower when inexact with the signs apart.
      const A q = a / b;
      return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
    } else {
      return floor(a / b);
    }
  }
  if constexpr (kOp == BinaryOp::kFloorMod) {
    A r;
    if constexpr (std::is_integral_v<A>) {
      r = a % b;
    } else {
      r = fmod(a, b);
    }
    return (r != A(0) && ((r < A(0)) != (b < A(0)))) ? r + b : r;
  }
  if constexpr (kOp == BinaryOp::kSigmoidGrad) return b * a * (A(1) - a);
  if constexpr (kOp == BinaryOp::kTanhGrad) return b * (A(1) - a * a);
  if constexpr (kOp == BinaryOp::kSqrtGrad) return b * A(0.5) / a;
  if constexpr (kOp == BinaryOp::kRsqrtGrad) return b * A(-0.5) * a * a * a;
  if constexpr (kOp == BinaryOp::kReciprocalGrad) return -b * a * a;
  // a = gradients, b = features (outputs for Elu and Selu).
  if constexpr (kOp == BinaryOp::kRelu6Grad) return (b > A(0) && b < A(6)) ? a : A(0);
  if constexpr (kOp == BinaryOp::kEluGrad) return b < A(0) ? a * (b + A(1)) : a;
  if constexpr (kOp == BinaryOp::kSeluGrad) {
    return b < A(0) ? a * (b + A(kSeluScaleAlpha)) : a * A(kSeluScale);
  }
  if constexpr (kOp == BinaryOp::kSoftplusGrad) return a / (exp(-b) + A(1));
  if constexpr (kOp == BinaryOp::kSoftsignGrad) {
    const A d = (b < A(0) ? -b : b) + A(1);
    return a / (d * d);
  }
  if constexpr (kOp == BinaryOp::kLeakyReluGrad) return b > A(0) ? a : a * param;
}

template <UnaryOp kOp, typename A>
__device__ __forceinline__ A Apply(A x, A param) {
  if constexpr (kOp == UnaryOp::kNeg) return -x;
  if constexpr (kOp == UnaryOp::kAbs) return x < A(0) ? -x : x;
  if constexpr (kOp == UnaryOp::kSign) return isnan(x) ? x : A((x > A(0)) - (x < A(0)));
  if constexpr (kOp == UnaryOp::kSquare) return x * x;
  if constexpr (kOp == UnaryOp::kSqrt) return sqrt(x);
  if constexpr (kOp == UnaryOp::kRsqrt) return A(1) / sqrt(x);
  if constexpr (kOp == UnaryOp::kExp) return exp(x);
  if constexpr (kOp == UnaryOp::kLog) return log(x);
  if constexpr (kOp == UnaryOp::kLog1p) return log1p(x);
  if constexpr (kOp == UnaryOp::kReciprocal) return A(1) / x;
  if constexpr (kOp == UnaryOp::kFloor) return floor(x);
  if constexpr (kOp == UnaryOp::kCeil) return ceil(x);
  if constexpr (kOp == UnaryOp::kRound) return rint(x);
  if constexpr (kOp == UnaryOp::kSin) return sin(x);
  if constexpr (kOp == UnaryOp::kCos) return cos(x);
  if constexpr (kOp == UnaryOp::kTanh) return tanh(x);
  if constexpr (kOp == UnaryOp::kSigmoid) return A(1) / (A(1) + exp(-x));
  if constexpr (kOp == UnaryOp::kRelu6) return A(6) < x ? A(6) : (x < A(0) ? A(0) : x);
  if constexpr (kOp == UnaryOp::kElu) return x < A(0) ? exp(x) - A(1) : x;
  if constexpr (kOp == UnaryOp::kSelu) {
    return x < A(0) ? A(kSeluScaleAlpha) * (exp(x) - A(1)) : A(kSeluScale) * x;
  }
  if constexpr (kOp == UnaryOp::kSoftsign) return x / ((x < A(0) ? -x : x) + A(1));
  if constexpr (kOp == UnaryOp::kSoftplus) {
    // TensorFlow's cut-offs: x above -param, exp(x) below param.
    if (x > -param) return x;
    if (x < param) return exp(x);
    return log(exp(x) + A(1));
  }
  if constexpr (kOp == UnaryOp::kLeakyRelu) return x > A(0) ? x : x * param;
}

// Offsets of output element i in x and y under plan p.
__device__ __forceinline__ void Offsets(const BroadcastParams& p, int64_t i, int64_t* xi,
                                        int64_t* yi) {
  switch (p.kind) {
    case BroadcastParams::kSameShape:
      *xi = i;
      *yi = i;
      return;
    case BroadcastParams::kScalarLeft:
      *xi = 0;
      *yi = i;
      return;
    case BroadcastParams::kScalarRight:
      *xi = i;
      *yi = 0;
      return;
    case BroadcastParams::kRowVector:
      *xi = i;
      *yi = i % p.cols;
      return;
    default: {
      int64_t rest = i, xo = 0, yo = 0;
      for (int d = p.rank - 1; d >= 0; --d) {
        const int64_t idx = rest % p.dims[d];
        rest /= p.dims[d];
        xo += idx * p.x_strides[d];
        yo += idx * p.y_strides[d];
      }
      *xi = xo;
      *yi = yo;
    }
  }
}

// x, y broadcast by p -> z: [n].
template <typename T, BinaryOp kOp>
__global__ void BinaryKernel(const T* __restrict__ x, const T* __restrict__ y,
                             T* __restrict__ z, int64_t n, BroadcastParams p, double param) {
  using A = typename Acc<T>::type;
  const A a_param = static_cast<A>(param);
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) {
    int64_t xi, yi;
    Offsets(p, i, &xi, &yi);
    z[i] = Store<T>(Apply<kOp>(Load<A>(x[xi]), Load<A>(y[yi]), a_param));
  }
}

// x: [n] -> y: [n].
template <typename T, UnaryOp kOp>
__global__ void UnaryKernel(const T* __restrict__ x, T* __restrict__ y, int64_t n,
                            double param) {
  using A = typename Acc<T>::type;
  const A a_param = static_cast<A>(param);
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) {
    y[i] = Store<T>(Apply<kOp>(Load<A>(x[i]), a_param));
  }
}

// The inputs of one AddN launch (add_n_plan.h).
template <typename N>
struct AddNTable {
  const N* in[kMaxAddNInputs];
  int count;
  bool read_partial;
  bool write_partial;
};

// `partial` holds the running sum in the arithmetic type A between
// launches: a float scratch buffer for 16-bit N, the output itself when A
// is N (so no __restrict__ on either).
template <typename N, typename A>
__global__ void AddNKernel(AddNTable<N> t, A* partial, N* out, int64_t n) {
  for (int64_t i = ThreadIndex(); i < n; i += GridSize()) {
    A acc = t.read_partial ? partial[i] : A(0);
    for (int k = 0; k < t.count; ++k) acc += Load<A>(t.in[k][i]);
    if (t.write_partial) {
      partial[i] = acc;
    } else {
      out[i] = Store<N>(acc);
    }
  }
}

template <typename N, BinaryOp kOp>
void Binary(const N* x, const N* y, N* z, int64_t n, const BroadcastParams& p, cudaStream_t s,
            double param) {
  BinaryKernel<N, kOp><<<BlocksFor(n), kThreadsPerBlock, 0, s>>>(x, y, z, n, p, param);
}

template <typename N, UnaryOp kOp>
void Unary(const N* x, N* y, int64_t n, cudaStream_t s, double param) {
  UnaryKernel<N, kOp><<<BlocksFor(n), kThreadsPerBlock, 0, s>>>(x, y, n, param);
}

}  // namespace

template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* x, const T* y, T* z, int64_t n,
                         const BroadcastParams& plan, cudaStream_t stream, double param) {
  if (n == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  const auto* nx = reinterpret_cast<const N*>(x);
  const auto* ny = reinterpret_cast<const N*>(y);
  auto* nz = reinterpret_cast<N*>(z);
#define TFD_BINARY_CASE(OP) \
  case BinaryOp::OP:        \
    Binary<N, BinaryOp::OP>(nx, ny, nz, n, plan, stream, param); \
    break;
  if constexpr (std::is_integral_v<T>) {
    switch (op) {
      TFD_BINARY_CASE(kAdd)
      TFD_BINARY_CASE(kSub)
      TFD_BINARY_CASE(kMul)
      TFD_BINARY_CASE(kRealDiv)
      TFD_BINARY_CASE(kMaximum)
      TFD_BINARY_CASE(kMinimum)
      TFD_BINARY_CASE(kSquaredDifference)
      TFD_BINARY_CASE(kPow)
      TFD_BINARY_CASE(kFloorDiv)
      TFD_BINARY_CASE(kFloorMod)
      default:
        return cudaErrorInvalidValue;  // no integer form
    }
  } else {
    switch (op) {
      TFD_BINARY_CASE(kAdd)
      TFD_BINARY_CASE(kSub)
      TFD_BINARY_CASE(kMul)
      TFD_BINARY_CASE(kRealDiv)
      TFD_BINARY_CASE(kMaximum)
      TFD_BINARY_CASE(kMinimum)
      TFD_BINARY_CASE(kSquaredDifference)
      TFD_BINARY_CASE(kDivNoNan)
      TFD_BINARY_CASE(kPow)
      TFD_BINARY_CASE(kFloorDiv)
      TFD_BINARY_CASE(kFloorMod)
      TFD_BINARY_CASE(kSigmoidGrad)
      TFD_BINARY_CASE(kTanhGrad)
      TFD_BINARY_CASE(kSqrtGrad)
      TFD_BINARY_CASE(kRsqrtGrad)
      TFD_BINARY_CASE(kReciprocalGrad)
      TFD_BINARY_CASE(kRelu6Grad)
      TFD_BINARY_CASE(kEluGrad)
      TFD_BINARY_CASE(kSeluGrad)
      TFD_BINARY_CASE(kSoftplusGrad)
      TFD_BINARY_CASE(kSoftsignGrad)
      TFD_BINARY_CASE(kLeakyReluGrad)
    }
  }
#undef TFD_BINARY_CASE
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchUnary(UnaryOp op, const T* x, T* y, int64_t n, cudaStream_t stream,
                        double param) {
  if (n == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  const auto* nx = reinterpret_cast<const N*>(x);
  auto* ny = reinterpret_cast<N*>(y);
  switch (op) {
#define TFD_UNARY_CASE(OP) \
  case UnaryOp::OP:        \
    Unary<N, UnaryOp::OP>(nx, ny, n, stream, param); \
    break;
    TFD_UNARY_CASE(kNeg)
    TFD_UNARY_CASE(kAbs)
    TFD_UNARY_CASE(kSign)
    TFD_UNARY_CASE(kSquare)
    TFD_UNARY_CASE(kSqrt)
    TFD_UNARY_CASE(kRsqrt)
    TFD_UNARY_CASE(kExp)
    TFD_UNARY_CASE(kLog)
    TFD_UNARY_CASE(kLog1p)
    TFD_UNARY_CASE(kReciprocal)
    TFD_UNARY_CASE(kFloor)
    TFD_UNARY_CASE(kCeil)
    TFD_UNARY_CASE(kRound)
    TFD_UNARY_CASE(kSin)
    TFD_UNARY_CASE(kCos)
    TFD_UNARY_CASE(kTanh)
    TFD_UNARY_CASE(kSigmoid)
    TFD_UNARY_CASE(kRelu6)
    TFD_UNARY_CASE(kElu)
    TFD_UNARY_CASE(kSelu)
    TFD_UNARY_CASE(kSoftsign)
    TFD_UNARY_CASE(kSoftplus)
    TFD_UNARY_CASE(kLeakyRelu)
#undef TFD_UNARY_CASE
  }
  return cudaGetLastError();
}

template <typename T>
cudaError_t LaunchAddN(const T* const* inputs, const AddNPlan& plan, T* sum, float* scratch,
                       int64_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  using N = typename Native<T>::type;
  using A = typename Acc<T>::type;
  A* partial = nullptr;
  if constexpr (std::is_same_v<A, N>) {
    partial = reinterpret_cast<A*>(sum);
  } else {
    static_assert(std::is_same_v<A, float>, "16-bit types accumulate in float");
    if (plan.needs_scratch && scratch == nullptr) return cudaErrorInvalidValue;
    partial = scratch;
  }
  for (const AddNLaunch& launch : plan.launches) {
    if (launch.count < 1 || launch.count > kMaxAddNInputs) return cudaErrorInvalidValue;
    AddNTable<N> t;
    t.count = launch.count;
    t.read_partial = launch.read_partial;
    t.write_partial = launch.write_partial;
    for (int k = 0; k < t.count; ++k) {
      t.in[k] = reinterpret_cast<const N*>(inputs[launch.first + k]);
    }
    AddNKernel<N, A><<<BlocksFor(n), kThreadsPerBlock, 0, stream>>>(
        t, partial, reinterpret_cast<N*>(sum), n);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  return cudaSuccess;
}

#define TFD_INSTANTIATE_CWISE(T)                                                           \
  template cudaError_t LaunchBinary<T>(BinaryOp, const T*, const T*, T*, int64_t,         \
                                       const BroadcastParams&, cudaStream_t, double);     \
  template cudaError_t LaunchUnary<T>(UnaryOp, const T*, T*, int64_t, cudaStream_t, double);
TFD_INSTANTIATE_CWISE(float)
TFD_INSTANTIATE_CWISE(double)
TFD_INSTANTIATE_CWISE(tfd::half)
TFD_INSTANTIATE_CWISE(tfd::bfloat16)
#undef TFD_INSTANTIATE_CWISE
// Integers: the arithmetic binary ops only.
template cudaError_t LaunchBinary<int32_t>(BinaryOp, const int32_t*, const int32_t*, int32_t*,
                                           int64_t, const BroadcastParams&, cudaStream_t, double);
template cudaError_t LaunchBinary<int64_t>(BinaryOp, const int64_t*, const int64_t*, int64_t*,
                                           int64_t, const BroadcastParams&, cudaStream_t, double);
#define TFD_INSTANTIATE_ADDN(T) \
  template cudaError_t LaunchAddN<T>(const T* const*, const AddNPlan&, T*, float*, int64_t, \
                                     cudaStream_t);
TFD_INSTANTIATE_ADDN(float)
TFD_INSTANTIATE_ADDN(double)
TFD_INSTANTIATE_ADDN(tfd::half)
TFD_INSTANTIATE_ADDN(tfd::bfloat16)
TFD_INSTANTIATE_ADDN(int32_t)
TFD_INSTANTIATE_ADDN(int64_t)
#undef TFD_INSTANTIATE_ADDN

}  // namespace cuda_kernels
}  // namespace tfd
