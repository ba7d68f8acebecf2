// The direct loop for small products against the library path (oneDNN,
// half through float), on the same operands: shapes on both sides of
// kDirectMatMulMaxMacs, every transpose combination, batch broadcasting,
// float, half and bfloat16. linalg_test checks both, through the ops,
// against a double-precision reference.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/device/cpu/cpu_device.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/matmul_direct.h"
#include "core/kernels/cpu/matmul_launcher.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

// Stored shape of an operand that is logically [batch..., rows, cols].
TensorShape Stored(std::vector<int64_t> batch, int64_t rows, int64_t cols, bool adj) {
  batch.push_back(adj ? cols : rows);
  batch.push_back(adj ? rows : cols);
  return TensorShape(batch);
}

// Both engines agree to float rounding of a sum of k terms in [-1, 1)
// (added in different orders); half and bfloat16 outputs may differ by one
// rounding of the result.
double Tolerance(DataType dtype, int64_t k) {
  const double sum = 2e-6 * static_cast<double>(k);
  switch (dtype) {
    case DT_FLOAT: return sum;
    case DT_HALF: return sum + std::ldexp(static_cast<double>(k), -10);
    default: return sum + std::ldexp(static_cast<double>(k), -7);  // bfloat16
  }
}

Tensor Run(const Tensor& x, const Tensor& y, bool adj_x, bool adj_y, const TensorShape& out_shape,
           MatMulEngine engine) {
  Tensor out(x.dtype(), out_shape);
  const absl::Status s =
      LaunchBatchMatMul(HostDevice()->thread_pool(), x, y, adj_x, adj_y, &out, engine);
  EXPECT_TRUE(s.ok()) << s;
  return out;
}

struct Case {
  std::vector<int64_t> x_batch, y_batch, out_batch;
  int64_t m, n, k;
};

void ExpectEnginesAgree(DataType dtype, const Case& c, uint32_t* seed) {
  for (int t = 0; t < 4; ++t) {
    const bool adj_x = t & 1, adj_y = t & 2;
    const Tensor x = test::RandomUniformTensor(dtype, Stored(c.x_batch, c.m, c.k, adj_x), (*seed)++);
    const Tensor y = test::RandomUniformTensor(dtype, Stored(c.y_batch, c.k, c.n, adj_y), (*seed)++);
    const TensorShape out_shape = Stored(c.out_batch, c.m, c.n, false);
    const std::string what =
        absl::StrCat(DataTypeName(dtype), " ", x.shape().DebugString(), " x ",
                     y.shape().DebugString(), " adj ", adj_x, adj_y);
    const std::vector<double> library =
        test::ToDoubles(Run(x, y, adj_x, adj_y, out_shape, MatMulEngine::kLibrary));
    const std::vector<double> direct =
        test::ToDoubles(Run(x, y, adj_x, adj_y, out_shape, MatMulEngine::kDirect));
    const std::vector<double> chosen =
        test::ToDoubles(Run(x, y, adj_x, adj_y, out_shape, MatMulEngine::kAuto));
    ASSERT_EQ(direct.size(), library.size()) << what;
    const double tol = Tolerance(dtype, c.k);
    for (size_t i = 0; i < library.size(); ++i) {
      ASSERT_NEAR(direct[i], library[i], tol) << what << " element " << i;
      ASSERT_NEAR(chosen[i], library[i], tol) << what << " element " << i;
    }
  }
}

TEST(MatMulLauncherTest, ThresholdSplitsShapesUnderTest) {
  // The shapes below are meant to straddle the threshold (16384).
  static_assert(kDirectMatMulMaxMacs == 16384, "update the cases below");
  EXPECT_TRUE(PrefersDirectMatMul(1, {1, 1, 1, false, false}));
  EXPECT_TRUE(PrefersDirectMatMul(1, {16, 32, 32, false, false}));
  EXPECT_TRUE(PrefersDirectMatMul(4, {8, 16, 32, true, true}));
  EXPECT_FALSE(PrefersDirectMatMul(1, {17, 32, 32, false, false}));
  EXPECT_FALSE(PrefersDirectMatMul(1, {64, 64, 64, false, false}));
  EXPECT_FALSE(PrefersDirectMatMul(2, {16, 32, 32, false, false}));
  // Factors that would overflow int64 when multiplied.
  EXPECT_FALSE(PrefersDirectMatMul(int64_t{1} << 40, {1 << 20, 1 << 20, 1, false, false}));
}

TEST(MatMulLauncherTest, DirectLoopMatchesLibraryOnBothSidesOfThreshold) {
  const std::vector<Case> cases = {
      {{}, {}, {}, 1, 1, 1},          // MatMul 1x1.
      {{}, {}, {}, 1, 4, 3},          // A dense layer on one example.
      {{}, {}, {}, 3, 5, 7},
      {{}, {}, {}, 16, 32, 32},       // Exactly at the threshold.
      {{}, {}, {}, 17, 32, 32},       // Just above.
      {{}, {}, {}, 1, 128, 128},      // At it, buffers past the stack's.
      {{}, {}, {}, 16384, 1, 1},      // Long and thin, at the threshold.
      {{}, {}, {}, 1, 1, 16385},      // Long inner dimension, above.
      {{}, {}, {}, 33, 70, 9},        // Above, odd sizes.
      {{3}, {3}, {3}, 4, 5, 6},       // Batches, no broadcasting.
      {{2, 1}, {1, 3}, {2, 3}, 2, 3, 4},  // Both sides broadcast.
      {{5}, {}, {5}, 3, 2, 4},        // y shared by every batch.
      {{2}, {2}, {2}, 20, 20, 21},    // Batched, above.
  };
  uint32_t seed = 7;
  for (DataType dtype : {DT_FLOAT, DT_HALF, DT_BFLOAT16}) {
    for (const Case& c : cases) {
      ExpectEnginesAgree(dtype, c, &seed);
      if (HasFatalFailure()) return;
    }
  }
}

// The loop sums in order of the inner dimension in float, so products whose
// terms are exact give exact results; a few values to see it by hand.
TEST(MatMulLauncherTest, DirectLoopExactValues) {
  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor y = test::AsTensor<float>({1, 0, 0, 1, 1, 1}, {3, 2});
  Tensor out(DT_FLOAT, {2, 2});
  ASSERT_TRUE(LaunchBatchMatMul(HostDevice()->thread_pool(), x, y, false, false, &out,
                                MatMulEngine::kDirect)
                  .ok());
  test::ExpectTensorEqual(out, test::AsTensor<float>({4, 5, 10, 11}, {2, 2}));
  // Transposed operands: x^T is [3,2] stored as [2,3]; y^T is [2,3] stored as [3,2].
  Tensor out_t(DT_FLOAT, {3, 3});
  ASSERT_TRUE(LaunchBatchMatMul(HostDevice()->thread_pool(), x, y, true, true, &out_t,
                                MatMulEngine::kDirect)
                  .ok());
  // x^T = [[1,4],[2,5],[3,6]], y^T = [[1,0,1],[0,1,1]].
  test::ExpectTensorEqual(out_t,
                          test::AsTensor<float>({1, 4, 5, 2, 5, 7, 3, 6, 9}, {3, 3}));
}

// double has no direct loop: kDirect runs the library's Eigen path.
TEST(MatMulLauncherTest, DoubleIgnoresDirect) {
  const Tensor x = test::AsTensor<double>({1, 2}, {1, 2});
  const Tensor y = test::AsTensor<double>({3, 4}, {2, 1});
  Tensor out(DT_DOUBLE, {1, 1});
  ASSERT_TRUE(LaunchBatchMatMul(HostDevice()->thread_pool(), x, y, false, false, &out,
                                MatMulEngine::kDirect)
                  .ok());
  EXPECT_EQ(out.scalar<double>(), 11.0);
}

}  // namespace
}  // namespace tfd
