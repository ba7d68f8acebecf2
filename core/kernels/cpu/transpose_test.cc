// Tests of Transpose on CPU against a per-element reference: random ranks
// and permutations over several dtypes, the fast paths (2-D, NHWC <->
// NCHW, identities sharing the input buffer), edge shapes and errors.
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/nn_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FromDoubles;
using test::IndexVector;
using test::ToDoubles;

// y[i_0, ..., i_n-1] = x[j] with j[perm[k]] = i_k.
std::vector<double> Reference(const Tensor& x, const std::vector<int64_t>& perm) {
  const std::vector<double> in = ToDoubles(x);
  TensorShape out_shape;
  for (int64_t p : perm) out_shape.AddDim(x.dim(p));
  std::vector<double> out;
  test::ForEachIndex(out_shape, [&](const std::vector<int64_t>& idx) {
    std::vector<int64_t> src(idx.size());
    for (size_t k = 0; k < perm.size(); ++k) src[perm[k]] = idx[k];
    out.push_back(in[test::FlatIndex(x.shape(), src)]);
  });
  return out;
}

void CheckTranspose(const Tensor& x, const std::vector<int64_t>& perm, DataType perm_type) {
  absl::StatusOr<Tensor> y = Execute1("Transpose", {x, IndexVector(perm, perm_type)});
  ASSERT_TRUE(y.ok()) << y.status();
  TensorShape want_shape;
  for (int64_t p : perm) want_shape.AddDim(x.dim(p));
  ASSERT_EQ(y->shape(), want_shape);
  ASSERT_EQ(y->dtype(), x.dtype());
  EXPECT_EQ(ToDoubles(*y), Reference(x, perm));
}

TEST(TransposeTest, RandomPermutationsMatchReference) {
  std::mt19937 gen(1);
  std::uniform_int_distribution<int64_t> dim(1, 4);
  const DataType dtypes[] = {DT_FLOAT, DT_INT8, DT_HALF, DT_INT64, DT_BOOL, DT_DOUBLE};
  for (int trial = 0; trial < 200; ++trial) {
    const int rank = trial % 6;
    TensorShape shape;
    for (int i = 0; i < rank; ++i) shape.AddDim(dim(gen));
    std::vector<int64_t> perm(rank);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), gen);
    const DataType dtype = dtypes[trial % 6];
    std::vector<double> values = test::Iota(shape.num_elements());
    if (dtype == DT_BOOL) {
      for (double& v : values) v = static_cast<int64_t>(v) % 3 == 0;
    } else if (dtype == DT_INT8) {
      for (double& v : values) v = static_cast<int64_t>(v) % 100;
    }
    SCOPED_TRACE(shape.DebugString() + " " + DataTypeName(dtype));
    CheckTranspose(FromDoubles(dtype, shape, values), perm, trial % 2 ? DT_INT64 : DT_INT32);
  }
}

TEST(TransposeTest, FastPathsMatchReference) {
  struct Case {
    TensorShape shape;
    std::vector<int64_t> perm;
  };
  for (const Case& c : std::vector<Case>{
           {{300, 517}, {1, 0}},           // Large 2-D, ragged tiles.
           {{2, 5, 7, 3}, {0, 3, 1, 2}},   // NHWC -> NCHW.
           {{2, 3, 5, 7}, {0, 2, 3, 1}},   // NCHW -> NHWC.
           {{64, 28, 28, 32}, {0, 3, 1, 2}},
           {{1, 4, 1, 6}, {3, 1, 2, 0}},   // Size-1 dims dropped: a 2-D transpose.
           {{2, 3, 4, 5}, {2, 3, 0, 1}},   // Merged pairs: a 2-D transpose.
           {{3, 4, 5}, {2, 0, 1}},         // General strided path.
       }) {
    for (DataType dtype : {DT_FLOAT, DT_HALF, DT_UINT8, DT_DOUBLE}) {
      SCOPED_TRACE(c.shape.DebugString() + " " + DataTypeName(dtype));
      std::vector<double> values = test::Iota(c.shape.num_elements());
      if (dtype != DT_FLOAT && dtype != DT_DOUBLE) {
        for (double& v : values) v = static_cast<int64_t>(v) % 200;
      }
      CheckTranspose(FromDoubles(dtype, c.shape, values), c.perm, DT_INT32);
    }
  }
}

TEST(TransposeTest, IdentityPermutationSharesTheBuffer) {
  // On the device Transpose runs on, so that no placement copy hides the view.
  const Tensor x = test::OnCurrentDevice(FromDoubles(DT_FLOAT, {2, 1, 3}, test::Iota(6)));
  // [1,0,2] only moves a size-1 dimension: same element order.
  for (const std::vector<int64_t>& perm : {std::vector<int64_t>{0, 1, 2}, {1, 0, 2}, {0, 2, 1}}) {
    absl::StatusOr<Tensor> y = Execute1("Transpose", {x, IndexVector(perm)});
    ASSERT_TRUE(y.ok());
    EXPECT_TRUE(y->SharesBufferWith(x));
    EXPECT_EQ(ToDoubles(*y), Reference(x, perm));
  }
}

TEST(TransposeTest, EdgeShapes) {
  CheckTranspose(FromDoubles(DT_FLOAT, {}, {4}), {}, DT_INT32);
  CheckTranspose(Tensor(DT_FLOAT, {0, 3}), {1, 0}, DT_INT32);
  CheckTranspose(Tensor(DT_FLOAT, {2, 0, 3}), {2, 0, 1}, DT_INT64);
  CheckTranspose(FromDoubles(DT_FLOAT, {1}, {7}), {0}, DT_INT32);
}

TEST(TransposeTest, Errors) {
  const Tensor x = FromDoubles(DT_FLOAT, {2, 3, 4}, test::Iota(24));
  test::ExpectInvalidArgument(Execute1("Transpose", {x, IndexVector({1, 0})}),
                              {"Transpose", "vector of size 3", "size 2", "[2,3,4]"});
  test::ExpectInvalidArgument(Execute1("Transpose", {x, IndexVector({0, 3, 1})}),
                              {"Transpose", "3 is out of range [0 .. 3)", "[2,3,4]"});
  test::ExpectInvalidArgument(Execute1("Transpose", {x, IndexVector({0, 0, 1})}),
                              {"Transpose", "2 is missing from {0,0,1}"});
  test::ExpectInvalidArgument(
      Execute1("Transpose", {x, FromDoubles(DT_INT32, {3, 1}, {0, 1, 2})}),
      {"Transpose", "perm must be a vector", "[3,1]"});
  test::ExpectInvalidArgument(
      Execute1("Transpose", {x, FromDoubles(DT_FLOAT, {3}, {0, 1, 2})}),
      {"Transpose", "float32"});
}

}  // namespace
}  // namespace tfd
