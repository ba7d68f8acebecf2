// ZeroPadding2D: Keras's padding forms and defaults, values (zeros around
// the input, the input inside), output shapes with unknown dimensions,
// Keras's errors (checked against tf-keras 2.21), and the gradient.
#include "core/nn/zero_padding2d.h"

#include "core/autodiff/gradient_checker.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using Padding = std::array<std::array<int64_t, 2>, 2>;
using test::ExpectError;
using test::Values;

TEST(ZeroPadding2DTest, PaddingFormsAsKeras) {
  ClearSession();
  ZeroPadding2D defaults;
  EXPECT_EQ(defaults.name(), "zero_padding2d");
  EXPECT_EQ(defaults.padding(), (Padding{{{1, 1}, {1, 1}}}));
  EXPECT_EQ(ZeroPadding2D(2).padding(), (Padding{{{2, 2}, {2, 2}}}));
  EXPECT_EQ(ZeroPadding2D({{1}, {2}}).padding(), (Padding{{{1, 1}, {2, 2}}}));
  EXPECT_EQ(ZeroPadding2D({{3, 3}, {1, 0}}).padding(), (Padding{{{3, 3}, {1, 0}}}));
}

TEST(ZeroPadding2DTest, ShapesKeepUnknownDimensions) {
  ZeroPadding2D pad({{3, 3}, {1, 0}});
  EXPECT_EQ(*pad.ComputeOutputShape(Shape{kNone, 5, kNone, 2}), (Shape{kNone, 11, kNone, 2}));
  EXPECT_EQ(*ZeroPadding2D({{3}, {3}}).ComputeOutputShape(Shape{kNone, 224, 224, 3}),
            (Shape{kNone, 230, 230, 3}));
  ASSERT_OK(pad.Build(Shape{kNone, 4, 4, 1}));
  EXPECT_TRUE(pad.weights().empty());
}

TEST(ZeroPadding2DTest, ZerosAroundTheInput) {
  // tf-keras: ZeroPadding2D(((1, 0), (0, 2))) of arange(12).reshape(1, 2, 3, 2),
  // channel 1.
  Tensor x = test::FromDoubles(DT_FLOAT, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {1, 2, 3, 2});
  ZeroPadding2D pad({{1, 0}, {0, 2}});
  ASSERT_OK_AND_ASSIGN(Tensor y, pad.Call(x));
  ASSERT_EQ(y.shape(), TensorShape({1, 3, 5, 2}));
  const std::vector<double> v = Values(y);
  std::vector<double> channel1;
  for (size_t i = 1; i < v.size(); i += 2) channel1.push_back(v[i]);
  EXPECT_EQ(channel1, (std::vector<double>{0, 0, 0, 0, 0, 1, 3, 5, 0, 0, 7, 9, 11, 0, 0}));
  EXPECT_EQ(y.dtype(), DT_FLOAT);

  Tensor batch = test::RandomTensor(DT_FLOAT, {3, 2, 2, 4}, 5);
  ASSERT_OK_AND_ASSIGN(Tensor z, ZeroPadding2D().Call(batch));
  EXPECT_EQ(z.shape(), TensorShape({3, 4, 4, 4}));
  double inside = 0, border = 0;
  const std::vector<double> zs = Values(z), xs = Values(batch);
  for (int64_t n = 0; n < 3; ++n)
    for (int64_t h = 0; h < 4; ++h)
      for (int64_t w = 0; w < 4; ++w)
        for (int64_t c = 0; c < 4; ++c) {
          const double value = zs[((n * 4 + h) * 4 + w) * 4 + c];
          if (h == 0 || h == 3 || w == 0 || w == 3) {
            border += std::abs(value);
          } else {
            inside += std::abs(value - xs[((n * 2 + h - 1) * 2 + w - 1) * 4 + c]);
          }
        }
  EXPECT_EQ(border, 0.0);
  EXPECT_EQ(inside, 0.0);
}

TEST(ZeroPadding2DTest, ErrorsAsKeras) {
  ClearSession();
  const auto kInvalid = absl::StatusCode::kInvalidArgument;
  ExpectError(ZeroPadding2D({{1}, {2}, {3}}).Build(Shape{kNone, 4, 4, 1}), kInvalid,
              {"`padding` should have two elements. Received: (1, 2, 3)."});
  ExpectError(ZeroPadding2D({{1, 2, 3}, {1}}).Build(Shape{kNone, 4, 4, 1}), kInvalid,
              {"The `1st entry of padding` argument must be a tuple of 2 integers. Received: "
               "(1, 2, 3)"});
  ExpectError(ZeroPadding2D({{-1, 1}, {1, 1}}).Build(Shape{kNone, 4, 4, 1}), kInvalid,
              {"Received: (-1, 1) including {-1} that does not satisfy the requirement `>= 0`."});
  ExpectError(ZeroPadding2D({{1}, {-2}}).Build(Shape{kNone, 4, 4, 1}), kInvalid,
              {"The `2nd entry of padding` argument must be a tuple of 2 integers. Received: -2 "
               "including {-2}"});
  ExpectError(ZeroPadding2D(-1).Call(test::RandomTensor(DT_FLOAT, {1, 2, 2, 1}, 1)).status(),
              kInvalid, {"Layer \"zero_padding2d_", "including {-1}"});
  ClearSession();
  ExpectError(ZeroPadding2D().Call(test::RandomTensor(DT_FLOAT, {2, 3, 4}, 1)).status(), kInvalid,
              {"Input 0 of layer \"zero_padding2d\" is incompatible with the layer: expected "
               "ndim=4, found ndim=3. Full shape received: (2, 3, 4)"});
}

TEST(ZeroPadding2DTest, GradientMatchesFiniteDifferences) {
  ZeroPadding2D pad({{2, 1}, {0, 3}}, [] {
    LayerOptions options;
    options.dtype = DT_DOUBLE;
    return options;
  }());
  Tensor x = test::RandomTensor(DT_DOUBLE, {2, 3, 2, 2}, 12);
  auto f = [&](absl::Span<const Tensor> in) { return pad.Call(in[0]); };
  ASSERT_OK_AND_ASSIGN(double err, MaxGradientError(f, {x}));
  EXPECT_LT(err, 1e-8);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
