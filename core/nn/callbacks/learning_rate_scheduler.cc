#include "core/nn/callbacks/learning_rate_scheduler.h"

#include <cmath>

#include "core/framework/status.h"
#include "core/nn/callbacks/python_float.h"
#include "core/nn/model.h"

namespace tfd {
namespace nn {
namespace {

absl::StatusOr<Optimizer*> OptimizerOf(Model* model) {
  if (model == nullptr || model->optimizer() == nullptr) {
    return FailedPrecondition("LearningRateScheduler: the model has no optimizer (call Compile)");
  }
  return model->optimizer();
}

}  // namespace

LearningRateScheduler::LearningRateScheduler(Schedule schedule, int verbose, std::FILE* out)
    : schedule_(std::move(schedule)), verbose_(verbose), out_(out) {}

absl::Status LearningRateScheduler::OnEpochBegin(int epoch, const Logs& logs) {
  TFD_ASSIGN_OR_RETURN(Optimizer * optimizer, OptimizerOf(model()));
  TFD_ASSIGN_OR_RETURN(float current, optimizer->CurrentLearningRate());
  TFD_ASSIGN_OR_RETURN(double rate, schedule_(epoch, current));
  if (!std::isfinite(rate) || rate < 0) {
    return InvalidArgument("LearningRateScheduler: the schedule returned ", rate, " for epoch ",
                           epoch, "; a learning rate must be finite and >= 0");
  }
  TFD_RETURN_IF_ERROR(optimizer->SetLearningRate(static_cast<float>(rate)));
  if (verbose_ > 0) {
    std::fprintf(out_, "\nEpoch %d: LearningRateScheduler setting learning rate to %s.\n",
                 epoch + 1, PythonFloatRepr(rate).c_str());
  }
  return absl::OkStatus();
}

absl::Status LearningRateScheduler::OnEpochEnd(int epoch, Logs& logs) {
  TFD_ASSIGN_OR_RETURN(Optimizer * optimizer, OptimizerOf(model()));
  TFD_ASSIGN_OR_RETURN(float current, optimizer->CurrentLearningRate());
  logs.Set("lr", current);
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tfd
