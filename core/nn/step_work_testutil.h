// StepWork: what each step of Model::Fit cost beyond its kernels -- host
// waits, copies between host and device, device allocations -- and which
// ops it dispatched, for tests that prove a training step does no
// avoidable work on an accelerator (device_counters.h, op_counts.h).
//
// A step is Keras's: from on_train_batch_begin to on_train_batch_end, so
// it holds the forward and backward passes, the optimizer update, the
// metric updates and the read of the logs Keras makes at the end of the
// step (Model::MetricLogs), but not the input pipeline's next batch.
// Counts are process-wide: run nothing else beside the Fit being counted.
//
//   TFD_ASSIGN_OR_RETURN(std::vector<StepWork> steps,
//                        FitCountingStepWork(*model, dataset));
//   EXPECT_EQ(steps[2].device.synchronizations, 0) << steps[2].DebugString();
#ifndef TFD_CORE_NN_STEP_WORK_TESTUTIL_H_
#define TFD_CORE_NN_STEP_WORK_TESTUTIL_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"
#include "core/framework/device_counters.h"
#include "core/framework/op_counts.h"
#include "core/nn/model.h"

namespace tfd {
namespace nn {

struct StepWork {
  int64_t step = 0;
  DeviceCounts device;
  OpCounts ops;

  // The step, its device counts and its ops, for test failures.
  std::string DebugString() const;
};

// Runs one epoch of `model.Fit(dataset)` (compiled; verbose 0) and returns
// the work of each step, in order. Fit's errors.
absl::StatusOr<std::vector<StepWork>> FitCountingStepWork(Model& model,
                                                          const data::DatasetPtr& dataset);

// The sum of `ops`' counts of the ops whose names start with `prefix`
// ("ResourceApply", "TfdMultiTensorApply").
int64_t CountOpsWithPrefix(const OpCounts& ops, const std::string& prefix);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_STEP_WORK_TESTUTIL_H_
