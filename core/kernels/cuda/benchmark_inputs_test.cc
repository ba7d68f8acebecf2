// RandomUniformOn on the host device (the CPU kernels): the GPU benchmarks
// run the same ops on the GPU's kernels, which match the CPU's Philox
// streams.
#include "core/kernels/cuda/benchmark_inputs.h"

#include <algorithm>
#include <set>

#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(BenchmarkInputsTest, ValuesAreUniformInTheRangeAndNotZeros) {
  for (DataType dtype : {DT_FLOAT, DT_BFLOAT16, DT_HALF}) {
    SCOPED_TRACE(DataTypeName(dtype));
    absl::StatusOr<Tensor> t = RandomUniformOn(HostDevice(), dtype, {64, 128}, 1);
    ASSERT_TRUE(t.ok()) << t.status();
    EXPECT_EQ(t->dtype(), dtype);
    EXPECT_EQ(t->shape(), TensorShape({64, 128}));
    const std::vector<double> v = test::ToDoubles(*t);
    EXPECT_GE(*std::min_element(v.begin(), v.end()), -1.0);
    EXPECT_LE(*std::max_element(v.begin(), v.end()), 1.0);
    double sum = 0;
    int64_t negative = 0;
    for (double x : v) {
      sum += x;
      negative += x < 0;
    }
    // Mean near 0 and about half negative, for 8192 draws.
    EXPECT_NEAR(sum / v.size(), 0.0, 0.05);
    EXPECT_NEAR(static_cast<double>(negative) / v.size(), 0.5, 0.05);
    EXPECT_GT(std::set<double>(v.begin(), v.end()).size(), 100u);
  }
}

TEST(BenchmarkInputsTest, SeedsGiveDifferentValuesAndRangesAreHonored) {
  absl::StatusOr<Tensor> a = RandomUniformOn(HostDevice(), DT_FLOAT, {1000}, 1, 0.0f, 1.0f);
  absl::StatusOr<Tensor> b = RandomUniformOn(HostDevice(), DT_FLOAT, {1000}, 2, 0.0f, 1.0f);
  ASSERT_TRUE(a.ok() && b.ok()) << a.status() << b.status();
  EXPECT_NE(test::ToDoubles(*a), test::ToDoubles(*b));
  for (double x : test::ToDoubles(*a)) {
    ASSERT_GE(x, 0.0);
    ASSERT_LT(x, 1.0);
  }
  EXPECT_EQ(RandomUniformOn(HostDevice(), DT_FLOAT, {4}, 1, 1.0f, 1.0f).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tfd
