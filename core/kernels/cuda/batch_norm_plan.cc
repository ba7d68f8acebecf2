#include "core/kernels/cuda/batch_norm_plan.h"

#include <algorithm>

namespace tfd {
namespace cuda_kernels {
namespace {

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

}  // namespace

ChannelSumPlan MakeChannelSumPlan(int64_t channels, int64_t per_channel) {
  ChannelSumPlan p;
  p.run_length = per_channel;
  if (channels <= 0 || per_channel <= 0 || channels >= kChannelSumBlocks) return p;
  // As many runs as fill the GPU, but none shorter than kMinChannelRun.
  const int64_t wanted = CeilDiv(kChannelSumBlocks, channels);
  const int64_t most = std::max<int64_t>(1, per_channel / kMinChannelRun);
  const int64_t runs = std::min(wanted, most);
  if (runs <= 1) return p;
  p.run_length = CeilDiv(per_channel, runs);
  // Rounding the length up may leave fewer runs than asked for.
  p.runs = CeilDiv(per_channel, p.run_length);
  return p;
}

}  // namespace cuda_kernels
}  // namespace tfd
