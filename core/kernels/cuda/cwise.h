// Launchers of the elementwise CUDA kernels (cwise.cu): binary ops with
// TensorFlow's broadcasting and unary ops, callable from host C++ compiled
// without nvcc (cwise_kernels.cc registers them).
//
// T is float, double, tfd::half or tfd::bfloat16; 16-bit values are
// computed in float, as on the CPU. LaunchBinary also takes int32_t and
// int64_t for the arithmetic ops (kAdd to kSquaredDifference, kPow,
// kFloorDiv, kFloorMod; kRealDiv truncates), with the CPU's integer
// semantics; other ops give cudaErrorInvalidValue. Integer divisors and
// exponents must have been checked (no zero divisor, no negative
// exponent) by the caller. Pointers are device memory of the
// current device. n is the number of output elements; n == 0 launches
// nothing. Each returns the launch's error (cudaGetLastError).
#ifndef TFD_CORE_KERNELS_CUDA_CWISE_H_
#define TFD_CORE_KERNELS_CUDA_CWISE_H_

#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/kernels/cuda/add_n_plan.h"
#include "core/kernels/cuda/launch_plans.h"

namespace tfd {
namespace cuda_kernels {

// The CPU kernels' formulas (core/kernels/cpu/cwise_binary_kernels.cc):
// Maximum and Minimum propagate NaN; DivNoNan is 0 where y is 0.
enum class BinaryOp {
  kAdd,
  kSub,
  kMul,
  kRealDiv,
  kMaximum,
  kMinimum,
  kSquaredDifference,
  kDivNoNan,
  kPow,
  kFloorDiv,  // floor(x / y)
  kFloorMod,  // the remainder with the divisor's sign
  // Gradients from an op's output y (x here) and the upstream dy (y here),
  // same shapes, as TensorFlow's *Grad ops define them.
  kSigmoidGrad,     // dy * y * (1 - y)
  kTanhGrad,        // dy * (1 - y * y)
  kSqrtGrad,        // dy * 0.5 / y
  kRsqrtGrad,       // dy * -0.5 * y * y * y
  kReciprocalGrad,  // -dy * y * y
  // Activation gradients from (gradients, features or outputs), as the CPU
  // kernels (core/kernels/cpu/activation_kernels.cc) compute them.
  kRelu6Grad,
  kEluGrad,
  kSeluGrad,
  kSoftplusGrad,
  kSoftsignGrad,
  kLeakyReluGrad,  // `param` is alpha
};

enum class UnaryOp {
  kNeg,
  kAbs,
  kSign,  // NaN stays NaN
  kSquare,
  kSqrt,
  kRsqrt,
  kExp,
  kLog,
  kLog1p,
  kReciprocal,
  kFloor,
  kCeil,
  kRound,  // half to even
  kSin,
  kCos,
  kTanh,
  kSigmoid,
  kRelu6,
  kElu,
  kSelu,
  kSoftsign,
  kSoftplus,   // `param` is the cut-off log(epsilon of T) + 2
  kLeakyRelu,  // `param` is alpha
};

// z[i] = op(x[xi], y[yi]) for each output element i, with xi, yi from
// `plan` (launch_plans.h). `param` is the op's attribute where it has one.
template <typename T>
cudaError_t LaunchBinary(BinaryOp op, const T* x, const T* y, T* z, int64_t n,
                         const BroadcastParams& plan, cudaStream_t stream, double param = 0);

// y[i] = op(x[i]).
template <typename T>
cudaError_t LaunchUnary(UnaryOp op, const T* x, T* y, int64_t n, cudaStream_t stream,
                        double param = 0);

// sum[i] = inputs[0][i] + ... + inputs[count - 1][i], accumulated in the
// arithmetic type and rounded once, in the launches of `plan` (PlanAddN
// with kMaxAddNInputs per launch). T may also be int32_t or int64_t.
// `scratch`: n floats for the partial sum when plan.needs_scratch (16-bit
// T), else unused; cudaErrorInvalidValue when it is needed and null.
constexpr int kMaxAddNInputs = 16;
template <typename T>
cudaError_t LaunchAddN(const T* const* inputs, const AddNPlan& plan, T* sum, float* scratch,
                       int64_t n, cudaStream_t stream);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_CWISE_H_
