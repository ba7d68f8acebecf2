#include "core/kernels/cuda/add_n_plan.h"

#include <random>
#include <vector>

#include "core/framework/float16.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cuda_kernels {
namespace {

TEST(AddNPlanTest, FewInputsTakeOneLaunchAndNoScratch) {
  for (int count : {1, 2, 16}) {
    absl::StatusOr<AddNPlan> plan = PlanAddN(count, 16, /*narrow_output=*/true);
    ASSERT_TRUE(plan.ok()) << plan.status();
    ASSERT_EQ(plan->launches.size(), 1u) << count;
    EXPECT_EQ(plan->launches[0].first, 0);
    EXPECT_EQ(plan->launches[0].count, count);
    EXPECT_FALSE(plan->launches[0].read_partial);
    EXPECT_FALSE(plan->launches[0].write_partial);
    EXPECT_FALSE(plan->needs_scratch);
  }
}

TEST(AddNPlanTest, ManyInputsChainThroughThePartialSum) {
  absl::StatusOr<AddNPlan> plan = PlanAddN(40, 16, /*narrow_output=*/true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  ASSERT_EQ(plan->launches.size(), 3u);
  EXPECT_TRUE(plan->needs_scratch);
  const int firsts[] = {0, 16, 32}, counts[] = {16, 16, 8};
  for (int i = 0; i < 3; ++i) {
    const AddNLaunch& l = plan->launches[i];
    EXPECT_EQ(l.first, firsts[i]);
    EXPECT_EQ(l.count, counts[i]);
    EXPECT_EQ(l.read_partial, i > 0) << i;
    EXPECT_EQ(l.write_partial, i < 2) << i;
  }
}

TEST(AddNPlanTest, WideOutputsKeepThePartialSumInTheOutput) {
  absl::StatusOr<AddNPlan> plan = PlanAddN(33, 16, /*narrow_output=*/false);
  ASSERT_TRUE(plan.ok()) << plan.status();
  EXPECT_EQ(plan->launches.size(), 3u);
  EXPECT_FALSE(plan->needs_scratch);
}

TEST(AddNPlanTest, RejectsBadCounts) {
  EXPECT_EQ(PlanAddN(0, 16, true).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(PlanAddN(3, 0, true).status().code(), absl::StatusCode::kInvalidArgument);
}

// Runs `plan` on the host as the kernel runs it per element: the partial
// sum in float, the output in bfloat16, written by the last launch only.
bfloat16 RunPlan(const AddNPlan& plan, const std::vector<bfloat16>& inputs) {
  float partial = 0;
  bfloat16 out(0.0f);
  for (const AddNLaunch& l : plan.launches) {
    float acc = l.read_partial ? partial : 0.0f;
    for (int k = l.first; k < l.first + l.count; ++k) acc += static_cast<float>(inputs[k]);
    if (l.write_partial) {
      partial = acc;
    } else {
      out = bfloat16(acc);
    }
  }
  return out;
}

TEST(AddNPlanTest, FortyBfloat16InputsRoundOnce) {
  absl::StatusOr<AddNPlan> plan = PlanAddN(40, 16, /*narrow_output=*/true);
  ASSERT_TRUE(plan.ok()) << plan.status();
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  int differs_from_per_launch_rounding = 0;
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<bfloat16> inputs;
    float reference = 0;  // One float accumulation, rounded once.
    for (int i = 0; i < 40; ++i) {
      inputs.push_back(bfloat16(u(rng)));
      reference += static_cast<float>(inputs.back());
    }
    EXPECT_EQ(static_cast<float>(RunPlan(*plan, inputs)), static_cast<float>(bfloat16(reference)))
        << "trial " << trial;
    // What rounding the partial sum to bfloat16 between launches gives.
    float rounded = 0;
    for (const AddNLaunch& l : plan->launches) {
      float acc = rounded;
      for (int k = l.first; k < l.first + l.count; ++k) acc += static_cast<float>(inputs[k]);
      rounded = static_cast<float>(bfloat16(acc));
    }
    if (rounded != static_cast<float>(bfloat16(reference))) ++differs_from_per_launch_rounding;
  }
  // The test data is one where rounding per launch would show.
  EXPECT_GT(differs_from_per_launch_rounding, 0);
}

}  // namespace
}  // namespace cuda_kernels
}  // namespace tfd
