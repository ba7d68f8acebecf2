// TFD_Coordinator: the chief's custom training loop under
// ParameterServerStrategy, over Model::PushToParameterServers,
// ScheduleTrainStep and JoinTrainSteps (core/nn/model_ps_fit.cc).
#include <memory>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "c_api/internal/guard.h"
#include "c_api/internal/ps_dataset.h"
#include "c_api/internal/tfd_structs.h"
#include "core/distribute/parameter_server_training.h"
#include "tfd/coordinator.h"

struct TFD_RemoteValue {
  std::shared_ptr<tfd::distribute::RemoteValue> value;
};

// Holds the model and its strategy (the strategy first, so that it goes
// last), as a TFD_Server does: the handle of the model may go first.
struct TFD_Coordinator {
  std::shared_ptr<tfd::distribute::Strategy> strategy;
  std::shared_ptr<tfd::nn::Model> model;
  // The compiled metrics' sums at creation (see CompiledState).
  std::shared_ptr<std::vector<double>> metric_sums;
  // The workers' iterators, released on every worker when the
  // coordinator goes (before the strategy, which outlives its members).
  tfd::distribute::PerWorkerIteratorOwner iterator;
  // The steps scheduled since the last join, whose metrics the next join
  // adds up.
  std::vector<std::shared_ptr<tfd::distribute::RemoteValue>> unjoined;
  // Set by a join: the model's values go to the ps before the next step.
  bool push_before_next_step = false;

  ~TFD_Coordinator() {
    // The steps read this process's model; let them finish first.
    for (const auto& step : unjoined) step->Fetch().IgnoreError();
  }
};

namespace tfd {
namespace capi {
namespace {

// A step's outputs: the (total, count) of the loss, then of each metric.
absl::Status CheckStepStates(const std::vector<Tensor>& states, size_t num_metrics) {
  if (states.size() != 2 * (num_metrics + 1)) {
    return absl::InternalError(
        absl::StrCat("a worker's train step returned ", states.size(), " metric states, expected ",
                     2 * (num_metrics + 1), " (total and count of the loss and of ", num_metrics,
                     " metrics); do the workers compile the model as the chief does?"));
  }
  for (const Tensor& state : states) {
    if (state.dtype() != DT_FLOAT || state.NumElements() != 1) {
      return absl::InternalError(
          "a worker's train step returned a metric state that is not a "
          "float32 scalar");
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<TFD_Coordinator*> NewCoordinator(TFD_Model* model) {
  TFD_RETURN_IF_ERROR(NotNull("TFD_NewCoordinator", model, "model"));
  if (!model->compiled.has_value()) {
    return absl::FailedPreconditionError(
        "TFD_NewCoordinator: the model must be compiled first (TFD_ModelCompile)");
  }
  // Checks the strategy, the role and the optimizer too.
  TFD_RETURN_IF_ERROR(model->model->PushToParameterServers());
  auto coordinator = std::make_unique<TFD_Coordinator>();
  coordinator->strategy = model->strategy;
  coordinator->model = model->model;
  coordinator->metric_sums = model->compiled->remote_metric_sums;
  distribute::ParameterServerTraining* ps = distribute::ParameterServerTrainingOf(*model->strategy);
  TFD_ASSIGN_OR_RETURN(const int64_t iterator, ps->CreatePerWorkerIterator(kWorkerDatasetName));
  coordinator->iterator = distribute::PerWorkerIteratorOwner(ps, iterator);
  return coordinator.release();
}

absl::StatusOr<TFD_RemoteValue*> ScheduleTrainStep(TFD_Coordinator* coordinator) {
  TFD_RETURN_IF_ERROR(NotNull("TFD_CoordinatorScheduleTrainStep", coordinator, "coordinator"));
  if (coordinator->push_before_next_step) {
    TFD_RETURN_IF_ERROR(coordinator->model->PushToParameterServers());
    coordinator->push_before_next_step = false;
  }
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<distribute::RemoteValue> step,
                       coordinator->model->ScheduleTrainStep(coordinator->iterator.id()));
  coordinator->unjoined.push_back(step);
  return new TFD_RemoteValue{std::move(step)};
}

absl::Status Join(TFD_Coordinator* coordinator) {
  TFD_RETURN_IF_ERROR(NotNull("TFD_CoordinatorJoin", coordinator, "coordinator"));
  // Whatever happens, the steps are over: the next one writes the
  // model's values first.
  coordinator->push_before_next_step = true;
  std::vector<std::shared_ptr<distribute::RemoteValue>> steps;
  steps.swap(coordinator->unjoined);
  TFD_RETURN_IF_ERROR(coordinator->model->JoinTrainSteps());
  std::vector<double>& sums = *coordinator->metric_sums;
  const size_t num_metrics = sums.size() / 2;
  for (const auto& step : steps) {
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> states, step->Fetch());
    TFD_RETURN_IF_ERROR(CheckStepStates(states, num_metrics));
    // states[0..1] are the loss's, which TFD_RemoteValueFetch reports.
    for (size_t i = 0; i < sums.size(); ++i) sums[i] += states[i + 2].flat<float>()[0];
  }
  return absl::OkStatus();
}

absl::StatusOr<float> Fetch(const TFD_RemoteValue* value) {
  TFD_RETURN_IF_ERROR(NotNull("TFD_RemoteValueFetch", value, "value"));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> states, value->value->Fetch());
  if (states.size() < 2) {
    return absl::InternalError(absl::StrCat("TFD_RemoteValueFetch: the step returned ",
                                            states.size(),
                                            " values, not the loss's total and "
                                            "count"));
  }
  TFD_RETURN_IF_ERROR(CheckStepStates({states[0], states[1]}, 0));
  const float count = states[1].flat<float>()[0];
  return count == 0 ? 0.0f : states[0].flat<float>()[0] / count;
}

}  // namespace
}  // namespace capi
}  // namespace tfd

extern "C" {

TFD_Coordinator* TFD_NewCoordinator(TFD_Model* model, TF_Status* status) {
  return tfd::capi::Guard<TFD_Coordinator*>("TFD_NewCoordinator", status, nullptr,
                                            [&] { return tfd::capi::NewCoordinator(model); });
}

void TFD_DeleteCoordinator(TFD_Coordinator* coordinator) { delete coordinator; }

TFD_RemoteValue* TFD_CoordinatorScheduleTrainStep(TFD_Coordinator* coordinator, TF_Status* status) {
  return tfd::capi::Guard<TFD_RemoteValue*>(
      "TFD_CoordinatorScheduleTrainStep", status, nullptr,
      [&] { return tfd::capi::ScheduleTrainStep(coordinator); });
}

void TFD_CoordinatorJoin(TFD_Coordinator* coordinator, TF_Status* status) {
  tfd::capi::GuardVoid("TFD_CoordinatorJoin", status, [&] { return tfd::capi::Join(coordinator); });
}

int TFD_CoordinatorDone(const TFD_Coordinator* coordinator, TF_Status* status) {
  return tfd::capi::Guard<int>("TFD_CoordinatorDone", status, 0, [&]() -> absl::StatusOr<int> {
    TFD_RETURN_IF_ERROR(tfd::capi::NotNull("TFD_CoordinatorDone", coordinator, "coordinator"));
    for (const auto& step : coordinator->unjoined) {
      if (!step->ready()) return 0;
    }
    return 1;
  });
}

float TFD_RemoteValueFetch(const TFD_RemoteValue* value, TF_Status* status) {
  return tfd::capi::Guard<float>("TFD_RemoteValueFetch", status, 0.0f,
                                 [&] { return tfd::capi::Fetch(value); });
}

void TFD_DeleteRemoteValue(TFD_RemoteValue* value) { delete value; }

}  // extern "C"
