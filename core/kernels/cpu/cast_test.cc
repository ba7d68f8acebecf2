// Tests of the Cast kernel: every pair of supported dtypes round-trips
// values both can hold, C conversion rules (truncation toward zero, to bool
// is x != 0), rounding to half/bfloat16 with and without Truncate, views
// for same-dtype casts, and errors.
#include <cmath>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/math_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

absl::StatusOr<Tensor> Cast(const Tensor& x, DataType to, bool truncate = false) {
  return Execute1("Cast", {x}, AttrMap().Set("DstT", to).Set("Truncate", truncate));
}

const std::vector<DataType> kTypes = {DT_FLOAT, DT_DOUBLE, DT_HALF,  DT_BFLOAT16, DT_UINT8,
                                      DT_INT8,  DT_INT32,  DT_INT64, DT_BOOL};

TEST(CastTest, SmallIntegersSurviveEveryPair) {
  // 0..5 is exact in every dtype (bool aside, which maps them to 0/1).
  Tensor src = test::AsTensor<int32_t>({0, 1, 2, 3, 4, 5}, {2, 3});
  for (DataType from : kTypes) {
    Tensor x = *Cast(src, from);
    for (DataType to : kTypes) {
      absl::StatusOr<Tensor> y = Cast(x, to);
      ASSERT_TRUE(y.ok()) << DataTypeName(from) << "->" << DataTypeName(to) << ": "
                          << y.status();
      EXPECT_EQ(y->dtype(), to);
      EXPECT_EQ(y->shape(), TensorShape({2, 3}));
      std::vector<double> want = {0, 1, 2, 3, 4, 5};
      if (from == DT_BOOL || to == DT_BOOL) want = {0, 1, 1, 1, 1, 1};
      EXPECT_EQ(test::ToDoubles(*y), want) << DataTypeName(from) << "->" << DataTypeName(to);
    }
  }
}

TEST(CastTest, ConversionRules) {
  Tensor f = test::AsTensor<float>({2.7f, -2.7f, 0.0f, -0.5f, 100.9f}, {5});
  EXPECT_EQ(test::ToDoubles(*Cast(f, DT_INT32)), std::vector<double>({2, -2, 0, 0, 100}));
  EXPECT_EQ(test::ToDoubles(*Cast(f, DT_BOOL)), std::vector<double>({1, 1, 0, 1, 1}));
  Tensor i = test::AsTensor<int64_t>({300, -1}, {2});
  EXPECT_EQ(test::ToDoubles(*Cast(i, DT_UINT8)), std::vector<double>({44, 255}));  // Modulo 256.
  Tensor d = test::AsTensor<double>({1.0 / 3}, {1});
  EXPECT_EQ(test::ToDoubles(*Cast(d, DT_FLOAT))[0], static_cast<double>(1.0f / 3));
}

TEST(CastTest, HalfAndBfloat16RoundOrTruncate) {
  // 1 + 2^-8 + 2^-9 lies between bfloat16 neighbours 1 and 1 + 2^-7, above
  // the midpoint: rounding goes up, truncation down.
  const float v = 1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -9);
  Tensor x = test::AsTensor<float>({v, -v}, {2});
  EXPECT_EQ(test::ToDoubles(*Cast(x, DT_BFLOAT16)),
            std::vector<double>({1 + std::ldexp(1.0, -7), -1 - std::ldexp(1.0, -7)}));
  EXPECT_EQ(test::ToDoubles(*Cast(x, DT_BFLOAT16, true)), std::vector<double>({1, -1}));
  // Half has 10 mantissa bits: the same idea at 2^-11 + 2^-12.
  const float w = 1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -12);
  Tensor y = test::AsTensor<float>({w}, {1});
  EXPECT_EQ(test::ToDoubles(*Cast(y, DT_HALF))[0], 1 + std::ldexp(1.0, -10));
  EXPECT_EQ(test::ToDoubles(*Cast(y, DT_HALF, true))[0], 1.0);
  // Infinities and NaN survive truncation.
  Tensor s = test::AsTensor<float>({INFINITY, NAN}, {2});
  std::vector<double> t = test::ToDoubles(*Cast(s, DT_HALF, true));
  EXPECT_TRUE(std::isinf(t[0]));
  EXPECT_TRUE(std::isnan(t[1]));
}

TEST(CastTest, SameDtypeIsAView) {
  // The input is where Cast runs, so no placement copy hides the view.
  Tensor x = test::OnCurrentDevice(test::RandomTensor<float>({4}, 1));
  Tensor y = *Cast(x, DT_FLOAT);
  EXPECT_TRUE(y.SharesBufferWith(x));
  EXPECT_NE(y.id(), x.id());
}

TEST(CastTest, LargeInputsAndErrors) {
  Tensor x = test::RandomTensor<double>({300000}, 2, -1000, 1000);
  Tensor y = *Cast(x, DT_INT64);
  const std::vector<double> in = test::ToDoubles(x), out = test::ToDoubles(y);
  for (size_t k = 0; k < in.size(); ++k) ASSERT_EQ(out[k], std::trunc(in[k]));
  test::ExpectInvalid(Cast(x, DT_STRING), {"Cast", "DstT", "string"});
  test::ExpectInvalid(Execute1("Cast", {x}), {"Cast", "DstT"});
}

}  // namespace
}  // namespace tfd
