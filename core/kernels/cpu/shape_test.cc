// Tests of the shape ops' kernels: Reshape (the -1 rule, views, errors),
// Identity, Shape, Size, Rank, BroadcastTo, BroadcastGradientArgs, and of
// Fill, ZerosLike, OnesLike and Range.
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/math_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::ExpectInvalid;
using test::Ints;

TEST(ReshapeTest, ViewWithInferredSize) {
  // Where the op runs, so that no copy stands between input and view.
  Tensor x = test::OnCurrentDevice(test::RandomTensor<float>({2, 3, 4}, 1));
  absl::StatusOr<Tensor> y = Execute1("Reshape", {x, Ints({4, -1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({4, 6}));
  EXPECT_TRUE(y->SharesBufferWith(x));  // No copy.
  EXPECT_NE(y->id(), x.id());           // But a value of its own.
  EXPECT_EQ(test::ToDoubles(*y), test::ToDoubles(x));
  // int64 shapes, scalars and size 0.
  Tensor shape64 = test::AsTensor<int64_t>({24}, {1});
  EXPECT_EQ(Execute1("Reshape", {x, shape64})->shape(), TensorShape({24}));
  EXPECT_EQ(Execute1("Reshape", {test::RandomTensor<float>({1, 1}, 2), Ints({})})->shape(),
            TensorShape({}));
  EXPECT_EQ(Execute1("Reshape", {Tensor(DT_FLOAT, {0, 3}), Ints({3, 0, 5})})->shape(),
            TensorShape({3, 0, 5}));
  EXPECT_EQ(Execute1("Reshape", {Tensor(DT_INT32, {4}), Ints({-1, 2})})->shape(),
            TensorShape({2, 2}));
}

TEST(ReshapeTest, Errors) {
  Tensor x(DT_FLOAT, {2, 3});
  ExpectInvalid(Execute1("Reshape", {x, Ints({4})}),
                {"Reshape", "6 values", "[2,3]", "[4]"});
  ExpectInvalid(Execute1("Reshape", {x, Ints({-1, -1})}), {"Reshape", "Only one", "-1"});
  ExpectInvalid(Execute1("Reshape", {x, Ints({-1, 4})}), {"Reshape", "multiple of 4"});
  ExpectInvalid(Execute1("Reshape", {x, Ints({-2, -3})}), {"Reshape", "non-negative"});
  ExpectInvalid(Execute1("Reshape", {Tensor(DT_FLOAT, {0}), Ints({0, -1})}),
                {"Reshape", "non-zero"});
  ExpectInvalid(Execute1("Reshape", {x, test::AsTensor<int32_t>({6}, {})}),
                {"Reshape", "1-D"});
  ExpectInvalid(Execute1("Reshape", {x, test::AsTensor<float>({6}, {1})}), {"Reshape"});
}

TEST(IdentityTest, ViewUnderNewId) {
  Tensor x = test::OnCurrentDevice(test::RandomTensor<double>({3}, 3));
  Tensor y = *Execute1("Identity", {x});
  EXPECT_TRUE(y.SharesBufferWith(x));
  EXPECT_NE(y.id(), x.id());
  test::ExpectTensorEqual(y, x);
}

TEST(ShapeSizeRankTest, Values) {
  Tensor x(DT_HALF, {2, 0, 5});
  test::ExpectTensorEqual(*Execute1("Shape", {x}), test::AsTensor<int32_t>({2, 0, 5}, {3}));
  test::ExpectTensorEqual(*Execute1("Shape", {x}, AttrMap().Set("out_type", DT_INT64)),
                          test::AsTensor<int64_t>({2, 0, 5}, {3}));
  test::ExpectTensorEqual(*Execute1("Size", {x}), test::AsTensor<int32_t>({0}, {}));
  test::ExpectTensorEqual(*Execute1("Size", {Tensor(DT_BOOL, {3, 4})}),
                          test::AsTensor<int32_t>({12}, {}));
  test::ExpectTensorEqual(*Execute1("Rank", {x}), test::AsTensor<int32_t>({3}, {}));
  test::ExpectTensorEqual(*Execute1("Shape", {Tensor::Scalar<float>(1)}),
                          test::AsTensor<int32_t>({}, {0}));
}

TEST(BroadcastToTest, MatchesNaiveBroadcast) {
  const std::vector<std::pair<TensorShape, std::vector<int32_t>>> cases = {
      {{3}, {2, 3}}, {{2, 1}, {2, 3}}, {{}, {4}}, {{1, 3, 1}, {2, 3, 5}}, {{3}, {0, 3}},
      {{2, 3}, {2, 3}}};
  for (const auto& [in_shape, target] : cases) {
    Tensor x = test::RandomTensor<float>(in_shape, 4);
    absl::StatusOr<Tensor> y = Execute1("BroadcastTo", {x, Ints(target)});
    ASSERT_TRUE(y.ok()) << y.status();
    TensorShape ts(std::vector<int64_t>(target.begin(), target.end()));
    EXPECT_EQ(y->shape(), ts);
    // x + zeros(target) by the test's own broadcast = x broadcast.
    std::vector<double> zeros(ts.num_elements(), 0.0);
    EXPECT_EQ(test::ToDoubles(*y),
              test::NaiveBinary(test::ToDoubles(x), in_shape, zeros, ts,
                                [](double a, double) { return a; }));
  }
  // Every dtype width.
  Tensor b = test::AsTensor<bool>({true, false}, {2});
  EXPECT_EQ(test::ToDoubles(*Execute1("BroadcastTo", {b, Ints({2, 2})})),
            std::vector<double>({1, 0, 1, 0}));
  Tensor h = test::AsTensor<int64_t>({7}, {1});
  EXPECT_EQ(test::ToDoubles(*Execute1("BroadcastTo", {h, Ints({3})})),
            std::vector<double>({7, 7, 7}));
}

TEST(BroadcastToTest, Errors) {
  ExpectInvalid(Execute1("BroadcastTo", {Tensor(DT_FLOAT, {2, 3}), Ints({3, 3})}),
                {"BroadcastTo", "[2,3]", "[3,3]"});
  // The target must be the broadcast result, not merely compatible.
  ExpectInvalid(Execute1("BroadcastTo", {Tensor(DT_FLOAT, {2, 3}), Ints({3})}),
                {"BroadcastTo", "[2,3]", "[3]"});
  ExpectInvalid(Execute1("BroadcastTo", {Tensor(DT_FLOAT, {3}), Ints({-1})}),
                {"BroadcastTo"});
}

TEST(BroadcastGradientArgsTest, AsTensorFlow) {
  absl::StatusOr<std::vector<Tensor>> r =
      Execute("BroadcastGradientArgs", {Ints({2, 3}), Ints({3})});
  ASSERT_TRUE(r.ok()) << r.status();
  test::ExpectTensorEqual((*r)[0], test::AsTensor<int32_t>({}, {0}));
  test::ExpectTensorEqual((*r)[1], test::AsTensor<int32_t>({0}, {1}));
  r = Execute("BroadcastGradientArgs",
              {test::AsTensor<int64_t>({2, 1}, {2}), test::AsTensor<int64_t>({1, 3}, {2})});
  ASSERT_TRUE(r.ok()) << r.status();
  test::ExpectTensorEqual((*r)[0], test::AsTensor<int64_t>({1}, {1}));
  test::ExpectTensorEqual((*r)[1], test::AsTensor<int64_t>({0}, {1}));
  ExpectInvalid(Execute("BroadcastGradientArgs", {Ints({2, 3}), Ints({4})}),
                {"BroadcastGradientArgs", "Incompatible shapes: [2,3] vs. [4]"});
}

TEST(FillTest, FillsEveryDtype) {
  Tensor f = *Execute1("Fill", {Ints({2, 3}), Tensor::Scalar<float>(2.5f)});
  EXPECT_EQ(f.shape(), TensorShape({2, 3}));
  EXPECT_EQ(test::ToDoubles(f), std::vector<double>(6, 2.5));
  Tensor h = *Execute1("Fill", {Ints({3}), Tensor::Scalar<half>(half(-1.5f))});
  EXPECT_EQ(test::ToDoubles(h), std::vector<double>(3, -1.5));
  Tensor b = *Execute1("Fill", {test::AsTensor<int64_t>({2, 0}, {2}), Tensor::Scalar<bool>(true)});
  EXPECT_EQ(b.shape(), TensorShape({2, 0}));
  ExpectInvalid(Execute1("Fill", {Ints({2}), test::AsTensor<float>({1, 2}, {2})}),
                {"Fill", "scalar", "[2]"});
  ExpectInvalid(Execute1("Fill", {Ints({2, -1}), Tensor::Scalar<float>(0)}), {"Fill"});
}

TEST(ZerosOnesLikeTest, Values) {
  Tensor x = test::RandomTensor<bfloat16>({4, 5}, 5);
  Tensor z = *Execute1("ZerosLike", {x});
  Tensor o = *Execute1("OnesLike", {x});
  EXPECT_EQ(z.dtype(), DT_BFLOAT16);
  EXPECT_EQ(test::ToDoubles(z), std::vector<double>(20, 0.0));
  EXPECT_EQ(test::ToDoubles(o), std::vector<double>(20, 1.0));
  EXPECT_EQ(test::ToDoubles(*Execute1("OnesLike", {Tensor(DT_BOOL, {2})})),
            std::vector<double>(2, 1.0));
  EXPECT_EQ(test::ToDoubles(*Execute1("ZerosLike", {Tensor(DT_INT64, {3})})),
            std::vector<double>(3, 0.0));
}

TEST(RangeTest, IntegerAndFloatRanges) {
  auto range = [](auto s, auto l, auto d) {
    using T = decltype(s);
    return Execute1("Range", {Tensor::Scalar<T>(s), Tensor::Scalar<T>(l), Tensor::Scalar<T>(d)});
  };
  EXPECT_EQ(test::ToDoubles(*range(int32_t{0}, int32_t{5}, int32_t{1})),
            std::vector<double>({0, 1, 2, 3, 4}));
  EXPECT_EQ(test::ToDoubles(*range(int32_t{10}, int32_t{1}, int32_t{-3})),
            std::vector<double>({10, 7, 4}));
  EXPECT_EQ(test::ToDoubles(*range(int64_t{3}, int64_t{3}, int64_t{1})), std::vector<double>());
  EXPECT_EQ(test::ToDoubles(*range(0.0f, 1.0f, 0.25f)),
            std::vector<double>({0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(test::ToDoubles(*range(1.0, 2.0, 0.3)).size(), 4u);  // ceil(1/0.3)
  ExpectInvalid(range(int32_t{0}, int32_t{5}, int32_t{0}), {"Range", "delta != 0"});
  ExpectInvalid(range(int32_t{5}, int32_t{0}, int32_t{1}), {"Range", "start <= limit"});
  ExpectInvalid(range(0.0f, 5.0f, -1.0f), {"Range", "start >= limit"});
}

}  // namespace
}  // namespace tfd
