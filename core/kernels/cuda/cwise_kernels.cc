// GPU kernels of the elementwise math ops and activations (declared in
// core/kernels/cwise_ops.cc and activation_ops.cc) for float, double, half
// and bfloat16: binary ops with broadcasting and unary ops, from cwise.cu;
// the arithmetic binary ops (Div, FloorDiv, FloorMod and Pow included)
// for int32 and int64 too.
// The broadcast plan is built on the host (launch_plan_builders.h) from
// the shapes the op's shape function checked.
#include <cmath>
#include <limits>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/kernels/cuda/cwise.h"
#include "core/kernels/cuda/launch_plan_builders.h"

namespace tfd {
namespace {

using cuda_kernels::BinaryOp;
using cuda_kernels::UnaryOp;

// The attribute-like parameter of an op: LeakyRelu's alpha, Softplus's
// cut-off log(epsilon of T) + 2 (TensorFlow's), 0 for the rest.
template <typename T>
absl::StatusOr<double> OpParam(const KernelContext& ctx, bool leaky, bool softplus) {
  if (leaky) {
    TFD_ASSIGN_OR_RETURN(float alpha, ctx.GetAttr<float>("alpha"));
    return static_cast<double>(alpha);
  }
  if (!softplus) return 0.0;
  double epsilon = std::numeric_limits<double>::epsilon();
  if constexpr (std::is_same_v<T, half>) {
    epsilon = 0.0009765625;  // 2^-10
  } else if constexpr (std::is_same_v<T, bfloat16>) {
    epsilon = 0.0078125;  // 2^-7
  } else if constexpr (std::is_same_v<T, float>) {
    epsilon = std::numeric_limits<float>::epsilon();
  }
  // Rounded to the arithmetic type as the CPU kernel rounds it.
  using C = std::conditional_t<std::is_same_v<T, double>, double, float>;
  return static_cast<double>(static_cast<C>(std::log(epsilon) + 2.0));
}

// x, y: shapes that broadcast -> z: their broadcast shape.
template <typename T, BinaryOp kOp>
absl::Status BinaryGpu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const Tensor& y = ctx.input(1);
  TFD_ASSIGN_OR_RETURN(double param, OpParam<T>(ctx, kOp == BinaryOp::kLeakyReluGrad, false));
  TFD_ASSIGN_OR_RETURN(Tensor * z, ctx.AllocateOutput(0));
  if (z->NumElements() == 0) return absl::OkStatus();
  absl::StatusOr<cuda_kernels::BroadcastParams> plan =
      cuda_kernels::MakeBroadcastParams(x.shape(), y.shape(), z->shape());
  if (!plan.ok()) {
    return absl::Status(plan.status().code(),
                        absl::StrCat(ctx.op_name(), ": ", plan.status().message()));
  }
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchBinary<T>(
      kOp, x.data<T>(), y.data<T>(), z->data<T>(), z->NumElements(), *plan, gpu->stream(),
      param));
}

// Integer Div/FloorDiv/FloorMod by zero and integer powers with negative
// exponents are the CPU kernel's INVALID_ARGUMENT. The divisor or exponent
// is copied to the host to be checked: integer arithmetic on a GPU is
// index work on small tensors, and a wrong answer is worse than a copy.
template <typename T, BinaryOp kOp>
absl::Status IntegerBinaryGpu(KernelContext& ctx) {
  constexpr bool kDivides = kOp == BinaryOp::kRealDiv || kOp == BinaryOp::kFloorDiv ||
                            kOp == BinaryOp::kFloorMod;
  if (kDivides || kOp == BinaryOp::kPow) {
    TFD_ASSIGN_OR_RETURN(Tensor y, ctx.input(1).CopyTo(HostDevice()));
    for (int64_t i = 0; i < y.NumElements(); ++i) {
      const T v = y.data<T>()[i];
      if (kDivides && v == 0) return ctx.Error("Integer division by zero");
      if (!kDivides && v < 0) {
        return ctx.Error("Integers to negative integer powers are not allowed");
      }
    }
  }
  return BinaryGpu<T, kOp>(ctx);
}

// x: any shape -> y: the same shape.
template <typename T, UnaryOp kOp>
absl::Status UnaryGpu(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  TFD_ASSIGN_OR_RETURN(double param, OpParam<T>(ctx, kOp == UnaryOp::kLeakyRelu,
                                                kOp == UnaryOp::kSoftplus));
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchUnary<T>(kOp, x.data<T>(), y->data<T>(),
                                                      x.NumElements(), gpu->stream(), param));
}

// inputs: N tensors of one shape -> their sum.
template <typename T>
absl::Status AddNGpu(KernelContext& ctx) {
  std::vector<const T*> inputs;
  for (int i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.input(i).shape() != ctx.input(0).shape()) {
      return ctx.Error("inputs must have the same shape, got ", ctx.input(0).shape().DebugString(),
                       " and ", ctx.input(i).shape().DebugString());
    }
    inputs.push_back(ctx.input(i).data<T>());
  }
  TFD_ASSIGN_OR_RETURN(Tensor * sum, ctx.AllocateOutput(0));
  TFD_ASSIGN_OR_RETURN(CudaDevice * gpu, AsCudaDevice(ctx.device()));
  constexpr bool kNarrow = std::is_same_v<T, half> || std::is_same_v<T, bfloat16>;
  TFD_ASSIGN_OR_RETURN(cuda_kernels::AddNPlan plan,
                       cuda_kernels::PlanAddN(static_cast<int>(inputs.size()),
                                              cuda_kernels::kMaxAddNInputs, kNarrow));
  // The partial sums of a 16-bit AddN stay in float between launches; the
  // scratch is freed on return, behind the launches on the same stream.
  Tensor scratch;
  if (plan.needs_scratch) {
    TFD_ASSIGN_OR_RETURN(scratch, Tensor::Allocate(DT_FLOAT, sum->shape(), gpu));
  }
  TFD_RETURN_IF_ERROR(gpu->Activate());
  return TFD_CUDA_STATUS(cuda_kernels::LaunchAddN<T>(
      inputs.data(), plan, sum->data<T>(),
      plan.needs_scratch ? scratch.data<float>() : nullptr, sum->NumElements(), gpu->stream()));
}

#define TFD_BINARY_GPU(NAME, OP, T) \
  TFD_REGISTER_KERNEL(NAME, DeviceType::kGPU, DataTypeToEnum<T>::value, (BinaryGpu<T, OP>));
#define TFD_UNARY_GPU(NAME, OP, T) \
  TFD_REGISTER_KERNEL(NAME, DeviceType::kGPU, DataTypeToEnum<T>::value, (UnaryGpu<T, OP>));
#define TFD_CWISE_GPU(T)                                                 \
  TFD_BINARY_GPU("Add", BinaryOp::kAdd, T)                               \
  TFD_BINARY_GPU("AddV2", BinaryOp::kAdd, T)                             \
  TFD_BINARY_GPU("Sub", BinaryOp::kSub, T)                               \
  TFD_BINARY_GPU("Mul", BinaryOp::kMul, T)                               \
  TFD_BINARY_GPU("RealDiv", BinaryOp::kRealDiv, T)                       \
  TFD_BINARY_GPU("Div", BinaryOp::kRealDiv, T)                           \
  TFD_BINARY_GPU("Maximum", BinaryOp::kMaximum, T)                       \
  TFD_BINARY_GPU("Minimum", BinaryOp::kMinimum, T)                       \
  TFD_BINARY_GPU("SquaredDifference", BinaryOp::kSquaredDifference, T)   \
  TFD_BINARY_GPU("DivNoNan", BinaryOp::kDivNoNan, T)                     \
  TFD_BINARY_GPU("Pow", BinaryOp::kPow, T)                               \
  TFD_BINARY_GPU("FloorDiv", BinaryOp::kFloorDiv, T)                     \
  TFD_BINARY_GPU("FloorMod", BinaryOp::kFloorMod, T)                     \
  TFD_BINARY_GPU("SigmoidGrad", BinaryOp::kSigmoidGrad, T)               \
  TFD_BINARY_GPU("TanhGrad", BinaryOp::kTanhGrad, T)                     \
  TFD_BINARY_GPU("SqrtGrad", BinaryOp::kSqrtGrad, T)                     \
  TFD_BINARY_GPU("RsqrtGrad", BinaryOp::kRsqrtGrad, T)                   \
  TFD_BINARY_GPU("ReciprocalGrad", BinaryOp::kReciprocalGrad, T)         \
  TFD_UNARY_GPU("Neg", UnaryOp::kNeg, T)                                 \
  TFD_UNARY_GPU("Abs", UnaryOp::kAbs, T)                                 \
  TFD_UNARY_GPU("Sign", UnaryOp::kSign, T)                               \
  TFD_UNARY_GPU("Square", UnaryOp::kSquare, T)                           \
  TFD_UNARY_GPU("Sqrt", UnaryOp::kSqrt, T)                               \
  TFD_UNARY_GPU("Rsqrt", UnaryOp::kRsqrt, T)                             \
  TFD_UNARY_GPU("Exp", UnaryOp::kExp, T)                                 \
  TFD_UNARY_GPU("Log", UnaryOp::kLog, T)                                 \
  TFD_UNARY_GPU("Log1p", UnaryOp::kLog1p, T)                             \
  TFD_UNARY_GPU("Reciprocal", UnaryOp::kReciprocal, T)                   \
  TFD_UNARY_GPU("Floor", UnaryOp::kFloor, T)                             \
  TFD_UNARY_GPU("Ceil", UnaryOp::kCeil, T)                               \
  TFD_UNARY_GPU("Round", UnaryOp::kRound, T)                             \
  TFD_UNARY_GPU("Sin", UnaryOp::kSin, T)                                 \
  TFD_UNARY_GPU("Cos", UnaryOp::kCos, T)                                 \
  TFD_UNARY_GPU("Tanh", UnaryOp::kTanh, T)                               \
  TFD_UNARY_GPU("Sigmoid", UnaryOp::kSigmoid, T)                         \
  TFD_UNARY_GPU("Relu6", UnaryOp::kRelu6, T)                             \
  TFD_UNARY_GPU("Elu", UnaryOp::kElu, T)                                 \
  TFD_UNARY_GPU("Selu", UnaryOp::kSelu, T)                               \
  TFD_UNARY_GPU("Softsign", UnaryOp::kSoftsign, T)                       \
  TFD_UNARY_GPU("Softplus", UnaryOp::kSoftplus, T)                       \
  TFD_UNARY_GPU("LeakyRelu", UnaryOp::kLeakyRelu, T)                     \
  TFD_BINARY_GPU("Relu6Grad", BinaryOp::kRelu6Grad, T)                   \
  TFD_BINARY_GPU("EluGrad", BinaryOp::kEluGrad, T)                       \
  TFD_BINARY_GPU("SeluGrad", BinaryOp::kSeluGrad, T)                     \
  TFD_BINARY_GPU("SoftplusGrad", BinaryOp::kSoftplusGrad, T)             \
  TFD_BINARY_GPU("SoftsignGrad", BinaryOp::kSoftsignGrad, T)             \
  TFD_BINARY_GPU("LeakyReluGrad", BinaryOp::kLeakyReluGrad, T)
TFD_REGISTER_KERNEL("AddN", DeviceType::kGPU, DT_FLOAT, AddNGpu<float>);
TFD_REGISTER_KERNEL("AddN", DeviceType::kGPU, DT_DOUBLE, AddNGpu<double>);
TFD_REGISTER_KERNEL("AddN", DeviceType::kGPU, DT_HALF, AddNGpu<half>);
TFD_REGISTER_KERNEL("AddN", DeviceType::kGPU, DT_BFLOAT16, AddNGpu<bfloat16>);
TFD_REGISTER_KERNEL("AddN", DeviceType::kGPU, DT_INT32, AddNGpu<int32_t>);
TFD_REGISTER_KERNEL("AddN", DeviceType::kGPU, DT_INT64, AddNGpu<int64_t>);
#define TFD_INTEGER_BINARY_GPU(NAME, OP, T) \
  TFD_REGISTER_KERNEL(NAME, DeviceType::kGPU, DataTypeToEnum<T>::value, (IntegerBinaryGpu<T, OP>));
#define TFD_INTEGER_CWISE_GPU(T)                                                 \
  TFD_INTEGER_BINARY_GPU("Add", BinaryOp::kAdd, T)                               \
  TFD_INTEGER_BINARY_GPU("AddV2", BinaryOp::kAdd, T)                             \
  TFD_INTEGER_BINARY_GPU("Sub", BinaryOp::kSub, T)                               \
  TFD_INTEGER_BINARY_GPU("Mul", BinaryOp::kMul, T)                               \
  TFD_INTEGER_BINARY_GPU("RealDiv", BinaryOp::kRealDiv, T)                       \
  TFD_INTEGER_BINARY_GPU("Div", BinaryOp::kRealDiv, T)                           \
  TFD_INTEGER_BINARY_GPU("Maximum", BinaryOp::kMaximum, T)                       \
  TFD_INTEGER_BINARY_GPU("Minimum", BinaryOp::kMinimum, T)                       \
  TFD_INTEGER_BINARY_GPU("SquaredDifference", BinaryOp::kSquaredDifference, T)   \
  TFD_INTEGER_BINARY_GPU("Pow", BinaryOp::kPow, T)                               \
  TFD_INTEGER_BINARY_GPU("FloorDiv", BinaryOp::kFloorDiv, T)                     \
  TFD_INTEGER_BINARY_GPU("FloorMod", BinaryOp::kFloorMod, T)
TFD_INTEGER_CWISE_GPU(int32_t)
TFD_INTEGER_CWISE_GPU(int64_t)
#undef TFD_INTEGER_CWISE_GPU
#undef TFD_INTEGER_BINARY_GPU
TFD_CWISE_GPU(float)
TFD_CWISE_GPU(double)
TFD_CWISE_GPU(half)
TFD_CWISE_GPU(bfloat16)
#undef TFD_CWISE_GPU
#undef TFD_UNARY_GPU
#undef TFD_BINARY_GPU

}  // namespace
}  // namespace tfd
