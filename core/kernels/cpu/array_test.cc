// Tests of ExpandDims, Squeeze, Tile and InvertPermutation on CPU: shapes
// and values against references, views sharing the input buffer, edge
// shapes (rank 0, size 0) and errors naming the op and shapes.
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/nn_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FromDoubles;
using test::IndexScalar;
using test::IndexVector;
using test::ToDoubles;

TEST(ExpandDimsTest, InsertsAOneAndSharesTheBuffer) {
  // Where the op runs, so that no copy stands between input and view.
  const Tensor x = test::OnCurrentDevice(FromDoubles(DT_FLOAT, {2, 3}, test::Iota(6)));
  struct Case {
    int64_t dim;
    TensorShape want;
  };
  for (const Case& c : std::vector<Case>{{0, {1, 2, 3}}, {1, {2, 1, 3}}, {2, {2, 3, 1}},
                                         {-1, {2, 3, 1}}, {-3, {1, 2, 3}}}) {
    for (DataType dim_type : {DT_INT32, DT_INT64}) {
      absl::StatusOr<Tensor> y = Execute1("ExpandDims", {x, IndexScalar(c.dim, dim_type)});
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_EQ(y->shape(), c.want) << "dim " << c.dim;
      EXPECT_TRUE(y->SharesBufferWith(x));
      EXPECT_EQ(ToDoubles(*y), test::Iota(6));
    }
  }
  // A one-element vector is accepted as dim, and scalars expand to [1].
  absl::StatusOr<Tensor> y = Execute1("ExpandDims", {Tensor::Scalar<int64_t>(5), IndexVector({0})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({1}));
  y = Execute1("ExpandDims", {Tensor(DT_HALF, {0, 2}), IndexScalar(1)});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape(), TensorShape({0, 1, 2}));
}

TEST(ExpandDimsTest, Errors) {
  const Tensor x = FromDoubles(DT_FLOAT, {2}, {1, 2});
  test::ExpectInvalidArgument(Execute1("ExpandDims", {x, IndexScalar(2)}),
                              {"ExpandDims", "Tried to expand dim index 2", "1 dimensions", "[2]"});
  test::ExpectInvalidArgument(Execute1("ExpandDims", {x, IndexScalar(-3)}),
                              {"ExpandDims", "index -3"});
  test::ExpectInvalidArgument(Execute1("ExpandDims", {x, IndexVector({0, 1})}),
                              {"ExpandDims", "single value", "[2]"});
}

TEST(SqueezeTest, RemovesSizeOneDims) {
  const Tensor x = FromDoubles(DT_INT32, {1, 2, 1, 3, 1}, test::Iota(6));
  struct Case {
    std::vector<int64_t> dims;
    TensorShape want;
  };
  for (const Case& c : std::vector<Case>{{{}, {2, 3}},
                                         {{0}, {2, 1, 3, 1}},
                                         {{2, -1}, {1, 2, 3}},
                                         {{0, 2, 4}, {2, 3}}}) {
    absl::StatusOr<Tensor> y =
        Execute1("Squeeze", {x}, AttrMap().Set("squeeze_dims", c.dims));
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y->shape(), c.want);
    EXPECT_TRUE(y->SharesBufferWith(x));
    EXPECT_EQ(ToDoubles(*y), test::Iota(6));
  }
  absl::StatusOr<Tensor> y = Execute1("Squeeze", {FromDoubles(DT_FLOAT, {1, 1}, {3})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape(), TensorShape({}));
  y = Execute1("Squeeze", {Tensor(DT_FLOAT, {0, 1})});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(y->shape(), TensorShape({0}));
}

TEST(SqueezeTest, Errors) {
  const Tensor x = FromDoubles(DT_FLOAT, {1, 3}, {1, 2, 3});
  test::ExpectInvalidArgument(Execute1("Squeeze", {x}, AttrMap().Set("squeeze_dims", {1})),
                              {"Squeeze", "Can not squeeze dim[1]", "got 3", "[1,3]"});
  test::ExpectInvalidArgument(Execute1("Squeeze", {x}, AttrMap().Set("squeeze_dims", {2})),
                              {"Squeeze", "squeeze dim index 2", "2 dimensions"});
}

// out[i] = x[i mod shape] per dimension.
std::vector<double> TileReference(const Tensor& x, const std::vector<int64_t>& multiples) {
  const std::vector<double> in = ToDoubles(x);
  TensorShape out_shape;
  for (int i = 0; i < x.rank(); ++i) out_shape.AddDim(x.dim(i) * multiples[i]);
  std::vector<double> out;
  test::ForEachIndex(out_shape, [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> src(idx.size());
    for (size_t k = 0; k < idx.size(); ++k) src[k] = idx[k] % x.dim(k);
    out.push_back(in[test::FlatIndex(x.shape(), src)]);
  });
  return out;
}

TEST(TileTest, MatchesReference) {
  struct Case {
    TensorShape shape;
    std::vector<int64_t> multiples;
  };
  for (const Case& c : std::vector<Case>{{{3}, {4}},
                                         {{2, 3}, {1, 1}},
                                         {{2, 3}, {3, 2}},
                                         {{2, 1, 3}, {1, 5, 1}},
                                         {{1, 4}, {6, 1}},
                                         {{2, 2, 2}, {2, 3, 4}},
                                         {{2, 3}, {0, 2}},
                                         {{0, 3}, {4, 1}},
                                         {{}, {}}}) {
    for (DataType dtype : {DT_FLOAT, DT_INT64, DT_BFLOAT16, DT_UINT8}) {
      SCOPED_TRACE(c.shape.DebugString() + " " + DataTypeName(dtype));
      const Tensor x = FromDoubles(dtype, c.shape, test::Iota(c.shape.num_elements(), 1));
      absl::StatusOr<Tensor> y = Execute1("Tile", {x, IndexVector(c.multiples, DT_INT64)});
      ASSERT_TRUE(y.ok()) << y.status();
      TensorShape want_shape;
      for (int i = 0; i < c.shape.rank(); ++i) want_shape.AddDim(c.shape.dim(i) * c.multiples[i]);
      EXPECT_EQ(y->shape(), want_shape);
      EXPECT_EQ(ToDoubles(*y), TileReference(x, c.multiples));
    }
  }
}

TEST(TileTest, Errors) {
  const Tensor x = FromDoubles(DT_FLOAT, {2, 3}, test::Iota(6));
  test::ExpectInvalidArgument(Execute1("Tile", {x, IndexVector({1, 2, 3})}),
                              {"Tile", "vector of length 2 but got length 3", "[2,3]"});
  test::ExpectInvalidArgument(Execute1("Tile", {x, IndexVector({1, -1})}),
                              {"Tile", "multiples[1] >= 0", "-1"});
  test::ExpectInvalidArgument(Execute1("Tile", {x, IndexScalar(2)}), {"Tile", "vector"});
}

TEST(InvertPermutationTest, InvertsAndChecks) {
  for (DataType dtype : {DT_INT32, DT_INT64}) {
    absl::StatusOr<Tensor> y =
        Execute1("InvertPermutation", {FromDoubles(dtype, {5}, {3, 4, 0, 2, 1})});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_EQ(y->dtype(), dtype);
    EXPECT_EQ(ToDoubles(*y), (std::vector<double>{2, 4, 3, 0, 1}));
  }
  absl::StatusOr<Tensor> empty = Execute1("InvertPermutation", {Tensor(DT_INT32, {0})});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->shape(), TensorShape({0}));
  test::ExpectInvalidArgument(
      Execute1("InvertPermutation", {FromDoubles(DT_INT32, {3}, {0, 3, 1})}),
      {"InvertPermutation", "3 is not between 0 and 3"});
  test::ExpectInvalidArgument(
      Execute1("InvertPermutation", {FromDoubles(DT_INT32, {3}, {0, 1, 1})}),
      {"InvertPermutation", "1 is duplicated"});
  test::ExpectInvalidArgument(
      Execute1("InvertPermutation", {FromDoubles(DT_INT32, {2, 1}, {0, 1})}),
      {"InvertPermutation", "1D", "[2,1]"});
}

}  // namespace
}  // namespace tfd
