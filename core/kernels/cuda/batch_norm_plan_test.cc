// The split of the inference-mode batch-norm gradient's per-channel sums,
// checked on the host in every build: enough blocks for the GPU where the
// channels are few and long, none where they are many or short, every
// element in exactly one run, and the two passes emulated here equal a
// direct sum.
#include "core/kernels/cuda/batch_norm_plan.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace cuda_kernels {
namespace {

// Each run covers [run * run_length, min(per_channel, (run + 1) * run_length)).
void ExpectRunsCoverEachElementOnce(const ChannelSumPlan& p, int64_t per_channel) {
  ASSERT_GE(p.runs, 1);
  EXPECT_GE(p.runs * p.run_length, per_channel);
  if (per_channel > 0) EXPECT_LT((p.runs - 1) * p.run_length, per_channel) << "an empty run";
}

TEST(ChannelSumPlanTest, ResNetFirstLayerFillsTheGpu) {
  // C = 64 channels of 256 * 112 * 112 elements.
  const int64_t per_channel = int64_t{256} * 112 * 112;
  const ChannelSumPlan p = MakeChannelSumPlan(64, per_channel);
  EXPECT_EQ(p.runs, 16);
  EXPECT_EQ(p.run_length, per_channel / 16);
  EXPECT_GE(p.runs * 64, kChannelSumBlocks);
  EXPECT_EQ(p.PartialsPerQuantity(64), 16 * 64);
  ExpectRunsCoverEachElementOnce(p, per_channel);
}

TEST(ChannelSumPlanTest, ManyOrShortChannelsAreNotSplit) {
  for (auto [channels, per_channel] : std::vector<std::pair<int64_t, int64_t>>{
           {2048, 1 << 20}, {1024, 1 << 20}, {64, 2 * kMinChannelRun - 1}, {3, 100}, {1, 1}}) {
    SCOPED_TRACE(testing::Message() << channels << " x " << per_channel);
    const ChannelSumPlan p = MakeChannelSumPlan(channels, per_channel);
    EXPECT_EQ(p.runs, 1);
    EXPECT_EQ(p.run_length, per_channel);
    EXPECT_EQ(p.PartialsPerQuantity(channels), 0);
  }
}

TEST(ChannelSumPlanTest, EmptyInputs) {
  EXPECT_EQ(MakeChannelSumPlan(0, 100).runs, 1);
  const ChannelSumPlan p = MakeChannelSumPlan(8, 0);
  EXPECT_EQ(p.runs, 1);
  EXPECT_EQ(p.run_length, 0);
}

TEST(ChannelSumPlanTest, RunsAreLongAndCoverEverything) {
  for (int64_t channels : {1, 3, 16, 64, 100, 512, 1000}) {
    for (int64_t per_channel : {int64_t{1}, int64_t{8191}, int64_t{16384}, int64_t{16385},
                                int64_t{100003}, int64_t{1} << 22, int64_t{3211264}}) {
      SCOPED_TRACE(testing::Message() << channels << " x " << per_channel);
      const ChannelSumPlan p = MakeChannelSumPlan(channels, per_channel);
      ExpectRunsCoverEachElementOnce(p, per_channel);
      if (p.runs > 1) {
        EXPECT_GE(p.run_length, kMinChannelRun);
        // No more blocks than the target needs (one channel's rounding aside).
        EXPECT_LE(p.runs, (kChannelSumBlocks + channels - 1) / channels);
      }
    }
  }
}

TEST(ChannelSumPlanTest, TwoPassesEqualADirectSum) {
  // batch_norm.cu's order: partial[c * runs + run] over the run's elements,
  // then each channel's partials added. Integer values keep float sums exact.
  const int64_t channels = 5, per_channel = 70001;
  const ChannelSumPlan p = MakeChannelSumPlan(channels, per_channel);
  ASSERT_GT(p.runs, 1);
  std::vector<float> partial(p.PartialsPerQuantity(channels), 0);
  for (int64_t c = 0; c < channels; ++c) {
    for (int64_t run = 0; run < p.runs; ++run) {
      const int64_t end = std::min(per_channel, (run + 1) * p.run_length);
      for (int64_t j = run * p.run_length; j < end; ++j) {
        partial[c * p.runs + run] += static_cast<float>((j * 7 + c) % 11);
      }
    }
  }
  for (int64_t c = 0; c < channels; ++c) {
    float two_pass = 0;
    for (int64_t run = 0; run < p.runs; ++run) two_pass += partial[c * p.runs + run];
    int64_t direct = 0;
    for (int64_t j = 0; j < per_channel; ++j) direct += (j * 7 + c) % 11;
    EXPECT_EQ(two_pass, static_cast<float>(direct)) << "channel " << c;
  }
}

}  // namespace
}  // namespace cuda_kernels
}  // namespace tfd
