// Model::Evaluate under ParameterServerStrategy: the chief's loop that
// schedules test steps on the workers, also Fit's validation.
//
// Note [Evaluate on parameter servers]
// As tf-keras's evaluate with a ClusterCoordinator (pss_evaluation_shards
// left at 0, its default):
//   - each evaluation makes a fresh iterator on every worker over the
//     dataset the worker builds from the creator, so every evaluation
//     starts from the start of the workers' data, and releases it on
//     every worker when it is done (as TensorFlow frees the per-worker
//     iterator with its last reference), so a long job's evaluations do
//     not pile up iterators on the workers;
//   - it schedules one "test_step" closure per execution of
//     steps_per_execution batches (fewer for the last of `steps`) reading
//     that iterator, as Fit schedules its train steps: the worker runs the
//     batches one after another with the values on the ps tasks
//     (training=false) and returns their (total, count) of the loss and of
//     each metric, which the chief adds up (Keras keeps these metrics on
//     the ps and reads them after the join: the same sums). The test-batch
//     callbacks fire once per execution, at its first and last step, as
//     Keras's do;
//   - with steps it runs that many; without, it schedules until a step
//     finds its worker's dataset exhausted (Keras's catch_stop_iteration
//     on the OutOfRangeError the coordinator raises). Steps already
//     running then still count, as they do on Keras's ps-side metrics, and
//     so do the batches an execution ran before its worker's data ended; a
//     step cancelled because of the error does not. The coordinator
//     reports the OUT_OF_RANGE once (Join), so training goes on after;
//   - with steps, data that runs out early ends the evaluation with what
//     ran and a warning, as Keras's "Your input ran out of data".
// Which worker reads which batch depends on timing, as in TensorFlow: a
// worker that is free more often reads more of its own data.
#include <deque>
#include <iostream>
#include <utility>

#include "core/framework/status.h"
#include "core/nn/model.h"
#include "core/nn/remote_step_states.h"
#include "core/nn/step_executions.h"

namespace tfd {
namespace nn {

absl::StatusOr<Logs> Model::EvaluateOnWorkers(distribute::ParameterServerTraining& ps,
                                              const std::string& dataset,
                                              std::optional<int64_t> steps, Callback& callbacks) {
  TFD_ASSIGN_OR_RETURN(const int64_t iterator_id, ps.CreatePerWorkerIterator(dataset));
  // Released on every worker when the evaluation is done, however it
  // ends: each evaluation makes a fresh one.
  const distribute::PerWorkerIteratorOwner iterator(&ps, iterator_id);
  TFD_RETURN_IF_ERROR(callbacks.OnTestBegin(Logs()));
  RemoteStepStates states(metrics_names());
  Logs logs;
  // The first failed step's error; after it nothing more is scheduled.
  absl::Status failed;
  // Batches of the executions fetched so far, as scheduled (an
  // execution cut short by the end of the data counts in full).
  int64_t batches_done = 0;
  // Each execution's batch count, last step and RemoteValue.
  struct Execution {
    int64_t batches;
    int64_t end_step;
    std::shared_ptr<distribute::RemoteValue> value;
  };
  std::deque<Execution> in_flight;
  auto finish_oldest = [&]() -> absl::Status {
    Execution execution = std::move(in_flight.front());
    in_flight.pop_front();
    absl::StatusOr<std::vector<Tensor>> outputs = execution.value->Fetch();
    if (!outputs.ok()) {
      if (failed.ok()) failed = outputs.status();
      return absl::OkStatus();
    }
    TFD_RETURN_IF_ERROR(states.Add(*outputs));
    batches_done += execution.batches;
    logs = states.ToLogs();
    return callbacks.OnTestBatchEnd(execution.end_step, logs);
  };
  // One closure per execution of steps_per_execution batches (fewer for
  // the last of `steps`), as Fit schedules its train steps (Note [Fit on
  // parameter servers]); the callbacks see executions, as Keras's do.
  for (int64_t step = 0; !steps || step < *steps;) {
    const size_t window = 2 * static_cast<size_t>(std::max(1, ps.num_live_workers()));
    while (failed.ok() && in_flight.size() >= window) TFD_RETURN_IF_ERROR(finish_oldest());
    if (!failed.ok()) break;
    const int64_t batches = ExecutionSize(steps_per_execution_, steps, step);
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> arguments, ExecutionArguments({batches, {}}));
    TFD_RETURN_IF_ERROR(callbacks.OnTestBatchBegin(step, Logs()));
    in_flight.push_back({batches, step + batches - 1,
                         ps.Schedule(kRemoteTestStep, iterator.id(), std::move(arguments))});
    step += batches;
  }
  while (!in_flight.empty()) TFD_RETURN_IF_ERROR(finish_oldest());
  // The step that failed first says why (later ones were cancelled); an
  // exhausted dataset only ends the evaluation.
  absl::Status first = ps.Join();
  if (first.ok()) first = failed;
  if (!first.ok() && !absl::IsOutOfRange(first)) return first;
  if (!first.ok() && steps) {
    std::cerr << "Evaluate: a worker's input ran out of data after at most " << batches_done
              << " of " << *steps << " batches; make sure its dataset yields them all\n";
  }
  if (states.steps() == 0) {
    return InvalidArgument("Evaluate: the workers' datasets \"", dataset, "\" yielded no batches");
  }
  TFD_RETURN_IF_ERROR(callbacks.OnTestEnd(logs));
  return logs;
}

absl::StatusOr<Logs> Model::Evaluate(const DatasetCreator& creator, EvaluateOptions options) {
  if (distribute::CurrentReplicaContext() != nullptr) {
    return FailedPrecondition("Evaluate must be called in cross-replica context");
  }
  if (!compiled()) {
    return FailedPrecondition("You must compile your model before training/testing. Use "
                              "`model.compile(optimizer, loss)`.");
  }
  distribute::ParameterServerTraining* ps = distribute::ParameterServerTrainingOf(strategy());
  if (ps == nullptr) {
    return FailedPrecondition("Evaluate with a DatasetCreator runs under "
                              "ParameterServerStrategy; under ", strategy().name(),
                              " give Evaluate the dataset");
  }
  if (!ps->is_chief()) {
    return FailedPrecondition("Evaluate under ParameterServerStrategy runs on the chief; a "
                              "worker serves the steps (ServeTrainSteps)");
  }
  if (creator.name.empty()) return InvalidArgument("Evaluate: the DatasetCreator needs a name");
  if (options.steps && *options.steps < 1) {
    return InvalidArgument("Evaluate: steps must be >= 1, got ", *options.steps);
  }
  distribute::StrategyScope scope(&strategy());
  CallbackList callbacks;
  TFD_RETURN_IF_ERROR(
      AddDefaultCallbacks(options.callbacks, options.verbose, false, &callbacks).status());
  callbacks.SetModel(this);
  callbacks.SetParams(CallbackParams{1, options.steps, options.verbose});
  return EvaluateOnWorkers(*ps, creator.name, options.steps, callbacks);
}

}  // namespace nn
}  // namespace tfd
