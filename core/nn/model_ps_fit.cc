// Model::Fit under ParameterServerStrategy: the chief's loop that
// schedules training steps on the workers, and the workers' service.
//
// Note [Fit on parameter servers]
// As tf-keras's fit with a ParameterServerStrategy and a DatasetCreator:
//   - every process of the job builds and compiles the same model in the
//     strategy's scope, so its trainable variables live on the ps tasks
//     (ParameterServerStrategy::CreateVariable); workers then serve
//     ServeTrainSteps, and the chief calls Fit;
//   - Fit pushes the chief's values to the ps tasks (they are the ps's own
//     unless a checkpoint was restored into the model) with the
//     optimizer's slots and iterations when a checkpoint built the
//     optimizer (otherwise the optimizer is built and takes the ps's),
//     makes one iterator per worker over the dataset each worker builds
//     from the creator (released on the workers when Fit returns), and
//     schedules one "train_step" closure per execution of
//     steps_per_execution batches, steps_per_epoch batches per epoch, with
//     the execution's batch count and the class weights as arguments (as
//     tf-keras schedules its train_function with steps_per_execution);
//   - a worker runs a closure on the next batches of its own iterator,
//     one after another; for each it weights the samples by class when
//     class_weight is given (tf-keras's class-weight map, on the worker),
//     pulls the variables and the ps's update count (the optimizer's
//     iterations, which a learning-rate schedule reads), computes the loss
//     and gradients, clips them as the optimizer says, and sends them to
//     the ps tasks with the optimizer's update rule at that step (applied
//     there, slots kept there); it returns the batches' (total, count) of
//     the loss tracker and of each metric;
//   - at the end of each epoch the chief pulls the values, slots and
//     iterations back, so its checkpoints are the ps's state in Keras's
//     layout;
//   - validation, after the epoch's join, adds "val_*" to the epoch's
//     logs: a validation_creator is evaluated as tf-keras evaluates with
//     a coordinator, by "test_step" closures on the workers, each reading
//     a fresh per-worker iterator and the ps's values (Note [Evaluate on
//     parameter servers]); validation_data, a dataset only the chief
//     has, is evaluated on the chief with the ps's values just pulled
//     (tf-keras would ship the dataset to the workers; the numbers are
//     those of evaluating every batch once);
//   - the chief keeps at most two closures per live worker in flight,
//     fetches their RemoteValues in step order, adds the states up (all
//     are Means, so the epoch's value is total / count) and calls the
//     batch callbacks with the running logs, as Keras does after
//     fetching. A lost worker's closure runs on another (at least once,
//     as in TensorFlow), reading that worker's iterator.
// Workers train asynchronously: each step reads the values current when
// it starts, so the result depends on timing, as in TensorFlow.
//
// Note [State on parameter servers]
// TensorFlow creates every variable of the strategy's scope on the ps,
// non-trainable ones too, and BatchNormalization's moving statistics are
// updated there by assign ops the workers run. tfd does the same for the
// model's weights: PushToParameterServers and ServeTrainSteps place the
// non-trainable weights on the ps (MakeRemote; the trainable ones are
// there from their creation), a worker's step pulls them with the
// trainable ones and sends what its forward pass changed as value -=
// (before - after), and the chief's pulls bring them back, so its
// evaluation and checkpoints see the job's statistics. A non-trainable
// weight the ps cannot hold (not float32) is UNIMPLEMENTED rather than
// left to drift apart per process. Metrics and optimizer slots are not
// model weights: the steps return the metrics' states, and the ps keeps
// the slots with their variable.
//
// A custom loop on the chief (the C API's TFD_Coordinator) uses the same
// pieces in its own order: PushToParameterServers once, ScheduleTrainStep
// as often as it likes, JoinTrainSteps where TensorFlow's loop calls
// coordinator.join() (Fit joins at the end of every epoch).
#include <algorithm>
#include <deque>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/nn/class_weight.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/model.h"
#include "core/nn/remote_step_states.h"
#include "core/nn/remote_update_rule.h"
#include "core/nn/step_executions.h"

namespace tfd {
namespace nn {
namespace {

std::vector<DistributedVariable*> Raw(const std::vector<Weight>& weights) {
  std::vector<DistributedVariable*> raw;
  for (const Weight& w : weights) raw.push_back(w.get());
  return raw;
}

absl::Status CheckFitOptions(const FitOptions& options) {
  if (!options.steps_per_epoch) {
    return InvalidArgument("When using a DatasetCreator, `steps_per_epoch` must be provided in "
                           "Model.fit (the workers' datasets have no length the chief knows)");
  }
  if (*options.steps_per_epoch < 1) {
    return InvalidArgument("Fit: steps_per_epoch must be >= 1, got ", *options.steps_per_epoch);
  }
  if (options.epochs < 0 || options.initial_epoch < 0) {
    return InvalidArgument("Fit: epochs and initial_epoch must be >= 0, got ", options.epochs,
                           " and ", options.initial_epoch);
  }
  if (options.validation_split != 0) {
    return InvalidArgument("`validation_split` is only supported for Tensors, not for a "
                           "DatasetCreator; give validation_data or validation_creator");
  }
  if (options.validation_freq < 1) {
    return InvalidArgument("Fit: validation_freq must be >= 1, got ", options.validation_freq);
  }
  if (options.validation_creator && options.validation_data != nullptr) {
    return InvalidArgument("Fit: give validation_data (evaluated on the chief) or "
                           "validation_creator (evaluated on the workers), not both");
  }
  if (options.validation_creator && options.validation_creator->name.empty()) {
    return InvalidArgument("Fit: the validation DatasetCreator needs a name");
  }
  if (options.validation_steps && *options.validation_steps < 1) {
    return InvalidArgument("Fit: validation_steps must be >= 1, got ", *options.validation_steps);
  }
  return absl::OkStatus();
}

// The ParameterServerTraining of the chief driving training, or
// FAILED_PRECONDITION saying why `where` cannot run here.
absl::StatusOr<distribute::ParameterServerTraining*> ChiefTraining(distribute::Strategy& strategy,
                                                                   bool compiled,
                                                                   absl::string_view where) {
  if (!compiled) {
    return FailedPrecondition(where, ": compile the model first (`model.compile(optimizer, loss)`)");
  }
  distribute::ParameterServerTraining* ps = distribute::ParameterServerTrainingOf(strategy);
  if (ps == nullptr) {
    return FailedPrecondition(where, ": the model was compiled under ", strategy.name(),
                              ", not ParameterServerStrategy");
  }
  if (!ps->is_chief()) {
    return FailedPrecondition(where, " runs on the chief; a worker serves the steps "
                              "(ServeTrainSteps)");
  }
  return ps;
}

}  // namespace

absl::Status Model::PullFromParameterServers() {
  distribute::ParameterServerTraining* ps = distribute::ParameterServerTrainingOf(strategy());
  if (ps == nullptr) return absl::OkStatus();
  return ps->PullVariables(Raw(weights()));
}

absl::Status Model::ExchangeOptimizerState(distribute::ParameterServerTraining& ps,
                                           const distribute::RemoteUpdateRule& rule, bool push) {
  const std::vector<std::string> names = RemoteSlotNames(rule);
  std::shared_ptr<DistributedVariable> iterations = optimizer_->iterations();
  if (iterations == nullptr) return FailedPrecondition("the optimizer is not built");
  for (const Weight& var : TrainableVariables()) {
    std::vector<std::shared_ptr<DistributedVariable>> slots;
    for (const std::string& name : names) {
      std::shared_ptr<DistributedVariable> slot = optimizer_->GetSlot(*var, name);
      if (slot == nullptr) {
        return Internal("optimizer ", optimizer_->name(), " has no slot ", name, " for ",
                        var->name());
      }
      slots.push_back(std::move(slot));
    }
    if (push) {
      distribute::RemoteOptimizerState state;
      for (const auto& slot : slots) state.slots.push_back(slot->component(0).Peek());
      TFD_ASSIGN_OR_RETURN(state.step, optimizer_->Iterations());
      TFD_RETURN_IF_ERROR(ps.PushOptimizerState(
          *var, RemoteUpdateRuleForVariable(rule, *optimizer_, *var), state));
      continue;
    }
    TFD_ASSIGN_OR_RETURN(distribute::RemoteOptimizerState state, ps.ReadOptimizerState(*var));
    // No slots yet (or another rule's) on the ps: nothing of this rule's.
    if (state.slots.size() != slots.size()) continue;
    for (size_t i = 0; i < slots.size(); ++i) TFD_RETURN_IF_ERROR(slots[i]->AssignAll(state.slots[i]));
    TFD_RETURN_IF_ERROR(iterations->AssignAll(Tensor::Scalar<int64_t>(state.step)));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<History>> Model::Fit(const DatasetCreator& creator,
                                                     FitOptions options) {
  if (!compiled()) {
    return FailedPrecondition("You must compile your model before training/testing. Use "
                              "`model.compile(optimizer, loss)`.");
  }
  distribute::ParameterServerTraining* ps = distribute::ParameterServerTrainingOf(strategy());
  if (ps == nullptr) {
    return Unimplemented("Fit with a DatasetCreator runs under ParameterServerStrategy; under ",
                         strategy().name(), " give Fit the dataset");
  }
  return FitOnParameterServers(*ps, creator, std::move(options));
}

absl::StatusOr<std::shared_ptr<History>> Model::FitOnParameterServers(
    distribute::ParameterServerTraining& ps, const DatasetCreator& creator, FitOptions options) {
  if (distribute::CurrentReplicaContext() != nullptr) {
    return FailedPrecondition("Fit must be called in cross-replica context");
  }
  if (!ps.is_chief()) {
    return FailedPrecondition("Fit under ParameterServerStrategy runs on the chief; a worker "
                              "serves the steps (ServeTrainSteps)");
  }
  TFD_RETURN_IF_ERROR(CheckFitOptions(options));
  if (creator.name.empty()) return InvalidArgument("Fit: the DatasetCreator needs a name");
  std::vector<float> class_weights;
  if (!options.class_weight.empty()) {
    TFD_ASSIGN_OR_RETURN(class_weights, ClassWeightsById(options.class_weight));
  }
  distribute::StrategyScope scope(&strategy());
  TFD_RETURN_IF_ERROR(PushToParameterServers());
  TFD_ASSIGN_OR_RETURN(const int64_t iterator_id, ps.CreatePerWorkerIterator(creator.name));
  // The workers drop their iterators when Fit returns, however it does.
  const distribute::PerWorkerIteratorOwner iterator(&ps, iterator_id);

  const int64_t steps = *options.steps_per_epoch;
  CallbackList callbacks;
  // A callback that restored a backup says where to go on; the workers'
  // iterators go on from where they are.
  TFD_ASSIGN_OR_RETURN(const FitStart start, BeginFit(options, steps, &callbacks));
  const int first_epoch = start.first_epoch;
  const int64_t first_step = start.first_step;

  Logs training_logs;
  for (int epoch = first_epoch; epoch < options.epochs; ++epoch) {
    TFD_RETURN_IF_ERROR(callbacks.OnEpochBegin(epoch, Logs()));
    RemoteStepStates states(metrics_names());
    Logs logs;
    // Each execution's last step and its RemoteValue.
    std::deque<std::pair<int64_t, std::shared_ptr<distribute::RemoteValue>>> in_flight;
    auto finish_oldest = [&]() -> absl::Status {
      auto [end_step, value] = std::move(in_flight.front());
      in_flight.pop_front();
      absl::StatusOr<std::vector<Tensor>> outputs = value->Fetch();
      if (!outputs.ok()) {
        // The step that failed first says why (later ones were cancelled).
        const absl::Status first = ps.Join();
        return first.ok() ? outputs.status() : first;
      }
      TFD_RETURN_IF_ERROR(states.Add(*outputs));
      logs = states.ToLogs();
      return callbacks.OnTrainBatchEnd(end_step, logs);
    };
    // One closure per execution of steps_per_execution batches (fewer for
    // the epoch's last), as tf-keras schedules its train_function with the
    // count as an argument; the callbacks see executions, as in Fit.
    for (int64_t step = epoch == first_epoch ? first_step : 0; step < steps;) {
      const size_t window = 2 * static_cast<size_t>(std::max(1, ps.num_live_workers()));
      while (in_flight.size() >= window) TFD_RETURN_IF_ERROR(finish_oldest());
      if (stop_training()) break;
      const int64_t batches = ExecutionSize(steps_per_execution_, steps, step);
      TFD_ASSIGN_OR_RETURN(std::vector<Tensor> arguments,
                           ExecutionArguments({batches, class_weights}));
      TFD_RETURN_IF_ERROR(callbacks.OnTrainBatchBegin(step, Logs()));
      in_flight.emplace_back(step + batches - 1,
                             ps.Schedule(kRemoteTrainStep, iterator.id(), std::move(arguments)));
      step += batches;
    }
    while (!in_flight.empty()) TFD_RETURN_IF_ERROR(finish_oldest());
    TFD_RETURN_IF_ERROR(JoinTrainSteps());
    Logs epoch_logs = logs;
    if ((epoch + 1) % options.validation_freq == 0) {
      // After the join, as Keras validates: every step of the epoch is on
      // the ps, and the chief's model holds those values.
      std::optional<Logs> val_logs;
      if (options.validation_creator) {
        TFD_ASSIGN_OR_RETURN(val_logs, EvaluateOnWorkers(ps, options.validation_creator->name,
                                                         options.validation_steps, callbacks));
      } else if (options.validation_data != nullptr) {
        TFD_ASSIGN_OR_RETURN(val_logs, RunEvaluation(options.validation_data,
                                                     options.validation_steps, callbacks));
      }
      if (val_logs) {
        for (const Logs::Entry& e : val_logs->entries()) epoch_logs.Set("val_" + e.first, e.second);
      }
    }
    TFD_RETURN_IF_ERROR(callbacks.OnEpochEnd(epoch, epoch_logs));
    training_logs = epoch_logs;
    if (stop_training()) break;
  }
  TFD_RETURN_IF_ERROR(callbacks.OnTrainEnd(training_logs));
  history_ = start.history;
  return start.history;
}

absl::Status Model::PushToParameterServers() {
  TFD_ASSIGN_OR_RETURN(distribute::ParameterServerTraining * ps,
                       ChiefTraining(strategy(), compiled(), "PushToParameterServers"));
  TFD_ASSIGN_OR_RETURN(const distribute::RemoteUpdateRule rule, RemoteUpdateRuleFor(*optimizer_));
  const std::vector<Weight> trainable = TrainableVariables();
  if (trainable.empty()) {
    return FailedPrecondition("training under ParameterServerStrategy: the model has no "
                              "variables yet; build it (give its input shape) in the "
                              "strategy's scope");
  }
  distribute::StrategyScope scope(&strategy());
  // The non-trainable weights live on the ps too, as TensorFlow places
  // every variable of the scope there: the workers' steps update
  // BatchNormalization's moving statistics there (Note [State on
  // parameter servers]).
  TFD_RETURN_IF_ERROR(ps->MakeRemote(non_trainable_weights()));
  TFD_RETURN_IF_ERROR(ps->PushVariables(Raw(weights())));
  // An optimizer built before training was restored from a checkpoint (or
  // trained before): the ps continues from it. A new one takes the ps's
  // state.
  const bool restored_optimizer = optimizer_->built();
  if (!restored_optimizer) TFD_RETURN_IF_ERROR(optimizer_->Build(Raw(trainable)));
  return ExchangeOptimizerState(*ps, rule, /*push=*/restored_optimizer);
}

absl::StatusOr<std::shared_ptr<distribute::RemoteValue>> Model::ScheduleTrainStep(
    int64_t iterator) {
  TFD_ASSIGN_OR_RETURN(distribute::ParameterServerTraining * ps,
                       ChiefTraining(strategy(), compiled(), "ScheduleTrainStep"));
  return ps->Schedule(kRemoteTrainStep, iterator, {});
}

absl::Status Model::JoinTrainSteps() {
  TFD_ASSIGN_OR_RETURN(distribute::ParameterServerTraining * ps,
                       ChiefTraining(strategy(), compiled(), "JoinTrainSteps"));
  TFD_ASSIGN_OR_RETURN(const distribute::RemoteUpdateRule rule, RemoteUpdateRuleFor(*optimizer_));
  TFD_RETURN_IF_ERROR(ps->Join());
  distribute::StrategyScope scope(&strategy());
  TFD_RETURN_IF_ERROR(PullFromParameterServers());
  return ExchangeOptimizerState(*ps, rule, /*push=*/false);
}

absl::StatusOr<std::unique_ptr<distribute::WorkerServing>> Model::ServeTrainSteps(
    const DatasetCreator& creator, const std::vector<DatasetCreator>& evaluation) {
  if (!compiled()) {
    return FailedPrecondition("ServeTrainSteps: compile the model as the chief does first");
  }
  distribute::ParameterServerTraining* ps = distribute::ParameterServerTrainingOf(strategy());
  if (ps == nullptr) {
    return FailedPrecondition("ServeTrainSteps: the model was compiled under ", strategy().name(),
                              ", not ParameterServerStrategy");
  }
  if (ps->is_chief()) return FailedPrecondition("ServeTrainSteps runs on workers, not the chief");
  if (creator.name.empty() || !creator.function) {
    return InvalidArgument("ServeTrainSteps: the DatasetCreator needs a name and a function");
  }
  // Refused here rather than at the first step: an optimizer the ps
  // cannot apply, state it cannot hold.
  TFD_RETURN_IF_ERROR(RemoteUpdateRuleFor(*optimizer_).status());
  TFD_RETURN_IF_ERROR(ps->MakeRemote(non_trainable_weights()));
  ps::WorkerFunctions functions;
  const data::InputContext context(ps->num_worker_tasks(), ps->worker_index(), 1);
  functions.datasets[creator.name] = [creator, context]() { return creator.function(context); };
  for (const DatasetCreator& other : evaluation) {
    if (other.name.empty() || !other.function) {
      return InvalidArgument("ServeTrainSteps: every evaluation DatasetCreator needs a name and a "
                             "function");
    }
    if (functions.datasets.count(other.name) != 0) {
      return InvalidArgument("ServeTrainSteps: two DatasetCreators are named \"", other.name,
                             "\"");
    }
    functions.datasets[other.name] = [other, context]() { return other.function(context); };
  }
  functions.steps[kRemoteTrainStep] = [this, ps](data::Iterator* iterator,
                                                 const std::vector<Tensor>& arguments) {
    return RemoteTrainStep(*ps, iterator, arguments);
  };
  functions.steps[kRemoteTestStep] = [this, ps](data::Iterator* iterator,
                                                const std::vector<Tensor>& arguments) {
    return RemoteTestStep(*ps, iterator, arguments);
  };
  return ps->ServeWorkerFunctions(std::move(functions));
}

}  // namespace nn
}  // namespace tfd
