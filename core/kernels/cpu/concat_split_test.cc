// Tests of ConcatV2, Pack, Unpack, Split and SplitV on CPU against
// per-element references, on every axis (negative ones too), several
// dtypes, edge shapes (size-0 pieces, rank 1, batch 1), the no-copy views
// of outer-size-1 splits, and errors.
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

// `pieces` joined along `axis`, element by element, as doubles.
std::vector<double> ConcatReference(const std::vector<Tensor>& pieces, int axis,
                                    const TensorShape& out) {
  std::vector<std::vector<double>> values;
  for (const Tensor& p : pieces) values.push_back(ToDoubles(p));
  std::vector<double> v;
  test::ForEachIndex(out, [&](std::vector<int64_t> idx) {
    for (size_t k = 0; k < pieces.size(); ++k) {
      if (idx[axis] < pieces[k].dim(axis)) {
        v.push_back(values[k][test::FlatIndex(pieces[k].shape(), idx)]);
        return;
      }
      idx[axis] -= pieces[k].dim(axis);
    }
    ADD_FAILURE() << "index past the joined extent";
  });
  return v;
}

TEST(ConcatTest, EveryAxisMatchesReference) {
  for (int rank = 1; rank <= 3; ++rank) {
    for (int axis = -rank; axis < rank; ++axis) {
      const int a = axis < 0 ? axis + rank : axis;
      for (DataType dtype : {DT_FLOAT, DT_INT16, DT_DOUBLE}) {
        std::vector<Tensor> pieces;
        TensorShape out;
        double start = 0;
        for (int64_t extent : {2, 0, 3, 1}) {  // A size-0 piece in the middle.
          TensorShape s;
          for (int d = 0; d < rank; ++d) s.AddDim(d == a ? extent : d + 2);
          pieces.push_back(FromDoubles(dtype, s, test::Iota(s.num_elements(), start)));
          start += 100;
          if (out.rank() == 0) {
            out = s;
          } else {
            out.set_dim(a, out.dim(a) + extent);
          }
        }
        std::vector<Tensor> inputs = pieces;
        inputs.push_back(IndexScalar(axis, axis % 2 ? DT_INT64 : DT_INT32));
        absl::StatusOr<Tensor> y = Execute1("ConcatV2", inputs);
        ASSERT_TRUE(y.ok()) << y.status();
        ASSERT_EQ(y->shape(), out);
        EXPECT_EQ(ToDoubles(*y), ConcatReference(pieces, a, out))
            << "rank " << rank << " axis " << axis;
      }
    }
  }
}

TEST(ConcatTest, LargeRowsUseThreads) {
  const Tensor a = FromDoubles(DT_FLOAT, {512, 300}, test::Iota(512 * 300));
  const Tensor b = FromDoubles(DT_FLOAT, {512, 100}, test::Iota(512 * 100, -1e6));
  absl::StatusOr<Tensor> y = Execute1("ConcatV2", {a, b, IndexScalar(1)});
  ASSERT_TRUE(y.ok());
  EXPECT_EQ(ToDoubles(*y), ConcatReference({a, b}, 1, {512, 400}));
}

TEST(ConcatTest, Errors) {
  const Tensor a = FromDoubles(DT_FLOAT, {2, 3}, test::Iota(6));
  const Tensor b = FromDoubles(DT_FLOAT, {2, 4}, test::Iota(8));
  test::ExpectInvalidArgument(Execute1("ConcatV2", {a, b, IndexScalar(0)}),
                              {"ConcatV2", "Dimensions of inputs should match", "[2,3]", "[2,4]"});
  test::ExpectInvalidArgument(
      Execute1("ConcatV2", {a, FromDoubles(DT_FLOAT, {3}, {1, 2, 3}), IndexScalar(0)}),
      {"ConcatV2", "Ranks", "[2,3]", "[3]"});
  test::ExpectInvalidArgument(Execute1("ConcatV2", {a, b, IndexScalar(2)}),
                              {"ConcatV2", "[-2, 2)", "got 2"});
  test::ExpectInvalidArgument(
      Execute1("ConcatV2", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2), IndexScalar(0)}),
      {"ConcatV2", "Can't concatenate scalars"});
  test::ExpectInvalidArgument(Execute1("ConcatV2", {a, IndexScalar(0)}),
                              {"ConcatV2", "at least 2"});
  test::ExpectInvalidArgument(Execute1("ConcatV2", {a, a, IndexVector({0})}),
                              {"ConcatV2", "axis must be a scalar"});
  test::ExpectInvalidArgument(
      Execute1("ConcatV2", {a, FromDoubles(DT_DOUBLE, {2, 3}, test::Iota(6)), IndexScalar(0)}),
      {"ConcatV2", "float64"});
}

TEST(PackTest, EveryAxisMatchesReference) {
  const TensorShape s({2, 3});
  std::vector<Tensor> values;
  for (int i = 0; i < 4; ++i) values.push_back(FromDoubles(DT_INT32, s, test::Iota(6, 10 * i)));
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    absl::StatusOr<Tensor> y = Execute1("Pack", values, AttrMap().Set("axis", axis));
    ASSERT_TRUE(y.ok()) << y.status();
    TensorShape want = s;
    want.InsertDim(a, 4);
    ASSERT_EQ(y->shape(), want);
    // Pack = concat of the values with a 1 inserted at axis.
    std::vector<Tensor> expanded;
    for (const Tensor& v : values) {
      TensorShape e = s;
      e.InsertDim(a, 1);
      expanded.push_back(*v.Reshaped(e));
    }
    EXPECT_EQ(ToDoubles(*y), ConcatReference(expanded, a, want)) << "axis " << axis;
  }
  // Scalars stack into a vector; one value is allowed.
  absl::StatusOr<Tensor> v =
      Execute1("Pack", {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ToDoubles(*v), (std::vector<double>{1, 2}));
  v = Execute1("Pack", {Tensor(DT_FLOAT, {0, 2})}, AttrMap().Set("axis", 1));
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->shape(), TensorShape({0, 1, 2}));
}

TEST(PackTest, Errors) {
  test::ExpectInvalidArgument(
      Execute1("Pack", {Tensor(DT_FLOAT, {2}), Tensor(DT_FLOAT, {3})}),
      {"Pack", "Shapes of all inputs must match", "[2]", "[3]"});
  test::ExpectInvalidArgument(
      Execute1("Pack", {Tensor(DT_FLOAT, {2}), Tensor(DT_FLOAT, {2})}, AttrMap().Set("axis", 2)),
      {"Pack", "axis = 2 not in [-2, 2)"});
}

TEST(UnpackTest, EveryAxisInvertsPack) {
  // On the device Unpack runs on, so that no placement copy hides the views.
  const Tensor x = test::OnCurrentDevice(FromDoubles(DT_HALF, {2, 3, 4}, test::Iota(24)));
  for (int axis = -3; axis < 3; ++axis) {
    const int a = axis < 0 ? axis + 3 : axis;
    absl::StatusOr<std::vector<Tensor>> parts =
        Execute("Unpack", {x}, AttrMap().Set("num", x.dim(a)).Set("axis", axis));
    ASSERT_TRUE(parts.ok()) << parts.status();
    ASSERT_EQ(parts->size(), static_cast<size_t>(x.dim(a)));
    for (int64_t k = 0; k < x.dim(a); ++k) {
      TensorShape want = x.shape();
      want.RemoveDim(a);
      ASSERT_EQ((*parts)[k].shape(), want);
      std::vector<double> ref;
      const std::vector<double> xv = ToDoubles(x);
      test::ForEachIndex(want, [&](std::vector<int64_t> idx) {
        idx.insert(idx.begin() + a, k);
        ref.push_back(xv[test::FlatIndex(x.shape(), idx)]);
      });
      EXPECT_EQ(ToDoubles((*parts)[k]), ref) << "axis " << axis << " piece " << k;
      // Along axis 0 the pieces are views of the input.
      EXPECT_EQ((*parts)[k].SharesBufferWith(x), a == 0);
    }
  }
}

TEST(UnpackTest, Errors) {
  const Tensor x(DT_FLOAT, {2, 2});
  test::ExpectInvalidArgument(Execute("Unpack", {x}, AttrMap().Set("num", 3)),
                              {"Unpack", "axis 0 must equal 3", "[2,2]"});
  test::ExpectInvalidArgument(Execute("Unpack", {x}, AttrMap().Set("num", 2).Set("axis", 2)),
                              {"Unpack", "axis = 2 not in [-2, 2)"});
  test::ExpectInvalidArgument(Execute("Unpack", {Tensor::Scalar<float>(1)}, AttrMap().Set("num", 1)),
                              {"Unpack", "[]"});
  test::ExpectInvalidArgument(Execute("Unpack", {x}), {"Unpack", "num"});
}

// Checks that `pieces` concatenated along axis give back x.
void ExpectPiecesJoinTo(const std::vector<Tensor>& pieces, int axis, const Tensor& x) {
  EXPECT_EQ(ConcatReference(pieces, axis, x.shape()), ToDoubles(x));
}

TEST(SplitTest, EqualPieces) {
  // On the device Split runs on, so that no placement copy hides the views.
  const Tensor x = test::OnCurrentDevice(FromDoubles(DT_FLOAT, {4, 6}, test::Iota(24)));
  for (int axis : {0, 1, -1}) {
    const int a = axis < 0 ? axis + 2 : axis;
    absl::StatusOr<std::vector<Tensor>> parts =
        Execute("Split", {IndexScalar(axis), x}, AttrMap().Set("num_split", 2));
    ASSERT_TRUE(parts.ok()) << parts.status();
    ASSERT_EQ(parts->size(), 2u);
    TensorShape piece = x.shape();
    piece.set_dim(a, x.dim(a) / 2);
    EXPECT_EQ((*parts)[0].shape(), piece);
    ExpectPiecesJoinTo(*parts, a, x);
    EXPECT_EQ((*parts)[1].SharesBufferWith(x), a == 0);
  }
  // Outer size 1 along axis 1 is also contiguous: views.
  const Tensor row = test::OnCurrentDevice(FromDoubles(DT_INT64, {1, 6}, test::Iota(6)));
  absl::StatusOr<std::vector<Tensor>> parts =
      Execute("Split", {IndexScalar(1), row}, AttrMap().Set("num_split", 3));
  ASSERT_TRUE(parts.ok());
  EXPECT_TRUE((*parts)[2].SharesBufferWith(row));
  EXPECT_EQ(ToDoubles((*parts)[2]), (std::vector<double>{4, 5}));
}

TEST(SplitTest, Errors) {
  const Tensor x(DT_FLOAT, {2, 5});
  test::ExpectInvalidArgument(Execute("Split", {IndexScalar(1), x}, AttrMap().Set("num_split", 2)),
                              {"Split", "evenly divide", "size = 5", "num_split 2"});
  test::ExpectInvalidArgument(Execute("Split", {IndexScalar(2), x}, AttrMap().Set("num_split", 1)),
                              {"Split", "split_dim", "but got 2", "[2,5]"});
  test::ExpectInvalidArgument(Execute("Split", {IndexScalar(0), x}, AttrMap().Set("num_split", 0)),
                              {"Split", "num_split must be >= 1"});
}

TEST(SplitVTest, SizesWithInferredPiece) {
  const Tensor x = FromDoubles(DT_DOUBLE, {3, 7}, test::Iota(21));
  for (const std::vector<int64_t>& sizes :
       {std::vector<int64_t>{2, 0, 5}, {-1, 3, 1}, {7}, {1, 1, 1, 1, 1, 1, 1}}) {
    absl::StatusOr<std::vector<Tensor>> parts =
        Execute("SplitV", {x, IndexVector(sizes, DT_INT64), IndexScalar(-1)},
                AttrMap().Set("num_split", static_cast<int64_t>(sizes.size())));
    ASSERT_TRUE(parts.ok()) << parts.status();
    int64_t known = 0;
    for (int64_t s : sizes) known += s == -1 ? 0 : s;
    for (size_t k = 0; k < sizes.size(); ++k) {
      const int64_t want = sizes[k] == -1 ? 7 - known : sizes[k];
      EXPECT_EQ((*parts)[k].shape(), TensorShape({3, want}));
    }
    ExpectPiecesJoinTo(*parts, 1, x);
  }
  // Along axis 0 with int32 sizes.
  absl::StatusOr<std::vector<Tensor>> parts =
      Execute("SplitV", {x, IndexVector({1, 2}), IndexScalar(0)}, AttrMap().Set("num_split", 2));
  ASSERT_TRUE(parts.ok()) << parts.status();
  ExpectPiecesJoinTo(*parts, 0, x);
}

TEST(SplitVTest, Errors) {
  const Tensor x(DT_FLOAT, {6});
  auto split = [&](std::vector<int64_t> sizes) {
    return Execute("SplitV", {x, IndexVector(sizes), IndexScalar(0)},
                   AttrMap().Set("num_split", static_cast<int64_t>(sizes.size())));
  };
  test::ExpectInvalidArgument(split({-1, -1}), {"SplitV", "only be one -1"});
  test::ExpectInvalidArgument(split({2, 2}), {"SplitV", "Determined shape", "Got: 4", "[6]"});
  test::ExpectInvalidArgument(split({5, 3, -1}), {"SplitV", "Got: 8"});
  test::ExpectInvalidArgument(split({-2, 8}), {"SplitV", "size_splits[0] = -2"});
  test::ExpectInvalidArgument(
      Execute("SplitV", {x, IndexVector({6}), IndexScalar(0)}, AttrMap().Set("num_split", 2)),
      {"SplitV", "num_split is 2"});
}

}  // namespace
}  // namespace tfd
