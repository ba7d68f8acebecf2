// Model::Compile, Fit, Evaluate and Predict: tf-keras 2.x's training
// loops around the step functions of model_steps.cc.
//
// Note [Fit under a strategy]
// Compile remembers the strategy current when it is called (the one the
// model was built in); the loops run in its scope. Every dataset is split
// with data::DistributeDataset: each element is a GLOBAL batch, replica r
// gets the r-th piece (pieces of ceil(b / N) rows, so a partial last batch
// leaves the last replicas short or empty, as TensorFlow's default
// sharding does). One execution (steps_per_execution batches) is one
// Strategy::Run, in which every replica, inside a BuiltinTrainingLoopScope
// (so the loss's implicit SUM_OVER_BATCH_SIZE reduction is allowed):
//   1. computes its predictions and the compiled loss of its piece,
//      scaled by 1 / num_replicas_in_sync (CompiledLoss);
//   2. differentiates it and calls Optimizer::ApplyGradients, which sums
//      the gradients across replicas (one all-reduce) and updates each
//      replica's copy of mirrored variables, or the central copy once;
//   3. updates the loss tracker and the metrics on its own component.
// With equal pieces the summed gradient is the global batch's mean
// gradient, so N replicas follow one device on the same global batch. The
// logged values are the metrics read in cross-replica context (summed
// over replicas): "loss" is the per-sample mean over all batches of the
// epoch so far, as Keras reports it.
#include <algorithm>
#include <cmath>
#include <cstdio>

#include "absl/strings/str_cat.h"
#include "core/data/transforms.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/callbacks/progbar_logger.h"
#include "core/nn/class_weight.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/model.h"
#include "core/nn/step_executions.h"

namespace tfd {
namespace nn {
namespace {

// Up to `n` steps from `it`; fewer (maybe none) at the end of the data.
absl::StatusOr<std::vector<std::vector<data::Element>>> NextSteps(data::DistributedIterator& it,
                                                                  int64_t n) {
  std::vector<std::vector<data::Element>> steps;
  while (static_cast<int64_t>(steps.size()) < n) {
    TFD_ASSIGN_OR_RETURN(std::optional<std::vector<data::Element>> step, it.GetNext());
    if (!step) break;
    steps.push_back(std::move(*step));
  }
  return steps;
}

absl::Status CheckCrossReplica(absl::string_view caller) {
  if (distribute::CurrentReplicaContext() != nullptr) {
    return FailedPrecondition(caller, " must be called in cross-replica context, not inside "
                              "Strategy::Run");
  }
  return absl::OkStatus();
}

absl::Status CheckDataset(const data::DatasetPtr& dataset, absl::string_view caller) {
  if (dataset == nullptr) return InvalidArgument(caller, ": the dataset is null");
  if (dataset->Cardinality() == 0) {
    return InvalidArgument(caller, ": the dataset ", dataset->DebugString(),
                           " is empty; it must yield at least one batch");
  }
  return absl::OkStatus();
}

// The number of steps of a pass over `dataset`, or the caller's, or
// nullopt when unknown.
absl::StatusOr<std::optional<int64_t>> PassSteps(const data::Dataset& dataset,
                                                 std::optional<int64_t> requested,
                                                 absl::string_view caller,
                                                 absl::string_view steps_name) {
  if (requested) {
    if (*requested < 1) return InvalidArgument(caller, ": ", steps_name, " must be >= 1, got ",
                                               *requested);
    return requested;
  }
  const int64_t cardinality = dataset.Cardinality();
  if (cardinality == data::kInfiniteCardinality) {
    return InvalidArgument(caller, ": the dataset repeats forever; give `", steps_name,
                           "` so that each epoch ends");
  }
  if (cardinality >= 0) return std::optional<int64_t>(cardinality);
  return std::optional<int64_t>();
}

}  // namespace

absl::Status Model::Compile(CompileOptions options) {
  TFD_RETURN_IF_ERROR(CheckCrossReplica("Compile"));
  if (options.optimizer == nullptr) return InvalidArgument("Compile: an optimizer is required");
  if (options.steps_per_execution < 1) {
    return InvalidArgument("Compile: steps_per_execution must be >= 1, got ",
                           options.steps_per_execution);
  }
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<CompiledLoss> loss,
                       CompiledLoss::Create(std::move(options.loss)));
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<CompiledMetrics> metrics,
                       CompiledMetrics::Create(std::move(options.metrics)));
  // Keras's compile() wraps the optimizer in a LossScaleOptimizer under
  // the mixed_float16 policy.
  TFD_ASSIGN_OR_RETURN(optimizer_,
                       WrapOptimizerForPolicy(std::move(options.optimizer), dtype_policy()));
  compiled_loss_ = std::move(loss);
  compiled_metrics_ = std::move(metrics);
  steps_per_execution_ = options.steps_per_execution;
  strategy_ = &distribute::CurrentStrategy();
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<History>> Model::AddDefaultCallbacks(
    const std::vector<std::shared_ptr<Callback>>& user, int verbose, bool add_history,
    CallbackList* list) {
  std::shared_ptr<History> history;
  std::shared_ptr<ProgbarLogger> progbar;
  for (const auto& cb : user) {
    TFD_RETURN_IF_ERROR(list->Add(cb));
    if (auto h = std::dynamic_pointer_cast<History>(cb)) history = h;
    if (auto p = std::dynamic_pointer_cast<ProgbarLogger>(cb)) progbar = p;
  }
  if (history == nullptr && add_history) {
    history = std::make_shared<History>();
    TFD_RETURN_IF_ERROR(list->Add(history));
  }
  if (progbar == nullptr && verbose != 0) {
    progbar = std::make_shared<ProgbarLogger>();
    TFD_RETURN_IF_ERROR(list->Add(progbar));
  }
  if (progbar != nullptr) {
    const std::vector<std::string> names = metrics_names();
    progbar->AddStatefulMetrics(std::set<std::string>(names.begin(), names.end()));
  }
  return history;
}

absl::StatusOr<Model::FitStart> Model::BeginFit(const FitOptions& options,
                                                std::optional<int64_t> steps,
                                                CallbackList* callbacks) {
  FitStart start;
  TFD_ASSIGN_OR_RETURN(start.history,
                       AddDefaultCallbacks(options.callbacks, options.verbose, true, callbacks));
  callbacks->SetModel(this);
  callbacks->SetParams(CallbackParams{options.epochs, steps, options.verbose});
  set_stop_training(false);
  resume_point_.reset();
  TFD_RETURN_IF_ERROR(callbacks->OnTrainBegin(Logs()));
  // A callback that restored a backup says where to go on.
  start.first_epoch = resume_point_ ? resume_point_->first : options.initial_epoch;
  start.first_step = resume_point_ ? resume_point_->second : 0;
  resume_point_.reset();
  return start;
}

absl::StatusOr<Logs> Model::RunEvaluation(const data::DatasetPtr& dataset,
                                          std::optional<int64_t> steps, Callback& callbacks) {
  TFD_RETURN_IF_ERROR(ResetMetrics());
  TFD_ASSIGN_OR_RETURN(data::DistributedDatasetPtr distributed, Distribute(dataset));
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<data::DistributedIterator> it,
                       distributed->MakeIterator());
  TFD_RETURN_IF_ERROR(callbacks.OnTestBegin(Logs()));
  Logs logs;
  int64_t step = 0;
  while (!steps || step < *steps) {
    TFD_ASSIGN_OR_RETURN(auto batch,
                         NextSteps(*it, ExecutionSize(steps_per_execution_, steps, step)));
    if (batch.empty()) break;
    TFD_RETURN_IF_ERROR(callbacks.OnTestBatchBegin(step, Logs()));
    TFD_RETURN_IF_ERROR(TestExecution(batch));
    const int64_t end_step = step + static_cast<int64_t>(batch.size()) - 1;
    TFD_ASSIGN_OR_RETURN(logs, MetricLogs());
    TFD_RETURN_IF_ERROR(callbacks.OnTestBatchEnd(end_step, logs));
    step = end_step + 1;
  }
  if (step == 0) {
    return InvalidArgument("Evaluate: the dataset ", dataset->DebugString(),
                           " yielded no batches");
  }
  TFD_RETURN_IF_ERROR(callbacks.OnTestEnd(logs));
  return logs;
}

absl::StatusOr<std::shared_ptr<History>> Model::Fit(data::DatasetPtr dataset, FitOptions options) {
  TFD_RETURN_IF_ERROR(CheckCrossReplica("Fit"));
  if (!compiled()) {
    return FailedPrecondition("You must compile your model before training/testing. Use "
                              "`model.compile(optimizer, loss)`.");
  }
  if (distribute::ParameterServerTrainingOf(strategy()) != nullptr) {
    return InvalidArgument("Fit under ParameterServerStrategy takes a DatasetCreator: each worker "
                           "builds its own dataset");
  }
  TFD_RETURN_IF_ERROR(CheckDataset(dataset, "Fit"));
  if (options.validation_split != 0) {
    return InvalidArgument("`validation_split` is only supported for Tensors (Fit(x, y, ...)), "
                           "not for a dataset; give validation_data instead");
  }
  if (options.epochs < 0 || options.initial_epoch < 0) {
    return InvalidArgument("Fit: epochs and initial_epoch must be >= 0, got ", options.epochs,
                           " and ", options.initial_epoch);
  }
  if (options.validation_freq < 1) {
    return InvalidArgument("Fit: validation_freq must be >= 1, got ", options.validation_freq);
  }
  if (options.validation_data != nullptr) {
    TFD_RETURN_IF_ERROR(CheckDataset(options.validation_data, "Fit (validation_data)"));
    TFD_RETURN_IF_ERROR(PassSteps(*options.validation_data, options.validation_steps, "Fit",
                                  "validation_steps")
                            .status());
  }
  TFD_ASSIGN_OR_RETURN(std::optional<int64_t> steps,
                       PassSteps(*dataset, options.steps_per_epoch, "Fit", "steps_per_epoch"));
  if (!options.class_weight.empty()) {
    TFD_ASSIGN_OR_RETURN(dataset, ApplyClassWeight(std::move(dataset), options.class_weight));
  }
  // Keras starts each epoch on a fresh iterator unless steps_per_epoch cuts
  // the dataset differently; then one iterator runs on across epochs.
  const bool fresh_iterator_each_epoch =
      !options.steps_per_epoch || dataset->Cardinality() == *options.steps_per_epoch;

  distribute::StrategyScope scope(&strategy());
  TFD_ASSIGN_OR_RETURN(data::DistributedDatasetPtr distributed, Distribute(dataset));
  CallbackList callbacks;
  TFD_ASSIGN_OR_RETURN(const FitStart start, BeginFit(options, steps, &callbacks));
  const int first_epoch = start.first_epoch;
  const int64_t first_step = start.first_step;
  Logs training_logs;
  std::unique_ptr<data::DistributedIterator> it;
  for (int epoch = first_epoch; epoch < options.epochs; ++epoch) {
    TFD_RETURN_IF_ERROR(ResetMetrics());
    TFD_RETURN_IF_ERROR(callbacks.OnEpochBegin(epoch, Logs()));
    if (it == nullptr || fresh_iterator_each_epoch) {
      TFD_ASSIGN_OR_RETURN(it, distributed->MakeIterator());
    }
    Logs logs;
    int64_t step = 0;
    if (epoch == first_epoch) {
      // Skip the batches trained before the backup: this epoch's first
      // steps, and on an iterator shared across epochs (steps_per_epoch
      // given) the epochs before it too.
      int64_t done = first_step;
      if (!fresh_iterator_each_epoch) {
        done += std::max(0, first_epoch - options.initial_epoch) * *steps;
      }
      TFD_RETURN_IF_ERROR(NextSteps(*it, done).status());
      step = first_step;
    }
    while (!steps || step < *steps) {
      const int64_t wanted = ExecutionSize(steps_per_execution_, steps, step);
      TFD_ASSIGN_OR_RETURN(auto batch, NextSteps(*it, wanted));
      if (!batch.empty()) {
        TFD_RETURN_IF_ERROR(callbacks.OnTrainBatchBegin(step, Logs()));
        TFD_RETURN_IF_ERROR(TrainExecution(batch));
        const int64_t end_step = step + static_cast<int64_t>(batch.size()) - 1;
        TFD_ASSIGN_OR_RETURN(logs, MetricLogs());
        TFD_RETURN_IF_ERROR(callbacks.OnTrainBatchEnd(end_step, logs));
        step = end_step + 1;
        if (stop_training()) break;
      }
      if (static_cast<int64_t>(batch.size()) < wanted) {
        if (steps && options.steps_per_epoch) {
          std::fprintf(stderr,
                       "Your input ran out of data; interrupting training. Make sure that your "
                       "dataset can generate at least `steps_per_epoch * epochs` batches (in "
                       "this case, %lld batches). You may need to use the Repeat() transform "
                       "when building your dataset.\n",
                       static_cast<long long>(*steps * (options.epochs - options.initial_epoch)));
          set_stop_training(true);
        }
        break;
      }
    }
    if (step == 0) {
      if (stop_training()) break;  // the shared iterator was already exhausted
      return InvalidArgument("Fit: the dataset ", dataset->DebugString(),
                             " yielded no batches in epoch ", epoch + 1);
    }
    Logs epoch_logs = logs;
    if (options.validation_data != nullptr && (epoch + 1) % options.validation_freq == 0) {
      TFD_ASSIGN_OR_RETURN(Logs val_logs, RunEvaluation(options.validation_data,
                                                        options.validation_steps, callbacks));
      for (const Logs::Entry& e : val_logs.entries()) epoch_logs.Set("val_" + e.first, e.second);
    }
    TFD_RETURN_IF_ERROR(callbacks.OnEpochEnd(epoch, epoch_logs));
    training_logs = epoch_logs;
    if (stop_training()) break;
  }
  TFD_RETURN_IF_ERROR(callbacks.OnTrainEnd(training_logs));
  history_ = start.history;
  return start.history;
}

absl::StatusOr<std::shared_ptr<History>> Model::Fit(const Tensor& x, const Tensor& y,
                                                     FitOptions options) {
  if (x.rank() == 0 || y.rank() == 0) {
    return InvalidArgument("Fit: x and y need a batch dimension, got shapes ",
                           x.shape().DebugString(), " and ", y.shape().DebugString());
  }
  const int64_t rows = x.dim(0);
  if (y.dim(0) != rows) {
    return InvalidArgument("Data cardinality is ambiguous: x sizes: ", rows, ", y sizes: ",
                           y.dim(0), ". Make sure all arrays contain the same number of samples.");
  }
  if (options.batch_size < 1) {
    return InvalidArgument("Fit: batch_size must be >= 1, got ", options.batch_size);
  }
  if (!(options.validation_split >= 0 && options.validation_split < 1)) {
    return InvalidArgument("`validation_split` must be in [0, 1), got ",
                           options.validation_split);
  }
  Tensor train_x = x, train_y = y;
  if (options.validation_split > 0 && options.validation_data == nullptr) {
    // Keras holds out the LAST rows, before shuffling.
    const int64_t split_at =
        static_cast<int64_t>(std::floor(rows * (1.0 - options.validation_split)));
    if (split_at == 0 || split_at == rows) {
      return InvalidArgument("Training data contains ", rows, " samples, which is not "
                             "sufficient to split it into a validation and training set as "
                             "specified by `validation_split=", options.validation_split,
                             "`. Either provide more data, or a different value for the "
                             "`validation_split` argument.");
    }
    TFD_ASSIGN_OR_RETURN(train_x, x.Slice(0, split_at));
    TFD_ASSIGN_OR_RETURN(train_y, y.Slice(0, split_at));
    TFD_ASSIGN_OR_RETURN(Tensor val_x, x.Slice(split_at, rows));
    TFD_ASSIGN_OR_RETURN(Tensor val_y, y.Slice(split_at, rows));
    TFD_ASSIGN_OR_RETURN(data::DatasetPtr val, data::FromTensorSlices({val_x, val_y}));
    TFD_ASSIGN_OR_RETURN(options.validation_data, data::Batch(val, options.batch_size, false));
  }
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr train, data::FromTensorSlices({train_x, train_y}));
  if (options.shuffle) {
    TFD_ASSIGN_OR_RETURN(train, data::Shuffle(train, train_x.dim(0), options.shuffle_seed));
  }
  TFD_ASSIGN_OR_RETURN(train, data::Batch(train, options.batch_size, false));
  options.validation_split = 0;
  return Fit(std::move(train), std::move(options));
}

absl::StatusOr<Logs> Model::Evaluate(data::DatasetPtr dataset, EvaluateOptions options) {
  TFD_RETURN_IF_ERROR(CheckCrossReplica("Evaluate"));
  if (!compiled()) {
    return FailedPrecondition("You must compile your model before training/testing. Use "
                              "`model.compile(optimizer, loss)`.");
  }
  TFD_RETURN_IF_ERROR(CheckDataset(dataset, "Evaluate"));
  TFD_ASSIGN_OR_RETURN(std::optional<int64_t> steps,
                       PassSteps(*dataset, options.steps, "Evaluate", "steps"));
  distribute::StrategyScope scope(&strategy());
  // Under ParameterServerStrategy: the ps's current values.
  TFD_RETURN_IF_ERROR(PullFromParameterServers());
  CallbackList callbacks;
  TFD_RETURN_IF_ERROR(
      AddDefaultCallbacks(options.callbacks, options.verbose, false, &callbacks).status());
  callbacks.SetModel(this);
  callbacks.SetParams(CallbackParams{1, steps, options.verbose});
  return RunEvaluation(dataset, steps, callbacks);
}

absl::StatusOr<Tensor> Model::Predict(data::DatasetPtr dataset, PredictOptions options) {
  TFD_RETURN_IF_ERROR(CheckCrossReplica("Predict"));
  TFD_RETURN_IF_ERROR(CheckDataset(dataset, "Predict"));
  TFD_ASSIGN_OR_RETURN(std::optional<int64_t> steps,
                       PassSteps(*dataset, options.steps, "Predict", "steps"));
  distribute::StrategyScope scope(&strategy());
  TFD_RETURN_IF_ERROR(PullFromParameterServers());
  TFD_ASSIGN_OR_RETURN(data::DistributedDatasetPtr distributed, Distribute(dataset));
  CallbackList callbacks;
  TFD_RETURN_IF_ERROR(
      AddDefaultCallbacks(options.callbacks, options.verbose, false, &callbacks).status());
  callbacks.SetModel(this);
  callbacks.SetParams(CallbackParams{1, steps, options.verbose});

  TFD_ASSIGN_OR_RETURN(std::unique_ptr<data::DistributedIterator> it,
                       distributed->MakeIterator());
  TFD_RETURN_IF_ERROR(callbacks.OnPredictBegin(Logs()));
  std::vector<Tensor> outputs;
  int64_t step = 0;
  while (!steps || step < *steps) {
    TFD_ASSIGN_OR_RETURN(auto batch,
                         NextSteps(*it, ExecutionSize(steps_per_execution_, steps, step)));
    if (batch.empty()) break;
    TFD_RETURN_IF_ERROR(callbacks.OnPredictBatchBegin(step, Logs()));
    TFD_RETURN_IF_ERROR(PredictExecution(batch, &outputs));
    const int64_t end_step = step + static_cast<int64_t>(batch.size()) - 1;
    Logs batch_logs;
    TFD_RETURN_IF_ERROR(callbacks.OnPredictBatchEnd(end_step, batch_logs));
    step = end_step + 1;
  }
  if (step == 0) {
    return InvalidArgument("Predict: the dataset ", dataset->DebugString(), " yielded no batches");
  }
  Logs end_logs;
  TFD_RETURN_IF_ERROR(callbacks.OnPredictEnd(end_logs));

  // Empty pieces (replicas left without rows) add nothing.
  std::vector<Tensor> pieces;
  for (const Tensor& t : outputs) {
    if (t.rank() == 0 || t.dim(0) > 0) pieces.push_back(t);
  }
  if (pieces.empty()) return outputs.front();
  if (pieces.size() == 1) return pieces.front();
  pieces.push_back(Tensor::Scalar<int32_t>(0));
  return Execute1("ConcatV2", pieces);
}

}  // namespace nn
}  // namespace tfd
