// The GPU kernels' launch plans, built and checked on the host in every
// build: broadcast kinds and strides, and reduction passes, including a
// host emulation of the passes against a direct reduction.
#include "core/kernels/cuda/launch_plan_builders.h"

#include <algorithm>
#include <numeric>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace cuda_kernels {
namespace {

BroadcastParams Plan(const TensorShape& x, const TensorShape& y, const TensorShape& out) {
  absl::StatusOr<BroadcastParams> p = MakeBroadcastParams(x, y, out);
  EXPECT_TRUE(p.ok()) << p.status();
  return p.ok() ? *p : BroadcastParams();
}

TEST(BroadcastParamsTest, FastPathsAreRecognized) {
  EXPECT_EQ(Plan({4, 5}, {4, 5}, {4, 5}).kind, BroadcastParams::kSameShape);
  EXPECT_EQ(Plan({}, {4, 5}, {4, 5}).kind, BroadcastParams::kScalarLeft);
  EXPECT_EQ(Plan({1, 1}, {4, 5}, {4, 5}).kind, BroadcastParams::kScalarLeft);
  EXPECT_EQ(Plan({4, 5}, {1}, {4, 5}).kind, BroadcastParams::kScalarRight);
  const BroadcastParams bias = Plan({6, 4, 5}, {5}, {6, 4, 5});
  EXPECT_EQ(bias.kind, BroadcastParams::kRowVector);
  EXPECT_EQ(bias.cols, 5);
  // A column vector on the right, or the row vector on the left, are general.
  EXPECT_EQ(Plan({4, 5}, {4, 1}, {4, 5}).kind, BroadcastParams::kGeneral);
  EXPECT_EQ(Plan({5}, {4, 5}, {4, 5}).kind, BroadcastParams::kGeneral);
}

TEST(BroadcastParamsTest, GeneralStridesMapEveryOutputElement) {
  const TensorShape x({2, 1, 3}), y({4, 1}), out({2, 4, 3});
  const BroadcastParams p = Plan(x, y, out);
  ASSERT_EQ(p.kind, BroadcastParams::kGeneral);
  // Walk the output as the kernel does and compare with numpy's indexing.
  int64_t flat = 0;
  for (int64_t i = 0; i < 2; ++i) {
    for (int64_t j = 0; j < 4; ++j) {
      for (int64_t k = 0; k < 3; ++k, ++flat) {
        int64_t rest = flat, xo = 0, yo = 0;
        for (int d = p.rank - 1; d >= 0; --d) {
          const int64_t idx = rest % p.dims[d];
          rest /= p.dims[d];
          xo += idx * p.x_strides[d];
          yo += idx * p.y_strides[d];
        }
        EXPECT_EQ(xo, i * 3 + k);
        EXPECT_EQ(yo, j);
      }
    }
  }
}

TEST(BroadcastParamsTest, TooManyMergedDimensionsAreUnimplemented) {
  // Alternating broadcast axes cannot merge: 9 dimensions stay 9.
  TensorShape x({2, 1, 2, 1, 2, 1, 2, 1, 2}), y({1, 2, 1, 2, 1, 2, 1, 2, 1});
  TensorShape out({2, 2, 2, 2, 2, 2, 2, 2, 2});
  absl::StatusOr<BroadcastParams> p = MakeBroadcastParams(x, y, out);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(p.status().message().find("up to 8 merged dimensions"), std::string::npos);
}

TEST(TransposeParamsTest, GatherOffsetsAreThePermutedInput) {
  const TensorShape x({2, 3, 1, 4});
  const std::vector<int64_t> perm = {3, 0, 2, 1};  // -> [4, 2, 1, 3]
  absl::StatusOr<BroadcastParams> p = MakeTransposeParams(x, perm);
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_EQ(p->rank, 3);  // the size-1 axis is dropped
  int64_t flat = 0;
  for (int64_t a = 0; a < 4; ++a)
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t c = 0; c < 3; ++c, ++flat) {
        int64_t rest = flat, off = 0;
        for (int d = p->rank - 1; d >= 0; --d) {
          off += (rest % p->dims[d]) * p->x_strides[d];
          rest /= p->dims[d];
        }
        // out[a, b, 0, c] = x[b, c, 0, a]
        EXPECT_EQ(off, (b * 3 + c) * 4 + a);
      }
}

TEST(StridedCopyParamsTest, ContiguousDimensionsMergeAndUnitOnesDrop) {
  // Rows 2..5 of [10, 8] into [4, 8]: one contiguous run of 32.
  absl::StatusOr<StridedCopyParams> rows = MakeStridedCopyParams({4, 8}, {8, 1}, {8, 1});
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->rank, 1);
  EXPECT_EQ(rows->dims[0], 32);
  // Columns 1..3 of [5, 6] into [5, 3]: not mergeable.
  absl::StatusOr<StridedCopyParams> cols = MakeStridedCopyParams({5, 1, 3}, {6, 99, 1}, {3, 3, 1});
  ASSERT_TRUE(cols.ok()) << cols.status();
  EXPECT_EQ(cols->rank, 2);
  EXPECT_EQ(cols->src_strides[0], 6);
  EXPECT_EQ(cols->dst_strides[0], 3);
  // A reversed read (negative stride) keeps its sign.
  absl::StatusOr<StridedCopyParams> rev = MakeStridedCopyParams({7}, {-1}, {1});
  ASSERT_TRUE(rev.ok());
  EXPECT_EQ(rev->src_strides[0], -1);
}

// The passes run on the host as reduction.cu runs them, runs included.
std::vector<double> ReduceByPasses(std::vector<double> v, const std::vector<ReductionPass>& ps) {
  for (const ReductionPass& p : ps) {
    EXPECT_EQ(static_cast<int64_t>(v.size()), p.outer * p.reduce * p.inner);
    const int64_t length = p.ReducedLength();
    std::vector<double> out(p.OutputElements(), 0.0);
    for (int64_t o = 0; o < p.outer; ++o)
      for (int64_t r = 0; r < p.reduce; ++r)
        for (int64_t i = 0; i < p.inner; ++i) {
          const int64_t run = p.chunk == 0 ? 0 : r / p.chunk;
          out[(o * length + run) * p.inner + i] += v[(o * p.reduce + r) * p.inner + i];
        }
    v = out;
  }
  return v;
}

// The longest stretch of the reduce axis one block (rows) or one thread
// (columns) walks in any pass.
int64_t LongestWalk(const std::vector<ReductionPass>& ps) {
  int64_t longest = 0;
  for (const ReductionPass& p : ps) longest = std::max(longest, p.chunk == 0 ? p.reduce : p.chunk);
  return longest;
}

TEST(ReductionPassesTest, PassesMatchADirectReduction) {
  const TensorShape shape({4, 5, 6});
  std::vector<double> x(120);
  std::iota(x.begin(), x.end(), 1.0);
  struct Case {
    std::vector<bool> reduced;
    size_t passes;
  } cases[] = {{{false, true, false}, 1}, {{true, false, true}, 2}, {{true, true, true}, 1},
               {{false, false, true}, 1}, {{true, false, false}, 1}, {{true, true, false}, 1}};
  for (const Case& c : cases) {
    const std::vector<ReductionPass> passes = MakeReductionPasses(shape, c.reduced);
    EXPECT_EQ(passes.size(), c.passes);
    std::vector<double> direct;
    for (int64_t i = 0; i < 4; ++i)
      for (int64_t j = 0; j < 5; ++j)
        for (int64_t k = 0; k < 6; ++k) {
          const int64_t key = (c.reduced[0] ? 0 : i) * 30 + (c.reduced[1] ? 0 : j) * 6 +
                              (c.reduced[2] ? 0 : k);
          if (direct.size() <= static_cast<size_t>(key)) direct.resize(key + 1, 0.0);
          direct[key] += x[(i * 5 + j) * 6 + k];
        }
    std::vector<double> compact;
    for (double d : direct) {
      if (d != 0) compact.push_back(d);
    }
    EXPECT_EQ(ReduceByPasses(x, passes), compact);
  }
  const std::vector<ReductionPass> two = MakeReductionPasses(shape, {true, false, true});
  EXPECT_EQ(two[0].outer, 20);
  EXPECT_EQ(two[0].reduce, 6);
  EXPECT_EQ(two[1].outer, 1);
  EXPECT_EQ(two[1].reduce, 4);
  EXPECT_EQ(two[1].inner, 5);
}

TEST(ReductionPassesTest, LongColumnsAreSplitIntoRuns) {
  // [100000, 4] over axis 0: four outputs, each a column of 100000.
  const TensorShape shape({100000, 4});
  std::vector<double> x(400000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 1000);
  const std::vector<ReductionPass> passes = MakeReductionPasses(shape, {true, false});
  ASSERT_GT(passes.size(), 1u);
  EXPECT_GT(passes[0].chunk, 0);
  EXPECT_EQ(passes.back().chunk, 0);
  EXPECT_EQ(passes.back().OutputElements(), 4);
  for (size_t k = 0; k + 1 < passes.size(); ++k) {
    EXPECT_EQ(passes[k + 1].reduce, passes[k].ReducedLength()) << k;
  }
  std::vector<double> direct(4, 0.0);
  for (size_t i = 0; i < x.size(); ++i) direct[i % 4] += x[i];
  EXPECT_EQ(ReduceByPasses(x, passes), direct);
}

TEST(ReductionPassesTest, LongRowsAreSplitIntoRuns) {
  const TensorShape shape({3, 50000});
  std::vector<double> x(150000);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<double>(i % 977);
  const std::vector<ReductionPass> rows = MakeReductionPasses(shape, {false, true});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].inner, 1);
  EXPECT_GT(rows[0].chunk, 0);
  std::vector<double> direct(3, 0.0);
  for (size_t i = 0; i < x.size(); ++i) direct[i / 50000] += x[i];
  EXPECT_EQ(ReduceByPasses(x, rows), direct);
  // A whole-tensor sum: one row.
  const std::vector<ReductionPass> all = MakeReductionPasses(TensorShape({1 << 20}), {true});
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].ReducedLength(), all[1].reduce);
  EXPECT_EQ(all[1].OutputElements(), 1);
}

TEST(ReductionPassesTest, ResNetBiasGradientKeepsEveryWalkShort) {
  // BiasAddGrad of ResNet-50's first convolution at batch 256 (NHWC):
  // 64 channels summed over 256 * 112 * 112 rows.
  const TensorShape shape({256 * 112 * 112, 64});
  const std::vector<ReductionPass> passes = MakeReductionPasses(shape, {true, false});
  EXPECT_LE(LongestWalk(passes), 4096);
  EXPECT_GE(passes[0].OutputElements(), 1 << 16);
  EXPECT_EQ(passes.back().OutputElements(), 64);
  for (size_t k = 0; k + 1 < passes.size(); ++k) {
    EXPECT_EQ(passes[k + 1].reduce, passes[k].ReducedLength()) << k;
  }
  // A Sum over all 205 million elements of a 256x112x112x64 activation.
  const TensorShape activation({256, 112, 112, 64});
  const std::vector<ReductionPass> total =
      MakeReductionPasses(activation, {true, true, true, true});
  EXPECT_LE(LongestWalk(total), 1 << 18);
  EXPECT_GE(total[0].OutputElements(), 1024);
}

TEST(ReductionPassesTest, ShortOrWideReductionsStayOnePass) {
  // Enough outputs already, or too short to be worth a second pass.
  EXPECT_EQ(MakeReductionPasses(TensorShape({512, 1000}), {false, true}).size(), 1u);
  EXPECT_EQ(MakeReductionPasses(TensorShape({64, 4096}), {true, false}).size(), 1u);
  EXPECT_EQ(MakeReductionPasses(TensorShape({256, 7, 7, 2048}), {false, true, true, false}).size(),
            1u);
}

TEST(ReductionPassesTest, SizeOneAndEmptyAxes) {
  EXPECT_TRUE(MakeReductionPasses(TensorShape({1, 7}), {true, false}).empty());
  const std::vector<ReductionPass> empty = MakeReductionPasses(TensorShape({3, 0}), {false, true});
  ASSERT_EQ(empty.size(), 1u);
  EXPECT_EQ(empty[0].outer, 3);
  EXPECT_EQ(empty[0].reduce, 0);
}

}  // namespace
}  // namespace cuda_kernels
}  // namespace tfd
