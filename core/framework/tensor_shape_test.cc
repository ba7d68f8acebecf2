// TensorShape with dimensions inline up to kInlineRank and on the heap
// beyond: both storages behave the same through copies, moves, growth
// across the boundary and comparisons; dims() reads as the vector it was.
#include "core/framework/tensor_shape.h"

#include <cstdint>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using ::testing::ElementsAre;

// A shape of `rank` dimensions 1, 2, 3, ...
TensorShape Counting(int rank) {
  TensorShape s;
  for (int i = 0; i < rank; ++i) s.AddDim(i + 1);
  return s;
}

std::vector<int64_t> CountingDims(int rank) {
  std::vector<int64_t> d;
  for (int i = 0; i < rank; ++i) d.push_back(i + 1);
  return d;
}

TEST(TensorShapeTest, ScalarAndCounts) {
  const TensorShape scalar;
  EXPECT_EQ(scalar.rank(), 0);
  EXPECT_EQ(scalar.num_elements(), 1);
  EXPECT_EQ(scalar.DebugString(), "[]");
  EXPECT_TRUE(scalar.dims().empty());
  EXPECT_EQ(TensorShape({2, 3, 4}).num_elements(), 24);
  EXPECT_EQ(TensorShape({5, 0}).num_elements(), 0);
  EXPECT_EQ(TensorShape({64, 28, 28, 1}).DebugString(), "[64,28,28,1]");
}

TEST(TensorShapeTest, EveryRankAcrossTheInlineBoundary) {
  for (int rank = 0; rank <= 3 * TensorShape::kInlineRank; ++rank) {
    const TensorShape s = Counting(rank);
    ASSERT_EQ(s.rank(), rank);
    EXPECT_EQ(s.dims(), CountingDims(rank)) << rank;
    EXPECT_EQ(s, TensorShape(CountingDims(rank))) << rank;
    EXPECT_EQ(s.DebugString(), "[" + absl::StrJoin(CountingDims(rank), ",") + "]");
    int64_t product = 1;
    for (int i = 0; i < rank; ++i) {
      EXPECT_EQ(s.dim(i), i + 1);
      product *= i + 1;
    }
    EXPECT_EQ(s.num_elements(), product);
  }
}

TEST(TensorShapeTest, CopyAndMoveKeepDimensionsAndIndependence) {
  for (int rank : {0, 3, TensorShape::kInlineRank, TensorShape::kInlineRank + 1, 20}) {
    TensorShape original = Counting(rank);
    TensorShape copy = original;
    EXPECT_EQ(copy, original);
    if (rank > 0) {
      copy.set_dim(0, 99);  // The copy owns its dimensions.
      EXPECT_EQ(original.dim(0), 1);
      EXPECT_NE(copy, original);
    }
    TensorShape assigned({7});
    assigned = original;
    EXPECT_EQ(assigned, original);
    TensorShape moved = std::move(original);
    EXPECT_EQ(moved, Counting(rank));
    TensorShape move_assigned({1, 2});
    move_assigned = std::move(moved);
    EXPECT_EQ(move_assigned, Counting(rank));
    // A moved-from shape can be assigned again and used.
    original = Counting(2);
    EXPECT_EQ(original, TensorShape({1, 2}));
  }
}

TEST(TensorShapeTest, GrowsAndShrinksAcrossTheInlineBoundary) {
  TensorShape s;
  for (int i = 0; i < TensorShape::kInlineRank + 4; ++i) s.AddDim(i + 1);
  EXPECT_EQ(s, Counting(TensorShape::kInlineRank + 4));
  s.InsertDim(0, 100);
  EXPECT_EQ(s.dim(0), 100);
  EXPECT_EQ(s.dim(1), 1);
  EXPECT_EQ(s.rank(), TensorShape::kInlineRank + 5);
  s.RemoveDim(0);
  while (s.rank() > 2) s.RemoveDim(s.rank() - 1);
  EXPECT_EQ(s, TensorShape({1, 2}));
  s.InsertDim(1, 5);
  EXPECT_THAT(s.dims(), ElementsAre(1, 5, 2));
}

TEST(TensorShapeTest, EqualityComparesRankAndDimensions) {
  EXPECT_EQ(TensorShape(), TensorShape());
  EXPECT_NE(TensorShape(), TensorShape({1}));
  EXPECT_NE(TensorShape({2, 3}), TensorShape({3, 2}));
  EXPECT_NE(TensorShape({2, 3}), TensorShape({2, 3, 1}));
  // An inline shape and a heap one are never equal: ranks differ.
  EXPECT_NE(Counting(TensorShape::kInlineRank), Counting(TensorShape::kInlineRank + 1));
  // Same large shape made two ways.
  TensorShape grown = Counting(10);
  EXPECT_EQ(grown, TensorShape(CountingDims(10)));
  grown.set_dim(9, 0);
  EXPECT_NE(grown, Counting(10));
}

TEST(TensorShapeTest, DimsReadsAsAVector) {
  const TensorShape s({4, 5, 6});
  const std::vector<int64_t> copy = s.dims();
  EXPECT_EQ(copy, (std::vector<int64_t>{4, 5, 6}));
  EXPECT_TRUE(s.dims() == copy);
  EXPECT_TRUE(copy == s.dims());
  EXPECT_FALSE(s.dims() != copy);
  EXPECT_TRUE(s.dims() != (std::vector<int64_t>{4, 5}));
  EXPECT_TRUE(s.dims() == TensorShape({4, 5, 6}).dims());
  EXPECT_EQ(s.dims().size(), 3u);
  EXPECT_EQ(s.dims().back(), 6);
  const std::vector<int64_t> tail(s.dims().begin() + 1, s.dims().end());
  EXPECT_EQ(tail, (std::vector<int64_t>{5, 6}));
  absl::Span<const int64_t> span = s.dims();
  EXPECT_EQ(span.data(), s.dims().data());  // A view, not a copy.
  EXPECT_EQ(TensorShape(s.dims()), s);
}

TEST(TensorShapeTest, FromDimsValidates) {
  absl::StatusOr<TensorShape> ok = TensorShape::FromDims({2, 0, 3});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, TensorShape({2, 0, 3}));
  const std::vector<int64_t> many = CountingDims(12);
  ok = TensorShape::FromDims(many);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->dims(), many);
  absl::StatusOr<TensorShape> negative = TensorShape::FromDims({2, -1});
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(negative.status().message(), "shape dimensions must be >= 0, got [2,-1]");
  absl::StatusOr<TensorShape> huge = TensorShape::FromDims({1LL << 40, 1LL << 40});
  EXPECT_EQ(huge.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(huge.status().message(),
            "shape [1099511627776,1099511627776] has more than 2^63 elements");
}

}  // namespace
}  // namespace tfd
