// Parity of the GPU elementwise, reduction and bias kernels with the CPU
// kernels: float32 within 1e-5 and half/bfloat16 within 1e-2 of the
// largest magnitude (parity_testutil.h), across broadcast kinds, reduction
// axis patterns (one and two passes), NHWC and NCHW biases, softmax and
// the cross-entropies, and empty tensors. They need a GPU and skip, saying so, without one; the
// registration test runs on every CUDA build.
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/framework/execute.h"
#include "core/framework/kernel.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cuda/parity_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

const char* const kBinaryOps[] = {"Add",      "AddV2",   "Sub",     "Mul",
                                  "RealDiv",  "Maximum", "Minimum", "SquaredDifference",
                                  "DivNoNan", "FloorDiv", "FloorMod"};
// Ops whose inputs may be any sign.
const char* const kUnaryOps[] = {"Neg",  "Abs",  "Sign",    "Square",  "Exp",      "Floor",
                                 "Ceil", "Round", "Sin",    "Cos",     "Tanh",     "Sigmoid",
                                 "Relu6", "Elu",  "Selu",   "Softsign", "Softplus", "LeakyRelu"};
// Ops that need positive inputs.
const char* const kPositiveUnaryOps[] = {"Sqrt", "Rsqrt", "Log", "Log1p", "Reciprocal"};
const char* const kReductions[] = {"Sum", "Mean", "Max", "Min", "Prod"};
// Gradients from an output y and the upstream dy, same shapes.
const char* const kGradOps[] = {"SigmoidGrad", "TanhGrad", "SqrtGrad",     "RsqrtGrad",
                                "ReciprocalGrad", "Relu6Grad", "EluGrad",     "SeluGrad",
                                "SoftplusGrad",   "SoftsignGrad", "LeakyReluGrad"};

TEST(MathGpuRegistrationTest, RegisteredForTheFloatingTypes) {
  std::vector<std::string> ops(std::begin(kBinaryOps), std::end(kBinaryOps));
  ops.insert(ops.end(), std::begin(kUnaryOps), std::end(kUnaryOps));
  ops.insert(ops.end(), std::begin(kPositiveUnaryOps), std::end(kPositiveUnaryOps));
  ops.insert(ops.end(), std::begin(kReductions), std::end(kReductions));
  ops.insert(ops.end(), std::begin(kGradOps), std::end(kGradOps));
  for (const char* op : {"Pow", "AddN", "BiasAdd", "BiasAddGrad", "Softmax", "LogSoftmax", "Equal",
                         "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual",
                         "SelectV2", "ArgMax", "ArgMin",
                         "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits"}) {
    ops.push_back(op);
  }
  test::ExpectGpuKernels(ops, {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16});
  test::ExpectGpuKernels({"Cast"}, {DT_INVALID});
}

class MathGpuTest : public test::GpuTest {
 protected:
  template <typename T>
  void CheckBinary() {
    // Same shape, scalar left/right, row vector, column vector, 3-D general.
    const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
        {{1000}, {1000}},   {{}, {37, 5}},       {{37, 5}, {1}},         {{64, 33}, {33}},
        {{64, 33}, {64, 1}}, {{3, 1, 5}, {4, 1}}, {{2, 3, 4, 5}, {3, 1, 5}}, {{33}, {64, 33}}};
    for (const auto& [xs, ys] : shapes) {
      // Divisors away from zero, so RealDiv compares finite values.
      const Tensor x = test::RandomTensor<T>(xs, 1, -2, 2);
      const Tensor y = test::RandomTensor<T>(ys, 2, 0.5, 2);
      for (const char* op : kBinaryOps) {
        SCOPED_TRACE(testing::Message() << op << " " << DataTypeName(DataTypeToEnum<T>::value)
                                        << " " << xs.DebugString() << " " << ys.DebugString());
        test::ExpectGpuMatchesCpu(op, {x, y}, AttrMap(), gpu_);
      }
      // Pow of a positive base: real results on both devices.
      const Tensor base = test::RandomTensor<T>(xs, 3, 0.5, 2);
      test::ExpectGpuMatchesCpu("Pow", {base, y}, AttrMap(), gpu_);
    }
  }

  template <typename T>
  void CheckUnary() {
    for (int64_t n : {int64_t{1}, int64_t{1000}, int64_t{1} << 18}) {
      const Tensor any = test::RandomTensor<T>({n}, 3, -3, 3);
      const Tensor positive = test::RandomTensor<T>({n}, 4, 0.1, 3);
      for (const char* op : kUnaryOps) {
        SCOPED_TRACE(testing::Message() << op << " n=" << n);
        test::ExpectGpuMatchesCpu(op, {any}, AttrMap(), gpu_);
      }
      for (const char* op : kPositiveUnaryOps) {
        SCOPED_TRACE(testing::Message() << op << " n=" << n);
        test::ExpectGpuMatchesCpu(op, {positive}, AttrMap(), gpu_);
      }
      for (const char* op : kGradOps) {
        SCOPED_TRACE(testing::Message() << op << " n=" << n);
        test::ExpectGpuMatchesCpu(op, {positive, any}, AttrMap(), gpu_);
      }
    }
  }

  template <typename T>
  void CheckReductions() {
    struct Case {
      TensorShape shape;
      std::vector<int32_t> axes;
    } cases[] = {{{4, 5, 6}, {1}},     {{4, 5, 6}, {0, 2}}, {{4, 5, 6}, {0, 1, 2}},
                 {{4, 5, 6}, {2}},     {{4, 5, 6}, {0}},    {{4, 5, 6}, {-1, 0}},
                 {{100000}, {0}},      {{1, 7}, {0}},       {{300, 70}, {1}},
                 {{2, 3, 4, 5}, {1, 3}},
                 // Long reductions into few outputs run as passes over runs
                 // of the axis (ReductionPass::chunk): columns and rows.
                 {{20000, 4}, {0}},    {{3, 40000}, {1}}};
    for (const Case& c : cases) {
      const Tensor x = test::RandomTensor<T>(c.shape, 5, 0.9, 1.1);
      const Tensor axes = test::AsTensor<int32_t>(
          c.axes, TensorShape({static_cast<int64_t>(c.axes.size())}));
      int64_t count = 1;
      for (int32_t a : c.axes) count *= c.shape.dim(a < 0 ? a + c.shape.rank() : a);
      for (const char* op : kReductions) {
        // A product's rounding error grows with its length (n ulps), past
        // any fixed tolerance; products are compared over short rows only.
        if (std::string(op) == "Prod" && count > 64) continue;
        for (bool keep_dims : {false, true}) {
          SCOPED_TRACE(testing::Message() << op << " " << c.shape.DebugString()
                                          << " keep_dims=" << keep_dims);
          test::ExpectGpuMatchesCpu(op, {x, axes}, AttrMap().Set("keep_dims", keep_dims), gpu_);
        }
      }
    }
  }

  template <typename T>
  void CheckBias() {
    for (const char* format : {"NHWC", "NCHW"}) {
      for (const TensorShape& shape :
           {TensorShape({8, 16}), TensorShape({2, 5, 5, 7}), TensorShape({3, 4, 9, 2}),
            // NHWC: 65536 rows of 3 channels, a split column reduction.
            TensorShape({64, 32, 32, 3})}) {
        // NCHW needs at least 3 dimensions (TensorFlow's rule).
        if (std::string(format) == "NCHW" && shape.rank() < 3) continue;
        const int64_t channels = std::string(format) == "NCHW" ? shape.dim(1)
                                                               : shape.dim(shape.rank() - 1);
        const Tensor value = test::RandomTensor<T>(shape, 6);
        const Tensor bias = test::RandomTensor<T>({channels}, 7);
        SCOPED_TRACE(testing::Message() << format << " " << shape.DebugString());
        const AttrMap attrs = AttrMap().Set("data_format", std::string(format));
        test::ExpectGpuMatchesCpu("BiasAdd", {value, bias}, attrs, gpu_);
        test::ExpectGpuMatchesCpu("BiasAddGrad", {value}, attrs, gpu_);
      }
    }
  }

  template <typename T>
  void CheckSoftmax() {
    for (const TensorShape& shape :
         {TensorShape({1, 1}), TensorShape({32, 10}), TensorShape({7, 1000}), TensorShape({4, 3, 5})}) {
      SCOPED_TRACE(testing::Message() << DataTypeName(DataTypeToEnum<T>::value) << " "
                                      << shape.DebugString());
      const Tensor logits = test::RandomTensor<T>(shape, 8, -5, 5);
      test::ExpectGpuMatchesCpu("Softmax", {logits}, AttrMap(), gpu_);
      test::ExpectGpuMatchesCpu("LogSoftmax", {logits}, AttrMap(), gpu_);
    }
    for (const auto& [batch, classes] : std::vector<std::pair<int64_t, int64_t>>{
             {1, 1}, {32, 10}, {5, 1000}}) {
      SCOPED_TRACE(testing::Message() << batch << "x" << classes);
      const Tensor features = test::RandomTensor<T>({batch, classes}, 9, -4, 4);
      // Rows of a probability distribution.
      const Tensor raw = test::RandomTensor<T>({batch, classes}, 10, 0, 1);
      absl::StatusOr<Tensor> labels = Execute1("Softmax", {raw}, AttrMap(), HostDevice());
      ASSERT_TRUE(labels.ok()) << labels.status();
      std::vector<int32_t> sparse;
      for (int64_t b = 0; b < batch; ++b) sparse.push_back(static_cast<int32_t>((b * 7) % classes));
      const Tensor sparse_labels = test::AsTensor<int32_t>(sparse, {batch});
      for (int out = 0; out < 2; ++out) {
        for (const auto& [op, label] :
             {std::pair<const char*, Tensor>{"SoftmaxCrossEntropyWithLogits", *labels},
              std::pair<const char*, Tensor>{"SparseSoftmaxCrossEntropyWithLogits",
                                             sparse_labels}}) {
          absl::StatusOr<std::vector<Tensor>> on_gpu =
              Execute(op, {features, label}, AttrMap(), gpu_);
          absl::StatusOr<std::vector<Tensor>> on_cpu =
              Execute(op, {features, label}, AttrMap(), HostDevice());
          ASSERT_TRUE(on_gpu.ok() && on_cpu.ok()) << op << on_gpu.status() << on_cpu.status();
          test::ExpectNearScaled(*(*on_gpu)[out].CopyTo(HostDevice()), (*on_cpu)[out],
                                 test::ParityTolerance(DataTypeToEnum<T>::value));
        }
      }
    }
  }
};

TEST_F(MathGpuTest, SoftmaxFloat32) { CheckSoftmax<float>(); }
TEST_F(MathGpuTest, SoftmaxHalf) { CheckSoftmax<half>(); }
TEST_F(MathGpuTest, SoftmaxBfloat16) { CheckSoftmax<bfloat16>(); }

// TensorFlow's GPU kernel: a label outside [0, classes) gives NaN there.
TEST_F(MathGpuTest, SparseXentOutOfRangeLabelIsNaN) {
  const Tensor features = test::RandomTensor<float>({2, 3}, 1);
  const Tensor labels = test::AsTensor<int64_t>({1, 3}, {2});
  absl::StatusOr<std::vector<Tensor>> out =
      Execute("SparseSoftmaxCrossEntropyWithLogits", {features, labels}, AttrMap(), gpu_);
  ASSERT_TRUE(out.ok()) << out.status();
  const std::vector<double> loss = test::ToDoubles(*(*out)[0].CopyTo(HostDevice()));
  EXPECT_FALSE(std::isnan(loss[0]));
  EXPECT_TRUE(std::isnan(loss[1]));
}

TEST_F(MathGpuTest, BinaryFloat32) { CheckBinary<float>(); }
TEST_F(MathGpuTest, BinaryHalf) { CheckBinary<half>(); }
TEST_F(MathGpuTest, BinaryBfloat16) { CheckBinary<bfloat16>(); }
TEST_F(MathGpuTest, BinaryDouble) { CheckBinary<double>(); }
TEST_F(MathGpuTest, UnaryFloat32) { CheckUnary<float>(); }
TEST_F(MathGpuTest, UnaryHalf) { CheckUnary<half>(); }
TEST_F(MathGpuTest, UnaryBfloat16) { CheckUnary<bfloat16>(); }
TEST_F(MathGpuTest, ReductionsFloat32) { CheckReductions<float>(); }
TEST_F(MathGpuTest, ReductionsHalf) { CheckReductions<half>(); }
TEST_F(MathGpuTest, ReductionsBfloat16) { CheckReductions<bfloat16>(); }
TEST_F(MathGpuTest, ReductionsDouble) { CheckReductions<double>(); }
TEST_F(MathGpuTest, BiasFloat32) { CheckBias<float>(); }
TEST_F(MathGpuTest, BiasHalf) { CheckBias<half>(); }
TEST_F(MathGpuTest, BiasBfloat16) { CheckBias<bfloat16>(); }

TEST_F(MathGpuTest, CastMatchesCpu) {
  const DataType types[] = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16, DT_INT32, DT_INT64,
                            DT_BOOL};
  // Values whose integer conversions are defined: |x| < 2^31, no NaN.
  const Tensor base = test::RandomTensor<float>({1000}, 11, -300, 300);
  for (DataType src : types) {
    absl::StatusOr<Tensor> x =
        Execute1("Cast", {base}, AttrMap().Set("DstT", src), HostDevice());
    ASSERT_TRUE(x.ok()) << x.status();
    for (DataType dst : types) {
      SCOPED_TRACE(testing::Message() << DataTypeName(src) << " -> " << DataTypeName(dst));
      const AttrMap attrs = AttrMap().Set("DstT", dst);
      absl::StatusOr<Tensor> on_gpu = Execute1("Cast", {*x}, attrs, gpu_);
      absl::StatusOr<Tensor> on_cpu = Execute1("Cast", {*x}, attrs, HostDevice());
      ASSERT_TRUE(on_gpu.ok() && on_cpu.ok()) << on_gpu.status() << on_cpu.status();
      EXPECT_EQ(on_gpu->dtype(), dst);
      // Conversions are exact or correctly rounded on both devices.
      EXPECT_EQ(test::ToDoubles(*on_gpu->CopyTo(HostDevice())), test::ToDoubles(*on_cpu));
    }
  }
}

TEST_F(MathGpuTest, ComparisonsSelectAndArgReductionsMatchCpu) {
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {{100}, {100}}, {{}, {7, 5}}, {{7, 5}, {5}}, {{3, 1, 5}, {4, 1}}};
  for (const auto& [xs, ys] : shapes) {
    SCOPED_TRACE(testing::Message() << xs.DebugString() << " " << ys.DebugString());
    // Few distinct values, so equal pairs occur.
    const Tensor x = *Execute1("Round", {test::RandomTensor<float>(xs, 1, -2, 2)}, AttrMap(),
                               HostDevice());
    const Tensor y = *Execute1("Round", {test::RandomTensor<float>(ys, 2, -2, 2)}, AttrMap(),
                               HostDevice());
    for (const char* op : {"Equal", "NotEqual", "Less", "LessEqual", "Greater", "GreaterEqual"}) {
      SCOPED_TRACE(op);
      absl::StatusOr<Tensor> on_gpu = Execute1(op, {x, y}, AttrMap(), gpu_);
      absl::StatusOr<Tensor> on_cpu = Execute1(op, {x, y}, AttrMap(), HostDevice());
      ASSERT_TRUE(on_gpu.ok() && on_cpu.ok()) << on_gpu.status() << on_cpu.status();
      EXPECT_EQ(test::ToDoubles(*on_gpu->CopyTo(HostDevice())), test::ToDoubles(*on_cpu));
    }
    absl::StatusOr<Tensor> cond = Execute1("Greater", {x, y}, AttrMap(), HostDevice());
    ASSERT_TRUE(cond.ok());
    test::ExpectGpuMatchesCpu("SelectV2", {*cond, x, y}, AttrMap(), gpu_);
  }
  // Incompatible shapes without the error: a scalar answer.
  absl::StatusOr<Tensor> ne = Execute1(
      "NotEqual", {test::RandomTensor<float>({3}, 1), test::RandomTensor<float>({4}, 2)},
      AttrMap().Set("incompatible_shape_error", false), gpu_);
  ASSERT_TRUE(ne.ok()) << ne.status();
  EXPECT_EQ(test::ToDoubles(*ne->CopyTo(HostDevice())), std::vector<double>{1});
  const Tensor scores = test::RandomTensor<float>({6, 10, 4}, 3);
  for (int64_t axis : {0, 1, -1}) {
    for (const char* op : {"ArgMax", "ArgMin"}) {
      SCOPED_TRACE(testing::Message() << op << " axis " << axis);
      const Tensor dim = test::AsTensor<int64_t>({axis}, TensorShape({}));
      absl::StatusOr<Tensor> on_gpu = Execute1(op, {scores, dim}, AttrMap(), gpu_);
      absl::StatusOr<Tensor> on_cpu = Execute1(op, {scores, dim}, AttrMap(), HostDevice());
      ASSERT_TRUE(on_gpu.ok() && on_cpu.ok()) << on_gpu.status() << on_cpu.status();
      EXPECT_EQ(test::ToDoubles(*on_gpu->CopyTo(HostDevice())), test::ToDoubles(*on_cpu));
    }
  }
}

TEST_F(MathGpuTest, AddNMatchesCpu) {
  for (int n : {1, 2, 17, 40}) {  // 17 and 40 take more than one launch
    std::vector<Tensor> inputs;
    for (int i = 0; i < n; ++i) inputs.push_back(test::RandomTensor<float>({999}, 20 + i));
    SCOPED_TRACE(testing::Message() << n << " inputs");
    test::ExpectGpuMatchesCpu("AddN", inputs, AttrMap(), gpu_);
  }
}

// 40 inputs take three launches; the partial sums must stay in float
// between them, so the result is one float accumulation rounded once to
// bfloat16 (add_n_plan.h), as tfd's CPU kernel computes it.
TEST_F(MathGpuTest, AddNOfFortyBfloat16RoundsOnce) {
  constexpr int kInputs = 40;
  constexpr int64_t kSize = 4099;  // Not a multiple of any launch width.
  std::vector<Tensor> inputs;
  for (int i = 0; i < kInputs; ++i) {
    inputs.push_back(test::RandomTensor<bfloat16>({kSize}, 100 + i, -1, 1));
  }
  std::vector<float> reference(kSize, 0.0f);
  for (const Tensor& t : inputs) {
    for (int64_t j = 0; j < kSize; ++j) reference[j] += static_cast<float>(t.data<bfloat16>()[j]);
  }
  absl::StatusOr<Tensor> sum = Execute1("AddN", inputs, AttrMap(), gpu_);
  ASSERT_TRUE(sum.ok()) << sum.status();
  const Tensor host = test::ToHost(*sum);
  ASSERT_EQ(host.dtype(), DT_BFLOAT16);
  int64_t mismatches = 0;
  for (int64_t j = 0; j < kSize; ++j) {
    const float expected = static_cast<float>(bfloat16(reference[j]));
    const float got = static_cast<float>(host.data<bfloat16>()[j]);
    if (got != expected && ++mismatches <= 5) {
      ADD_FAILURE() << "element " << j << ": got " << got << ", float sum rounded once is "
                    << expected << " (float sum " << reference[j] << ")";
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST_F(MathGpuTest, EmptyReductionsGiveTheIdentity) {
  const Tensor x = test::RandomTensor<float>({3, 0}, 1);
  const Tensor axis = test::AsTensor<int32_t>({1}, {1});
  for (const char* op : {"Sum", "Max", "Mean"}) {
    absl::StatusOr<Tensor> y = Execute1(op, {x, axis}, AttrMap(), gpu_);
    ASSERT_TRUE(y.ok()) << op << ": " << y.status();
    const std::vector<double> v = test::ToDoubles(*y->CopyTo(HostDevice()));
    ASSERT_EQ(v.size(), 3u) << op;
    const std::string name = op;
    if (name == "Sum") {
      EXPECT_EQ(v[0], 0);
    } else if (name == "Max") {
      EXPECT_EQ(v[0], -std::numeric_limits<double>::infinity());
    } else {
      EXPECT_TRUE(std::isnan(v[0]));
    }
  }
  const Tensor no_rows = test::RandomTensor<float>({0, 4}, 2);
  absl::StatusOr<Tensor> db = Execute1("BiasAddGrad", {no_rows}, AttrMap(), gpu_);
  ASSERT_TRUE(db.ok()) << db.status();
  EXPECT_EQ(test::ToDoubles(*db->CopyTo(HostDevice())), std::vector<double>(4, 0.0));
}

TEST_F(MathGpuTest, MaximumAndMaxPropagateNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor x = test::AsTensor<float>({nan, 1, 2}, {3});
  const Tensor y = test::AsTensor<float>({1, nan, 0}, {3});
  absl::StatusOr<Tensor> m = Execute1("Maximum", {x, y}, AttrMap(), gpu_);
  ASSERT_TRUE(m.ok()) << m.status();
  const std::vector<double> v = test::ToDoubles(*m->CopyTo(HostDevice()));
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_TRUE(std::isnan(v[1]));
  EXPECT_EQ(v[2], 2);
  absl::StatusOr<Tensor> r =
      Execute1("Max", {x, test::AsTensor<int32_t>({0}, {1})}, AttrMap(), gpu_);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(std::isnan(test::ToDoubles(*r->CopyTo(HostDevice()))[0]));
}

}  // namespace
}  // namespace tfd

namespace tfd {
namespace {

// Integers of both signs (divisors and exponents kept valid), so Div's
// truncation and FloorDiv/FloorMod's rounding toward -inf differ.
template <typename T>
Tensor IntegerTensor(const TensorShape& shape, uint32_t seed, int lo, int hi, bool nonzero) {
  std::vector<T> v(shape.num_elements());
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(lo, hi);
  for (T& x : v) {
    do {
      x = static_cast<T>(dist(rng));
    } while (nonzero && x == 0);
  }
  return test::AsTensor<T>(v, shape);
}

class IntegerMathGpuTest : public test::GpuTest {
 protected:
  template <typename T>
  void CheckParity() {
    const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
        {{50}, {50}}, {{}, {6, 5}}, {{6, 5}, {5}}, {{3, 1, 5}, {4, 1}}};
    for (const auto& [xs, ys] : shapes) {
      SCOPED_TRACE(testing::Message() << DataTypeName(DataTypeToEnum<T>::value) << " "
                                      << xs.DebugString() << " " << ys.DebugString());
      const Tensor x = IntegerTensor<T>(xs, 1, -50, 50, false);
      const Tensor divisor = IntegerTensor<T>(ys, 2, -7, 7, true);
      const Tensor exponent = IntegerTensor<T>(ys, 3, 0, 4, false);
      for (const char* op : {"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum",
                             "SquaredDifference", "Div", "RealDiv", "FloorDiv", "FloorMod"}) {
        SCOPED_TRACE(op);
        absl::StatusOr<Tensor> on_gpu = Execute1(op, {x, divisor}, AttrMap(), gpu_);
        absl::StatusOr<Tensor> on_cpu = Execute1(op, {x, divisor}, AttrMap(), HostDevice());
        ASSERT_TRUE(on_gpu.ok() && on_cpu.ok()) << on_gpu.status() << on_cpu.status();
        test::ExpectTensorEqual(*on_gpu->CopyTo(HostDevice()), *on_cpu);
      }
      absl::StatusOr<Tensor> on_gpu = Execute1("Pow", {x, exponent}, AttrMap(), gpu_);
      absl::StatusOr<Tensor> on_cpu = Execute1("Pow", {x, exponent}, AttrMap(), HostDevice());
      ASSERT_TRUE(on_gpu.ok() && on_cpu.ok()) << on_gpu.status() << on_cpu.status();
      test::ExpectTensorEqual(*on_gpu->CopyTo(HostDevice()), *on_cpu);
    }
  }
};

TEST_F(IntegerMathGpuTest, Int32MatchesCpu) { CheckParity<int32_t>(); }
TEST_F(IntegerMathGpuTest, Int64MatchesCpu) { CheckParity<int64_t>(); }

TEST_F(IntegerMathGpuTest, ZeroDivisorsAndNegativeExponentsAreErrors) {
  const Tensor x = test::AsTensor<int32_t>({1, 2, 3}, {3});
  const Tensor zero = *test::AsTensor<int32_t>({1, 0, 1}, {3}).CopyTo(gpu_);
  for (const char* op : {"Div", "FloorDiv", "FloorMod"}) {
    absl::StatusOr<Tensor> r = Execute1(op, {x, zero}, AttrMap(), gpu_);
    ASSERT_FALSE(r.ok()) << op;
    EXPECT_NE(r.status().message().find("division by zero"), std::string::npos) << r.status();
  }
  absl::StatusOr<Tensor> r =
      Execute1("Pow", {x, test::AsTensor<int32_t>({1, -1, 1}, {3})}, AttrMap(), gpu_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("negative integer powers"), std::string::npos);
}

TEST(IntegerMathGpuRegistrationTest, RegisteredForInt32AndInt64) {
  test::ExpectGpuKernels({"Add", "AddV2", "Sub", "Mul", "Maximum", "Minimum", "SquaredDifference",
                          "Div", "RealDiv", "FloorDiv", "FloorMod", "Pow"},
                         {DT_INT32, DT_INT64});
}

}  // namespace
}  // namespace tfd
