// Tests of shape broadcasting, the kernels' broadcast plans (checked by
// mapping every output index through the plan and through a naive
// per-dimension rule) and BroadcastGradientAxes.
#include "core/kernels/broadcast.h"

#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace {

using Dims = std::vector<int64_t>;

TensorShape S(Dims d) { return TensorShape(std::move(d)); }

TEST(BroadcastShapesTest, NumpyRules) {
  EXPECT_EQ(*BroadcastShapes(S({2, 3}), S({3})), S({2, 3}));
  EXPECT_EQ(*BroadcastShapes(S({2, 1}), S({1, 3})), S({2, 3}));
  EXPECT_EQ(*BroadcastShapes(S({}), S({4, 5})), S({4, 5}));
  EXPECT_EQ(*BroadcastShapes(S({4, 5}), S({})), S({4, 5}));
  EXPECT_EQ(*BroadcastShapes(S({}), S({})), S({}));
  EXPECT_EQ(*BroadcastShapes(S({0, 3}), S({1, 3})), S({0, 3}));
  EXPECT_EQ(*BroadcastShapes(S({0}), S({1})), S({0}));
  EXPECT_EQ(*BroadcastShapes(S({5, 1, 4}), S({3, 1})), S({5, 3, 4}));
}

TEST(BroadcastShapesTest, IncompatibleShapesNameBoth) {
  absl::StatusOr<TensorShape> r = BroadcastShapes(S({2, 3}), S({4}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "Incompatible shapes: [2,3] vs. [4]");
  // Size 0 only broadcasts against 0 or 1.
  EXPECT_FALSE(BroadcastShapes(S({0}), S({2})).ok());
}

TEST(BroadcastShapesTest, ThreeShapes) {
  EXPECT_EQ(*BroadcastShapes({S({2, 1}), S({3}), S({})}), S({2, 3}));
  absl::StatusOr<TensorShape> r = BroadcastShapes({S({2, 1}), S({3}), S({4})});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "Incompatible shapes: [3] vs. [4]");
}

// Offset of input `in` at output index `idx`, by the textbook rule.
int64_t NaiveOffset(const TensorShape& in, const TensorShape& out, const Dims& idx) {
  const int shift = out.rank() - in.rank();
  int64_t offset = 0;
  for (int d = 0; d < in.rank(); ++d) {
    const int64_t i = in.dim(d) == 1 ? 0 : idx[d + shift];
    offset = offset * in.dim(d) + i;
  }
  return offset;
}

void ExpectPlanMatchesNaive(const std::vector<TensorShape>& inputs) {
  const TensorShape out = *BroadcastShapes(inputs);
  const BroadcastPlan plan = MakeBroadcastPlan(inputs, out);
  int64_t plan_elements = 1;
  for (int64_t d : plan.dims) plan_elements *= d;
  ASSERT_EQ(plan_elements, out.num_elements());
  Dims idx(out.rank(), 0);
  for (int64_t flat = 0; flat < out.num_elements(); ++flat) {
    // Decompose `flat` over the plan's dims and over the output's dims.
    int64_t rest = flat;
    std::vector<int64_t> plan_offset(inputs.size(), 0);
    for (int d = static_cast<int>(plan.dims.size()) - 1; d >= 0; --d) {
      const int64_t i = rest % plan.dims[d];
      rest /= plan.dims[d];
      for (size_t k = 0; k < inputs.size(); ++k) plan_offset[k] += i * plan.strides[k][d];
    }
    rest = flat;
    for (int d = out.rank() - 1; d >= 0; --d) {
      idx[d] = rest % out.dim(d);
      rest /= out.dim(d);
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
      ASSERT_EQ(plan_offset[k], NaiveOffset(inputs[k], out, idx))
          << "input " << k << " at flat index " << flat;
    }
  }
}

TEST(BroadcastPlanTest, MatchesNaiveIndexing) {
  ExpectPlanMatchesNaive({S({2, 3}), S({3})});
  ExpectPlanMatchesNaive({S({2, 1}), S({1, 3})});
  ExpectPlanMatchesNaive({S({4, 5}), S({4, 5})});
  ExpectPlanMatchesNaive({S({}), S({4, 5})});
  ExpectPlanMatchesNaive({S({2, 3, 4, 5}), S({3, 1, 5})});
  ExpectPlanMatchesNaive({S({1, 3, 1, 5}), S({2, 1, 4, 1})});
  ExpectPlanMatchesNaive({S({2, 1, 3}), S({1}), S({4, 1})});
  ExpectPlanMatchesNaive({S({1, 1}), S({1})});
}

TEST(BroadcastPlanTest, MergesDimensions) {
  // Same shapes collapse to one contiguous dimension.
  BroadcastPlan p = MakeBroadcastPlan({S({4, 5, 6}), S({4, 5, 6})}, S({4, 5, 6}));
  EXPECT_EQ(p.dims, BroadcastDims({120}));
  EXPECT_EQ(p.strides[0], BroadcastDims({1}));
  // A bias over the last axis: rows x columns.
  p = MakeBroadcastPlan({S({4, 5, 6}), S({6})}, S({4, 5, 6}));
  EXPECT_EQ(p.dims, BroadcastDims({20, 6}));
  EXPECT_EQ(p.strides[0], BroadcastDims({6, 1}));
  EXPECT_EQ(p.strides[1], BroadcastDims({0, 1}));
  // A scalar against anything.
  p = MakeBroadcastPlan({S({}), S({3, 7})}, S({3, 7}));
  EXPECT_EQ(p.dims, BroadcastDims({21}));
  EXPECT_EQ(p.strides[0], BroadcastDims({0}));
  // One element: no dims at all.
  p = MakeBroadcastPlan({S({1}), S({})}, S({1}));
  EXPECT_TRUE(p.dims.empty());
}

TEST(BroadcastGradientAxesTest, AsTensorFlow) {
  GradientReductionAxes a = *BroadcastGradientAxes(S({2, 3}), S({3}));
  EXPECT_EQ(a.r0, Dims({}));
  EXPECT_EQ(a.r1, Dims({0}));
  a = *BroadcastGradientAxes(S({2, 1}), S({1, 3}));
  EXPECT_EQ(a.r0, Dims({1}));
  EXPECT_EQ(a.r1, Dims({0}));
  a = *BroadcastGradientAxes(S({}), S({2, 3}));
  EXPECT_EQ(a.r0, Dims({0, 1}));
  EXPECT_EQ(a.r1, Dims({}));
  // Axes that are 1 everywhere are listed for both.
  a = *BroadcastGradientAxes(S({1, 2}), S({1, 1}));
  EXPECT_EQ(a.r0, Dims({0}));
  EXPECT_EQ(a.r1, Dims({0, 1}));
  a = *BroadcastGradientAxes(S({5, 1, 4}), S({3, 1}));
  EXPECT_EQ(a.r0, Dims({1}));
  EXPECT_EQ(a.r1, Dims({0, 2}));
  EXPECT_FALSE(BroadcastGradientAxes(S({2}), S({3})).ok());
}

TEST(BroadcastReductionAxesTest, AxesOfTheOutputWhereInputIsBroadcast) {
  EXPECT_EQ(BroadcastReductionAxes(S({3}), S({2, 3})), Dims({0}));
  EXPECT_EQ(BroadcastReductionAxes(S({2, 1}), S({2, 3})), Dims({1}));
  EXPECT_EQ(BroadcastReductionAxes(S({}), S({2, 3})), Dims({0, 1}));
  EXPECT_EQ(BroadcastReductionAxes(S({2, 3}), S({2, 3})), Dims({}));
  EXPECT_EQ(BroadcastReductionAxes(S({1, 1}), S({1, 4})), Dims({1}));
}

}  // namespace
}  // namespace tfd
