// Tests of the activation kernels and their gradient-op kernels against
// plain double-precision reference formulas, for every float dtype, plus
// integer Relu, NaN handling, attrs, edge shapes and errors.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/nn_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FromDoubles;
using test::RandomValues;
using test::ToDoubles;

constexpr double kScale = 1.0507009873554804934193349852946;
constexpr double kAlpha = 1.6732632423543772848170429916717;
// LeakyRelu's alpha is a float attr: float64 kernels see 0.2f widened.
const double kLeak = static_cast<double>(0.2f);

double Softplus(double x) { return x > 0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x)); }
double Sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

struct UnaryCase {
  std::string op;
  std::function<double(double)> ref;
};

const std::vector<UnaryCase>& UnaryCases() {
  static const auto* cases = new std::vector<UnaryCase>{
      {"Relu", [](double x) { return x > 0 ? x : 0.0; }},
      {"Relu6", [](double x) { return std::min(std::max(x, 0.0), 6.0); }},
      {"Elu", [](double x) { return x < 0 ? std::expm1(x) : x; }},
      {"Selu", [](double x) { return x < 0 ? kScale * kAlpha * std::expm1(x) : kScale * x; }},
      {"LeakyRelu", [](double x) { return x > 0 ? x : kLeak * x; }},
      {"Softplus", Softplus},
      {"Softsign", [](double x) { return x / (1 + std::abs(x)); }},
      {"Sigmoid", Sigmoid},
      {"Tanh", [](double x) { return std::tanh(x); }},
  };
  return *cases;
}

struct BinaryCase {
  std::string op;
  // (first input, second input) -> output, in the op's input order.
  std::function<double(double, double)> ref;
};

const std::vector<BinaryCase>& BinaryCases() {
  static const auto* cases = new std::vector<BinaryCase>{
      {"ReluGrad", [](double g, double x) { return x > 0 ? g : 0.0; }},
      {"Relu6Grad", [](double g, double x) { return x > 0 && x < 6 ? g : 0.0; }},
      {"EluGrad", [](double g, double y) { return y < 0 ? g * (y + 1) : g; }},
      {"SeluGrad",
       [](double g, double y) { return y < 0 ? g * (y + kScale * kAlpha) : g * kScale; }},
      {"LeakyReluGrad", [](double g, double x) { return x > 0 ? g : kLeak * g; }},
      {"SoftplusGrad", [](double g, double x) { return g * Sigmoid(x); }},
      {"SoftsignGrad",
       [](double g, double x) { return g / ((1 + std::abs(x)) * (1 + std::abs(x))); }},
      {"SigmoidGrad", [](double y, double dy) { return dy * y * (1 - y); }},
      {"TanhGrad", [](double y, double dy) { return dy * (1 - y * y); }},
  };
  return *cases;
}

// Relative tolerance of one rounding to `dtype` (plus float arithmetic).
double Tolerance(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE: return 1e-12;
    case DT_FLOAT: return 2e-6;
    case DT_HALF: return 4e-3;
    default: return 2e-2;  // bfloat16
  }
}

const DataType kFloatTypes[] = {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16};

// Values spread over [-8, 8], so every branch of every formula (Relu6's 6,
// Softplus's thresholds) is hit, plus exact zeros and sixes.
std::vector<double> TestValues(int64_t n, uint32_t seed) {
  std::vector<double> v = RandomValues(n, seed, -8.0, 8.0);
  v[0] = 0.0;
  v[1] = 6.0;
  v[2] = -0.0;
  return v;
}

TEST(ActivationTest, UnaryOpsMatchReference) {
  const TensorShape shape({3, 41});
  for (const UnaryCase& c : UnaryCases()) {
    for (DataType dtype : kFloatTypes) {
      SCOPED_TRACE(c.op + " " + DataTypeName(dtype));
      const Tensor x = FromDoubles(dtype, shape, TestValues(shape.num_elements(), 7));
      absl::StatusOr<Tensor> y = Execute1(c.op, {x});
      ASSERT_TRUE(y.ok()) << y.status();
      // The reference sees the input as rounded to dtype.
      std::vector<double> expected;
      for (double v : ToDoubles(x)) expected.push_back(c.ref(v));
      const double tol = Tolerance(dtype);
      const std::vector<double> got = ToDoubles(*y);
      for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], expected[i], tol * (1 + std::abs(expected[i]))) << "element " << i;
      }
    }
  }
}

TEST(ActivationTest, GradOpsMatchReference) {
  const TensorShape shape({2, 3, 17});
  const int64_t n = shape.num_elements();
  for (const BinaryCase& c : BinaryCases()) {
    for (DataType dtype : kFloatTypes) {
      SCOPED_TRACE(c.op + " " + DataTypeName(dtype));
      // Gradient ops take (gradients, features/outputs); SigmoidGrad and
      // TanhGrad take (y, dy) with y an output in (-1, 1).
      const bool y_first = c.op == "SigmoidGrad" || c.op == "TanhGrad";
      const std::vector<double> first =
          y_first ? RandomValues(n, 11, -1.0, 1.0) : RandomValues(n, 13);
      const std::vector<double> second = y_first ? RandomValues(n, 13) : TestValues(n, 11);
      const Tensor a = FromDoubles(dtype, shape, first);
      const Tensor b = FromDoubles(dtype, shape, second);
      absl::StatusOr<Tensor> z = Execute1(c.op, {a, b});
      ASSERT_TRUE(z.ok()) << z.status();
      ASSERT_EQ(z->shape(), shape);
      ASSERT_EQ(z->dtype(), dtype);
      const std::vector<double> av = ToDoubles(a), bv = ToDoubles(b), got = ToDoubles(*z);
      const double tol = Tolerance(dtype);
      for (int64_t i = 0; i < n; ++i) {
        const double want = c.ref(av[i], bv[i]);
        EXPECT_NEAR(got[i], want, tol * (1 + std::abs(want))) << "element " << i;
      }
    }
  }
}

TEST(ActivationTest, ReluKeepsNaNAndNegativeZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor x = FromDoubles(DT_FLOAT, {4}, {nan, -0.0, -1.0, 2.5});
  absl::StatusOr<Tensor> y = Execute1("Relu", {x});
  ASSERT_TRUE(y.ok()) << y.status();
  const Tensor y_host = test::ToHost(*y);
  const float* v = y_host.data<float>();
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[1], 0.0f);
  EXPECT_TRUE(std::signbit(v[1]));  // max(-0, 0) keeps the first operand.
  EXPECT_EQ(v[2], 0.0f);
  EXPECT_EQ(v[3], 2.5f);
  absl::StatusOr<Tensor> y6 = Execute1("Relu6", {x});
  ASSERT_TRUE(y6.ok());
  EXPECT_TRUE(std::isnan(test::ToHost(*y6).data<float>()[0]));
}

TEST(ActivationTest, IntegerRelu) {
  for (DataType dtype : {DT_INT32, DT_INT64}) {
    const Tensor x = FromDoubles(dtype, {5}, {-7, 0, 3, 6, 9});
    absl::StatusOr<Tensor> relu = Execute1("Relu", {x});
    absl::StatusOr<Tensor> relu6 = Execute1("Relu6", {x});
    ASSERT_TRUE(relu.ok() && relu6.ok()) << relu.status() << relu6.status();
    EXPECT_EQ(ToDoubles(*relu), (std::vector<double>{0, 0, 3, 6, 9}));
    EXPECT_EQ(ToDoubles(*relu6), (std::vector<double>{0, 0, 3, 6, 6}));
    const Tensor g = FromDoubles(dtype, {5}, {1, 2, 3, 4, 5});
    absl::StatusOr<Tensor> dx = Execute1("Relu6Grad", {g, x});
    ASSERT_TRUE(dx.ok()) << dx.status();
    EXPECT_EQ(ToDoubles(*dx), (std::vector<double>{0, 0, 3, 0, 0}));
  }
}

TEST(ActivationTest, LeakyReluAlphaAttr) {
  const Tensor x = FromDoubles(DT_DOUBLE, {4}, {-2, -0.5, 0, 3});
  // alpha > 1 must not turn into max(x, alpha * x).
  absl::StatusOr<Tensor> y = Execute1("LeakyRelu", {x}, AttrMap().Set("alpha", 2.0f));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(ToDoubles(*y), (std::vector<double>{-4, -1, 0, 3}));
  const Tensor g = FromDoubles(DT_DOUBLE, {4}, {1, 1, 1, 1});
  absl::StatusOr<Tensor> dx =
      Execute1("LeakyReluGrad", {g, x}, AttrMap().Set("alpha", -0.5f));
  ASSERT_TRUE(dx.ok()) << dx.status();
  EXPECT_EQ(ToDoubles(*dx), (std::vector<double>{-0.5, -0.5, -0.5, 1}));
}

TEST(ActivationTest, SoftplusThresholds) {
  // float: threshold = log(2^-23) + 2 ~= -13.94. Above 13.94 the result is x
  // itself, below -13.94 it is exp(x); no overflow for huge inputs.
  const Tensor x = FromDoubles(DT_FLOAT, {5}, {20, 100, -20, -100, 1000});
  absl::StatusOr<Tensor> y = Execute1("Softplus", {x});
  ASSERT_TRUE(y.ok());
  const Tensor y_host = test::ToHost(*y);
  const float* v = y_host.data<float>();
  EXPECT_EQ(v[0], 20.0f);
  EXPECT_EQ(v[1], 100.0f);
  EXPECT_EQ(v[2], std::exp(-20.0f));
  EXPECT_EQ(v[3], std::exp(-100.0f));
  EXPECT_EQ(v[4], 1000.0f);
  // Sigmoid saturates without NaN.
  absl::StatusOr<Tensor> s = Execute1("Sigmoid", {FromDoubles(DT_FLOAT, {2}, {-1000, 1000})});
  ASSERT_TRUE(s.ok());
  const Tensor s_host = test::ToHost(*s);
  EXPECT_EQ(s_host.data<float>()[0], 0.0f);
  EXPECT_EQ(s_host.data<float>()[1], 1.0f);
}

TEST(ActivationTest, EdgeShapes) {
  for (const TensorShape& shape : {TensorShape({}), TensorShape({0}), TensorShape({4, 0, 2}),
                                   TensorShape({1, 1})}) {
    SCOPED_TRACE(shape.DebugString());
    const Tensor x = FromDoubles(DT_FLOAT, shape, RandomValues(shape.num_elements(), 3));
    for (const UnaryCase& c : UnaryCases()) {
      absl::StatusOr<Tensor> y = Execute1(c.op, {x});
      ASSERT_TRUE(y.ok()) << c.op << ": " << y.status();
      EXPECT_EQ(y->shape(), shape);
      if (shape.num_elements() == 1) {
        EXPECT_NEAR(ToDoubles(*y)[0], c.ref(ToDoubles(x)[0]), 1e-6) << c.op;
      }
    }
    for (const BinaryCase& c : BinaryCases()) {
      absl::StatusOr<Tensor> z = Execute1(c.op, {x, x});
      ASSERT_TRUE(z.ok()) << c.op << ": " << z.status();
      EXPECT_EQ(z->shape(), shape);
    }
  }
}

TEST(ActivationTest, ManyElementsUseThreadsCorrectly) {
  const int64_t n = 1 << 20;
  const std::vector<double> values = RandomValues(n, 5);
  const Tensor x = FromDoubles(DT_FLOAT, {n}, values);
  absl::StatusOr<Tensor> y = Execute1("Tanh", {x});
  ASSERT_TRUE(y.ok());
  const float* in = x.data<float>();
  const Tensor y_host = test::ToHost(*y);
  const float* out = y_host.data<float>();
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i) bad += std::abs(out[i] - std::tanh(in[i])) > 1e-6f;
  EXPECT_EQ(bad, 0);
}

TEST(ActivationTest, Errors) {
  const Tensor a = FromDoubles(DT_FLOAT, {2, 3}, RandomValues(6, 1));
  const Tensor b = FromDoubles(DT_FLOAT, {3}, RandomValues(3, 2));
  test::ExpectInvalidArgument(Execute1("ReluGrad", {a, b}),
                              {"ReluGrad", "gradients and features", "[2,3]", "[3]"});
  test::ExpectInvalidArgument(Execute1("TanhGrad", {a, b}), {"TanhGrad", "y and dy"});
  test::ExpectInvalidArgument(Execute1("EluGrad", {a, b}), {"EluGrad", "outputs"});
  // Dtypes: Elu has no integer version; the two inputs must agree.
  test::ExpectInvalidArgument(Execute1("Elu", {FromDoubles(DT_INT32, {2}, {1, 2})}),
                              {"Elu", "int32"});
  test::ExpectInvalidArgument(
      Execute1("SigmoidGrad", {a, FromDoubles(DT_DOUBLE, {2, 3}, RandomValues(6, 3))}),
      {"SigmoidGrad", "float64"});
  // A bad attr type names the op and the attr.
  test::ExpectInvalidArgument(Execute1("LeakyRelu", {a}, AttrMap().Set("alpha", "x")),
                              {"LeakyRelu", "alpha"});
}

}  // namespace
}  // namespace tfd
