#include "core/kernels/cuda/add_n_plan.h"

#include <algorithm>

#include "core/framework/status.h"

namespace tfd {
namespace cuda_kernels {

absl::StatusOr<AddNPlan> PlanAddN(int count, int max_per_launch, bool narrow_output) {
  if (count < 1) return InvalidArgument("AddN needs at least one input, got ", count);
  if (max_per_launch < 1) {
    return InvalidArgument("AddN: inputs per launch must be >= 1, got ", max_per_launch);
  }
  AddNPlan plan;
  for (int first = 0; first < count; first += max_per_launch) {
    AddNLaunch launch;
    launch.first = first;
    launch.count = std::min(max_per_launch, count - first);
    launch.read_partial = first > 0;
    launch.write_partial = first + launch.count < count;
    plan.launches.push_back(launch);
  }
  plan.needs_scratch = narrow_output && plan.launches.size() > 1;
  return plan;
}

}  // namespace cuda_kernels
}  // namespace tfd
