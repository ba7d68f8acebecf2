// Which variable updates of one optimizer step run as multi-tensor ops
// (core/kernels/multi_tensor_training_ops.cc) and which one by one: plain
// C++ over a description of the updates, tested on any machine.
//
// The rule: updates of variables on a GPU are grouped by (device, dtype),
// in the order they come, into groups of at most kMaxVariablesPerGroup --
// the table one kernel launch takes -- when the optimizer has a grouped
// form for that dtype and the device has its kernel. Everything else
// (host variables, dtypes or optimizers without a grouped form) is updated
// one by one, exactly as before: the CPU path does not change.
//
//   std::vector<UpdateTarget> targets = ...;  // one per variable component
//   MultiTensorPlan plan = PlanMultiTensorUpdates(targets, can_group);
//   for (const UpdateGroup& g : plan.groups) ...  // one op each
//   for (int i : plan.singles) ...                // one op each, as before
#ifndef TFD_CORE_NN_MULTI_TENSOR_UPDATE_PLAN_H_
#define TFD_CORE_NN_MULTI_TENSOR_UPDATE_PLAN_H_

#include <functional>
#include <vector>

#include "core/framework/device.h"
#include "core/framework/types.h"

namespace tfd {
namespace nn {

// The variables one launch of the GPU update kernels takes
// (cuda_kernels::kMaxTensorsPerLaunch).
inline constexpr int kMaxVariablesPerGroup = 512;

// One variable component to update.
struct UpdateTarget {
  DataType dtype = DT_INVALID;
  const Device* device = nullptr;
};

struct UpdateGroup {
  DataType dtype = DT_INVALID;
  const Device* device = nullptr;
  std::vector<int> members;  // Indices into the targets, ascending.
};

struct MultiTensorPlan {
  std::vector<UpdateGroup> groups;
  std::vector<int> singles;  // Indices into the targets, ascending.
};

// The rule above. `can_group(device, dtype)` says whether a grouped op
// exists for that dtype and has a kernel on that device; it is asked only
// for GPU devices.
MultiTensorPlan PlanMultiTensorUpdates(
    const std::vector<UpdateTarget>& targets,
    const std::function<bool(const Device*, DataType)>& can_group);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_MULTI_TENSOR_UPDATE_PLAN_H_
