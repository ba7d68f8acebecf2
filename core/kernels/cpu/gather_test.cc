// Tests of GatherV2, OneHot and UnsortedSegmentSum on CPU against
// per-element references: every axis, multi-dimensional indices, edge
// shapes, out-of-range indices (errors for gather and segment sum, off
// values for OneHot), batch_dims, and thread-count-independent sums.
#include <random>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/nn_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FromDoubles;
using test::IndexScalar;
using test::ToDoubles;

TEST(GatherTest, EveryAxisMatchesReference) {
  const TensorShape params_shape({3, 4, 5});
  const Tensor params = FromDoubles(DT_FLOAT, params_shape, test::Iota(60));
  const std::vector<double> pv = ToDoubles(params);
  for (const TensorShape& ishape : {TensorShape({}), TensorShape({2}), TensorShape({2, 3}),
                                    TensorShape({0})}) {
    for (int axis = -3; axis < 3; ++axis) {
      const int a = axis < 0 ? axis + 3 : axis;
      for (DataType index_type : {DT_INT32, DT_INT64}) {
        std::vector<double> idx = test::RandomValues(ishape.num_elements(), 3, 0, 3);
        for (double& i : idx) i = std::floor(i);
        const Tensor indices = FromDoubles(index_type, ishape, idx);
        absl::StatusOr<Tensor> y =
            Execute1("GatherV2", {params, indices, IndexScalar(axis, index_type)});
        ASSERT_TRUE(y.ok()) << y.status();
        TensorShape want_shape;
        for (int i = 0; i < a; ++i) want_shape.AddDim(params_shape.dim(i));
        for (int64_t d : ishape.dims()) want_shape.AddDim(d);
        for (int i = a + 1; i < 3; ++i) want_shape.AddDim(params_shape.dim(i));
        ASSERT_EQ(y->shape(), want_shape);
        std::vector<double> want;
        test::ForEachIndex(want_shape, [&](const std::vector<int64_t>& out) {
          // out = [outer..., index dims..., inner...]
          std::vector<int64_t> src(out.begin(), out.begin() + a);
          std::vector<int64_t> iidx(out.begin() + a, out.begin() + a + ishape.rank());
          src.push_back(static_cast<int64_t>(idx[test::FlatIndex(ishape, iidx)]));
          src.insert(src.end(), out.begin() + a + ishape.rank(), out.end());
          want.push_back(pv[test::FlatIndex(params_shape, src)]);
        });
        EXPECT_EQ(ToDoubles(*y), want) << ishape.DebugString() << " axis " << axis;
      }
    }
  }
}

TEST(GatherTest, OtherDtypesAndLargeGathers) {
  const int64_t rows = 5000, cols = 16;
  const Tensor params = FromDoubles(DT_HALF, {rows, cols}, std::vector<double>(rows * cols, 0.5));
  std::vector<double> idx(20000);
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<double>((i * 7919) % rows);
  const Tensor indices = FromDoubles(DT_INT64, {20000}, idx);
  absl::StatusOr<Tensor> y = Execute1("GatherV2", {params, indices, IndexScalar(0)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({20000, cols}));
  EXPECT_EQ(ToDoubles(*y), std::vector<double>(20000 * cols, 0.5));
}

TEST(GatherTest, Errors) {
  const Tensor params = FromDoubles(DT_FLOAT, {5, 2}, test::Iota(10));
  test::ExpectInvalidArgument(
      Execute1("GatherV2", {params, FromDoubles(DT_INT32, {2, 2}, {0, 1, 7, 2}), IndexScalar(0)}),
      {"GatherV2", "indices[1,0] = 7 is not in [0, 5)", "[5,2]"});
  test::ExpectInvalidArgument(
      Execute1("GatherV2", {params, FromDoubles(DT_INT64, {}, {-1}), IndexScalar(0)}),
      {"GatherV2", "indices = -1 is not in [0, 5)"});
  test::ExpectInvalidArgument(
      Execute1("GatherV2", {params, FromDoubles(DT_INT32, {1}, {0}), IndexScalar(2)}),
      {"GatherV2", "axis", "[-2, 2)", "got 2", "[5,2]"});
  test::ExpectInvalidArgument(
      Execute1("GatherV2", {Tensor::Scalar<float>(1), FromDoubles(DT_INT32, {1}, {0}),
                            IndexScalar(0)}),
      {"GatherV2", "at least 1 dimensional"});
  absl::StatusOr<Tensor> batched =
      Execute1("GatherV2", {params, FromDoubles(DT_INT32, {5, 1}, {0, 0, 0, 0, 0}), IndexScalar(1)},
               AttrMap().Set("batch_dims", 1));
  ASSERT_FALSE(batched.ok());
  EXPECT_EQ(batched.status().code(), absl::StatusCode::kUnimplemented) << batched.status();
  EXPECT_NE(std::string(batched.status().message()).find("batch_dims"), std::string::npos);
}

TEST(OneHotTest, MatchesReferenceOnEveryAxis) {
  const TensorShape ishape({2, 3});
  const std::vector<double> idx = {0, 2, -1, 1, 4, 2};  // -1 and 4 are out of range.
  const int64_t depth = 4;
  for (int axis : {-1, 0, 1, 2}) {
    for (DataType index_type : {DT_INT32, DT_INT64}) {
      const Tensor indices = FromDoubles(index_type, ishape, idx);
      absl::StatusOr<Tensor> y = Execute1(
          "OneHot",
          {indices, IndexScalar(depth), Tensor::Scalar<float>(5), Tensor::Scalar<float>(-1)},
          AttrMap().Set("axis", axis));
      ASSERT_TRUE(y.ok()) << y.status();
      const int a = axis == -1 ? 2 : axis;
      TensorShape want_shape = ishape;
      want_shape.InsertDim(a, depth);
      ASSERT_EQ(y->shape(), want_shape);
      std::vector<double> want;
      test::ForEachIndex(want_shape, [&](std::vector<int64_t> out) {
        const int64_t d = out[a];
        out.erase(out.begin() + a);
        want.push_back(idx[test::FlatIndex(ishape, out)] == d ? 5 : -1);
      });
      EXPECT_EQ(ToDoubles(*y), want) << "axis " << axis;
    }
  }
  // int8 indices (a negative one is off everywhere).
  absl::StatusOr<Tensor> i8 =
      Execute1("OneHot", {FromDoubles(DT_INT8, {3}, {1, -1, 0}), IndexScalar(2),
                          Tensor::Scalar<double>(1), Tensor::Scalar<double>(0)});
  ASSERT_TRUE(i8.ok()) << i8.status();
  EXPECT_EQ(ToDoubles(*i8), (std::vector<double>{0, 1, 0, 0, 1, 0}));
  // uint8 indices, int64 values, scalar indices, depth 0.
  absl::StatusOr<Tensor> y =
      Execute1("OneHot", {FromDoubles(DT_UINT8, {}, {2}), IndexScalar(3),
                          Tensor::Scalar<int64_t>(1), Tensor::Scalar<int64_t>(0)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(ToDoubles(*y), (std::vector<double>{0, 0, 1}));
  y = Execute1("OneHot", {FromDoubles(DT_INT64, {2}, {0, 1}), IndexScalar(0),
                          Tensor::Scalar<float>(1), Tensor::Scalar<float>(0)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->shape(), TensorShape({2, 0}));
}

TEST(OneHotTest, Errors) {
  const Tensor indices = FromDoubles(DT_INT64, {2}, {0, 1});
  const Tensor on = Tensor::Scalar<float>(1), off = Tensor::Scalar<float>(0);
  test::ExpectInvalidArgument(
      Execute1("OneHot", {indices, IndexScalar(3), on, off}, AttrMap().Set("axis", 2)),
      {"OneHot", "-1 or between [0, 2)", "received: 2"});
  test::ExpectInvalidArgument(Execute1("OneHot", {indices, IndexScalar(-1), on, off}),
                              {"OneHot", "depth must be non-negative, got: -1"});
  test::ExpectInvalidArgument(
      Execute1("OneHot", {indices, test::IndexVector({3}), on, off}),
      {"OneHot", "depth must be a scalar", "[1]"});
  test::ExpectInvalidArgument(
      Execute1("OneHot", {indices, IndexScalar(3), FromDoubles(DT_FLOAT, {2}, {1, 1}), off}),
      {"OneHot", "on_value must be a scalar", "[2]"});
}

TEST(UnsortedSegmentSumTest, MatchesReference) {
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_INT32, DT_HALF}) {
    for (DataType id_type : {DT_INT32, DT_INT64}) {
      // data [3, 2, 4] with ids [3, 2]: rows of 4 summed into 5 segments.
      const TensorShape dshape({3, 2, 4});
      const Tensor data = FromDoubles(dtype, dshape, test::Iota(24));
      const std::vector<double> ids = {4, 0, -1, 4, 2, 0};  // -1 is dropped.
      absl::StatusOr<Tensor> y =
          Execute1("UnsortedSegmentSum",
                   {data, FromDoubles(id_type, {3, 2}, ids), IndexScalar(5, id_type)});
      ASSERT_TRUE(y.ok()) << y.status();
      ASSERT_EQ(y->shape(), TensorShape({5, 4}));
      std::vector<double> want(20, 0.0);
      for (int i = 0; i < 6; ++i) {
        if (ids[i] < 0) continue;
        for (int k = 0; k < 4; ++k) want[ids[i] * 4 + k] += i * 4 + k;
      }
      EXPECT_EQ(ToDoubles(*y), want) << DataTypeName(dtype);
    }
  }
}

TEST(UnsortedSegmentSumTest, LargeSumsAreDeterministic) {
  // Many rows into few segments with wide columns: split across columns.
  const int64_t n = 4000, cols = 600;
  const Tensor data = FromDoubles(DT_FLOAT, {n, cols}, test::RandomValues(n * cols, 1));
  std::vector<double> ids(n);
  for (int64_t i = 0; i < n; ++i) ids[i] = static_cast<double>(i % 3);
  const Tensor id_tensor = FromDoubles(DT_INT32, {n}, ids);
  absl::StatusOr<Tensor> a = Execute1("UnsortedSegmentSum", {data, id_tensor, IndexScalar(3)});
  ASSERT_TRUE(a.ok()) << a.status();
  // Reference summed in the same (row) order in float.
  std::vector<float> want(3 * cols, 0.0f);
  const float* d = data.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t k = 0; k < cols; ++k) want[(i % 3) * cols + k] += d[i * cols + k];
  }
  const Tensor got = test::ToHost(*a);
  for (int64_t j = 0; j < 3 * cols; ++j) ASSERT_EQ(got.data<float>()[j], want[j]) << j;
}

TEST(UnsortedSegmentSumTest, EdgeShapesAndErrors) {
  absl::StatusOr<Tensor> y = Execute1(
      "UnsortedSegmentSum", {Tensor(DT_FLOAT, {0, 3}), Tensor(DT_INT32, {0}), IndexScalar(2)});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(ToDoubles(*y), std::vector<double>(6, 0.0));
  y = Execute1("UnsortedSegmentSum", {FromDoubles(DT_FLOAT, {2}, {1, 2}),
                                      FromDoubles(DT_INT32, {2}, {0, 0}), IndexScalar(0)});
  test::ExpectInvalidArgument(y, {"UnsortedSegmentSum", "segment_ids[0] = 0", "[0, 0)"});
  test::ExpectInvalidArgument(
      Execute1("UnsortedSegmentSum", {FromDoubles(DT_FLOAT, {3}, {1, 2, 3}),
                                      FromDoubles(DT_INT32, {3}, {0, 5, 1}), IndexScalar(4)}),
      {"UnsortedSegmentSum", "segment_ids[1] = 5 is out of range [0, 4)"});
  test::ExpectInvalidArgument(
      Execute1("UnsortedSegmentSum",
               {Tensor(DT_FLOAT, {3, 4}), Tensor(DT_INT32, {4}), IndexScalar(2)}),
      {"UnsortedSegmentSum", "does not start with", "[3,4]", "[4]"});
  test::ExpectInvalidArgument(
      Execute1("UnsortedSegmentSum",
               {Tensor(DT_FLOAT, {3}), Tensor(DT_INT32, {3}), test::IndexVector({2})}),
      {"UnsortedSegmentSum", "num_segments should be a scalar"});
}

}  // namespace
}  // namespace tfd
