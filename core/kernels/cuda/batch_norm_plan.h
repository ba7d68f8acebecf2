// How batch_norm.cu splits the per-channel sums of the inference-mode
// batch-norm gradient across blocks: plain C++, so the split is built and
// tested in every build (batch_norm_plan_test).
//
// Each channel's elements (BatchNormLayout's [outer, C, inner], `outer *
// inner` of them) are summed by `runs` blocks, each over `run_length`
// consecutive elements of the channel (the last run may be shorter), into
// float partial sums; a second pass adds each channel's partials. One
// block per channel left a 132-SM GPU almost idle on ResNet-50's first
// layers (C = 64 channels of 3.2 million elements at batch 256): the split
// aims for about kChannelSumBlocks blocks in all, each run at least
// kMinChannelRun long, as the reductions' runs do (Note [Split reductions]
// in launch_plan_builders.cc). Only the order of the float additions
// changes.
//
//   ChannelSumPlan p = MakeChannelSumPlan(64, 256 * 112 * 112);
//   // p.runs == 16, p.run_length == 200704
//
// Thread-safe pure function.
#ifndef TFD_CORE_KERNELS_CUDA_BATCH_NORM_PLAN_H_
#define TFD_CORE_KERNELS_CUDA_BATCH_NORM_PLAN_H_

#include <cstdint>

namespace tfd {
namespace cuda_kernels {

constexpr int64_t kChannelSumBlocks = 1024;
constexpr int64_t kMinChannelRun = 8192;

struct ChannelSumPlan {
  int64_t runs = 1;        // blocks per channel; 1: no second pass
  int64_t run_length = 0;  // elements of one channel per block
  // The float partial sums between the passes, per summed quantity.
  int64_t PartialsPerQuantity(int64_t channels) const { return runs > 1 ? runs * channels : 0; }
};

// The split of `channels` sums of `per_channel` elements each. Both must
// be >= 0; with no elements, one run of length 0.
ChannelSumPlan MakeChannelSumPlan(int64_t channels, int64_t per_channel);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_BATCH_NORM_PLAN_H_
