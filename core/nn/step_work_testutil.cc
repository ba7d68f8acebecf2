#include "core/nn/step_work_testutil.h"

#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {
namespace {

// Reads the counters at each train batch's begin and end hooks.
class StepWorkRecorder final : public Callback {
 public:
  absl::Status OnTrainBatchBegin(int64_t batch, const Logs&) override {
    device_before_ = ReadDeviceCounts();
    ops_before_ = ReadOpCounts();
    return absl::OkStatus();
  }
  absl::Status OnTrainBatchEnd(int64_t batch, Logs&) override {
    StepWork work;
    work.step = batch;
    work.device = ReadDeviceCounts() - device_before_;
    work.ops = ReadOpCounts() - ops_before_;
    steps_.push_back(std::move(work));
    return absl::OkStatus();
  }
  const std::vector<StepWork>& steps() const { return steps_; }

 private:
  DeviceCounts device_before_;
  OpCounts ops_before_;
  std::vector<StepWork> steps_;
};

}  // namespace

std::string StepWork::DebugString() const {
  return absl::StrCat("step ", step, ": ", device.DebugString(), "; ops: ", ops.DebugString());
}

absl::StatusOr<std::vector<StepWork>> FitCountingStepWork(Model& model,
                                                          const data::DatasetPtr& dataset) {
  auto recorder = std::make_shared<StepWorkRecorder>();
  FitOptions options;
  options.epochs = 1;
  options.verbose = 0;
  options.callbacks = {recorder};
  ScopedOpCounting counting;
  TFD_RETURN_IF_ERROR(model.Fit(dataset, options).status());
  return recorder->steps();
}

int64_t CountOpsWithPrefix(const OpCounts& ops, const std::string& prefix) {
  int64_t n = 0;
  for (const auto& [op, count] : ops.total) {
    if (absl::StartsWith(op, prefix)) n += count;
  }
  return n;
}

}  // namespace nn
}  // namespace tfd
