// Model's step functions: what each replica runs for one execution of
// Fit, Evaluate and Predict, and the metric bookkeeping around them.
#include "absl/strings/str_cat.h"
#include "core/autodiff/gradient_tape.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/class_weight.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses_utils.h"
#include "core/nn/model.h"
#include "core/nn/remote_step_states.h"
#include "core/nn/remote_update_rule.h"
#include "core/nn/step_executions.h"

namespace tfd {
namespace nn {
namespace {

// What a worker's step changed of the ps's `state` (read as `before`),
// sent as TensorFlow's assign_sub would: value -= before - after, so
// updates of other workers in between are kept, not overwritten.
absl::Status SendStateUpdates(distribute::ParameterServerTraining& ps,
                              const std::vector<DistributedVariable*>& state,
                              const std::vector<Tensor>& before) {
  std::vector<Tensor> deltas(state.size());
  bool changed = false;
  for (size_t i = 0; i < state.size(); ++i) {
    const Tensor after = state[i]->component(0).Peek();
    // A write installs a new buffer while `before` holds the old one
    // (variable.h): the same buffer is an unchanged value.
    if (after.SharesBufferWith(before[i])) continue;
    TFD_ASSIGN_OR_RETURN(deltas[i], Execute1("Sub", {before[i], after}));
    changed = true;
  }
  if (!changed) return absl::OkStatus();
  return ps.AssignSubVariables(deltas, state);
}

// Keras's unpack_x_y_sample_weight on one replica's element.
struct Batch {
  Tensor x;
  Tensor y;
  Tensor sample_weight;
};

absl::StatusOr<Batch> Unpack(const data::Element& element, bool need_targets,
                             absl::string_view caller) {
  if (element.empty() || element.size() > 3) {
    return InvalidArgument(caller, ": dataset elements must be (x), (x, y) or (x, y, "
                           "sample_weight); got ", element.size(), " tensors");
  }
  if (need_targets && element.size() < 2) {
    return InvalidArgument(caller, ": the loss needs targets, but dataset elements are (x) "
                           "only; give (x, y) or (x, y, sample_weight)");
  }
  Batch batch;
  batch.x = element[0];
  if (element.size() > 1) batch.y = element[1];
  if (element.size() > 2) batch.sample_weight = element[2];
  return batch;
}

// Keras's match_dtype_and_rank, applied before the loss and the metrics:
// [batch] targets and weights of a [batch, k] prediction gain a trailing
// axis, and targets take the prediction's dtype when both are floating
// (or both integer); weights take it always.
absl::Status MatchDtypeAndRank(const Tensor& y_pred, Batch* batch) {
  if (batch->y.rank() == 1 && y_pred.rank() == 2) {
    TFD_ASSIGN_OR_RETURN(batch->y, internal::ExpandLast(batch->y));
  }
  Tensor& sw = batch->sample_weight;
  if (sw.defined() && sw.rank() == 1 && y_pred.rank() == 2) {
    TFD_ASSIGN_OR_RETURN(sw, internal::ExpandLast(sw));
  }
  const DataType t = batch->y.dtype(), p = y_pred.dtype();
  if ((IsFloatingType(t) && IsFloatingType(p)) || (IsIntegerType(t) && IsIntegerType(p))) {
    TFD_ASSIGN_OR_RETURN(batch->y, internal::CastTo(batch->y, p));
  }
  if (sw.defined() && IsFloatingType(p)) {
    TFD_ASSIGN_OR_RETURN(sw, internal::CastTo(sw, p));
  }
  return absl::OkStatus();
}

// This replica's index among the process's own replicas, which the
// step's inputs hold one element each for (replica ids are global under
// a multi-worker strategy: worker w's start at w * local replicas).
int LocalReplicaIndex(const distribute::ReplicaContext& ctx) {
  return ctx.replica_id_in_sync_group() % ctx.strategy().num_local_replicas();
}

}  // namespace

distribute::Strategy& Model::strategy() const {
  return strategy_ != nullptr ? *strategy_ : distribute::CurrentStrategy();
}

absl::StatusOr<data::DistributedDatasetPtr> Model::Distribute(
    const data::DatasetPtr& dataset) const {
  const distribute::Strategy& s = strategy();
  const int replicas = s.num_replicas_in_sync();
  // Each worker feeds its own replicas from the same global batches, as
  // MultiWorkerMirroredStrategy::ExperimentalDistributeDataset splits them.
  if (static_cast<int>(s.replica_devices().size()) * s.num_workers() != replicas) {
    return Unimplemented(s.name(), ": ", s.replica_devices().size(), " local replicas on each of ",
                         s.num_workers(), " workers do not make the ", replicas,
                         " replicas in sync");
  }
  data::DistributeOptions options;
  options.num_workers = s.num_workers();
  options.worker_index = s.worker_rank();
  // Batches for GPU replicas are copied to them ahead of each step.
  options.input_options.replica_devices = s.replica_devices();
  return data::DistributeDataset(dataset, replicas, options);
}

absl::Status Model::MaybeBuildMetrics(distribute::ReplicaContext& ctx, bool build,
                                      const Tensor& y, const Tensor& y_pred) {
  if (!build) return absl::OkStatus();
  // Metric state variables are made once, in cross-replica context, with
  // the model's strategy, as layers first called in a step are.
  return ctx.MergeCall([&]() {
    distribute::StrategyScope scope(&strategy());
    return compiled_metrics_->Build(y, y_pred);
  });
}

absl::Status Model::TrainExecution(const std::vector<StepInput>& steps) {
  const bool build_metrics = !compiled_metrics_->built();
  auto step_fn = [&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    distribute::BuiltinTrainingLoopScope builtin_loop;
    const int replica = LocalReplicaIndex(ctx);
    for (size_t s = 0; s < steps.size(); ++s) {
      TFD_ASSIGN_OR_RETURN(Batch batch, Unpack(steps[s][replica], true, "Fit"));
      Tensor y_pred;
      {
        GradientTape tape;
        TFD_ASSIGN_OR_RETURN(y_pred, Call(batch.x, /*training=*/true));
        TFD_RETURN_IF_ERROR(MatchDtypeAndRank(y_pred, &batch));
        TFD_ASSIGN_OR_RETURN(Tensor loss, compiled_loss_->Call(batch.y, y_pred,
                                                               batch.sample_weight));
        // Read after the call: the first call builds the model.
        const std::vector<Weight> vars = TrainableVariables();
        // Differentiates and applies, all-reducing the gradients during
        // the backward pass when the strategy overlaps (optimizer.h); a
        // LossScaleOptimizer scales and unscales.
        if (!vars.empty()) TFD_RETURN_IF_ERROR(optimizer_->Minimize(loss, vars, tape));
      }
      TFD_RETURN_IF_ERROR(MaybeBuildMetrics(ctx, build_metrics && s == 0, batch.y, y_pred));
      // Compile's metrics ignore sample weights, as Keras's `metrics`.
      TFD_RETURN_IF_ERROR(compiled_metrics_->Update(batch.y, y_pred));
    }
    return std::vector<Tensor>();
  };
  return strategy().Run(step_fn).status();
}

absl::Status Model::TestExecution(const std::vector<StepInput>& steps) {
  const bool build_metrics = !compiled_metrics_->built();
  auto step_fn = [&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    distribute::BuiltinTrainingLoopScope builtin_loop;
    const int replica = LocalReplicaIndex(ctx);
    for (size_t s = 0; s < steps.size(); ++s) {
      TFD_ASSIGN_OR_RETURN(Batch batch, Unpack(steps[s][replica], true, "Evaluate"));
      TFD_ASSIGN_OR_RETURN(Tensor y_pred, Call(batch.x, /*training=*/false));
      TFD_RETURN_IF_ERROR(MatchDtypeAndRank(y_pred, &batch));
      TFD_RETURN_IF_ERROR(compiled_loss_->Call(batch.y, y_pred, batch.sample_weight).status());
      TFD_RETURN_IF_ERROR(MaybeBuildMetrics(ctx, build_metrics && s == 0, batch.y, y_pred));
      // Compile's metrics ignore sample weights, as Keras's `metrics`.
      TFD_RETURN_IF_ERROR(compiled_metrics_->Update(batch.y, y_pred));
    }
    return std::vector<Tensor>();
  };
  return strategy().Run(step_fn).status();
}

absl::Status Model::PredictExecution(const std::vector<StepInput>& steps,
                                     std::vector<Tensor>* out) {
  auto step_fn = [&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const int replica = LocalReplicaIndex(ctx);
    std::vector<Tensor> outputs;
    for (const StepInput& step : steps) {
      TFD_ASSIGN_OR_RETURN(Batch batch, Unpack(step[replica], false, "Predict"));
      TFD_ASSIGN_OR_RETURN(Tensor y_pred, Call(batch.x, /*training=*/false));
      outputs.push_back(std::move(y_pred));
    }
    return outputs;
  };
  TFD_ASSIGN_OR_RETURN(distribute::PerReplica results, strategy().Run(step_fn));
  // Step by step, replicas in order: the order of the global batch's rows.
  for (size_t s = 0; s < steps.size(); ++s) {
    for (const std::vector<Tensor>& replica_outputs : results) {
      if (s >= replica_outputs.size()) return Internal("Predict: a replica lost its outputs");
      TFD_ASSIGN_OR_RETURN(Tensor host, replica_outputs[s].CopyTo(HostDevice()));
      out->push_back(std::move(host));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> Model::RemoteTrainStep(
    distribute::ParameterServerTraining& ps, data::Iterator* iterator,
    const std::vector<Tensor>& arguments) {
  if (iterator == nullptr) return InvalidArgument("train_step needs the worker's iterator");
  TFD_ASSIGN_OR_RETURN(const ExecutionArgs args,
                       ParseExecutionArguments(kRemoteTrainStep, arguments,
                                               /*class_weights_allowed=*/true));
  distribute::StrategyScope scope(&strategy());
  distribute::BuiltinTrainingLoopScope builtin_loop;
  // Each call reports its own batches: the chief adds the calls up.
  TFD_RETURN_IF_ERROR(ResetMetrics());
  for (int64_t b = 0; b < args.batches; ++b) {
    TFD_ASSIGN_OR_RETURN(std::optional<data::Element> element, iterator->GetNext());
    if (!element) {
      return absl::OutOfRangeError("the worker's dataset is exhausted; a DatasetCreator's "
                                   "dataset for Fit under ParameterServerStrategy should "
                                   "Repeat()");
    }
    // On the worker, as tf-keras maps its dataset with the class weights.
    if (!args.class_weights.empty()) {
      TFD_ASSIGN_OR_RETURN(element, WeightByClass(*element, args.class_weights));
    }
    TFD_RETURN_IF_ERROR(RemoteTrainBatch(ps, *element));
  }
  return MetricStates();
}

absl::Status Model::RemoteTrainBatch(distribute::ParameterServerTraining& ps,
                                     const data::Element& element) {
  TFD_ASSIGN_OR_RETURN(Batch batch, Unpack(element, true, "Fit"));
  std::vector<Weight> vars = TrainableVariables();
  std::vector<DistributedVariable*> raw;
  for (const Weight& w : vars) raw.push_back(w.get());
  // The state the layers update (moving statistics) lives on the ps too:
  // pulled with the weights, and what the step changes goes back there.
  std::vector<DistributedVariable*> state;
  for (const Weight& w : non_trainable_weights()) {
    if (ps.IsRemote(*w)) state.push_back(w.get());
  }
  std::vector<DistributedVariable*> pulled = raw;
  pulled.insert(pulled.end(), state.begin(), state.end());
  // The trainable variables first: the count is their optimizer's.
  TFD_ASSIGN_OR_RETURN(const int64_t iterations, ps.PullVariablesAndIterations(pulled));
  std::vector<Tensor> state_before;
  for (DistributedVariable* s : state) state_before.push_back(s->component(0).Peek());
  TFD_ASSIGN_OR_RETURN(const distribute::RemoteUpdateRule rule,
                       RemoteUpdateRuleFor(*optimizer_, iterations));
  Tensor y_pred;
  std::vector<Tensor> grads;
  {
    GradientTape tape;
    TFD_ASSIGN_OR_RETURN(y_pred, Call(batch.x, /*training=*/true));
    TFD_RETURN_IF_ERROR(MatchDtypeAndRank(y_pred, &batch));
    TFD_ASSIGN_OR_RETURN(Tensor loss, compiled_loss_->Call(batch.y, y_pred, batch.sample_weight));
    if (vars.empty()) return FailedPrecondition("Fit: the model has no trainable variables");
    TFD_ASSIGN_OR_RETURN(grads, tape.Gradient(loss, LocalVariables(vars)));
  }
  // Clipped here, as Keras's apply_gradients clips on the worker before
  // the ps updates; undefined gradients (variables the loss does not
  // reach) stay out of the clip's norms and are not sent.
  std::vector<Tensor> defined;
  std::vector<DistributedVariable*> updated;
  for (size_t i = 0; i < grads.size(); ++i) {
    if (!grads[i].defined()) continue;
    defined.push_back(grads[i]);
    updated.push_back(raw[i]);
  }
  if (defined.empty()) return InvalidArgument("Fit: no gradient reaches the model's variables");
  TFD_ASSIGN_OR_RETURN(defined, optimizer_->ClipGradients(std::move(defined)));
  // Variables left out of weight decay get the rule without it: one call
  // per rule.
  std::vector<Tensor> undecayed_grads;
  std::vector<DistributedVariable*> undecayed;
  if (rule.weight_decay > 0) {
    size_t kept = 0;
    for (size_t i = 0; i < updated.size(); ++i) {
      if (optimizer_->DecaysWeight(*updated[i])) {
        if (kept != i) defined[kept] = std::move(defined[i]);
        updated[kept++] = updated[i];
      } else {
        undecayed_grads.push_back(std::move(defined[i]));
        undecayed.push_back(updated[i]);
      }
    }
    defined.resize(kept);
    updated.resize(kept);
  }
  TFD_RETURN_IF_ERROR(ps.ApplyGradients(defined, updated, rule));
  if (!undecayed.empty()) {
    distribute::RemoteUpdateRule without_decay = rule;
    without_decay.weight_decay = 0;
    TFD_RETURN_IF_ERROR(ps.ApplyGradients(undecayed_grads, undecayed, without_decay));
  }
  TFD_RETURN_IF_ERROR(SendStateUpdates(ps, state, state_before));
  if (!compiled_metrics_->built()) TFD_RETURN_IF_ERROR(compiled_metrics_->Build(batch.y, y_pred));
  return compiled_metrics_->Update(batch.y, y_pred);
}

absl::StatusOr<std::vector<Tensor>> Model::RemoteTestStep(distribute::ParameterServerTraining& ps,
                                                          data::Iterator* iterator,
                                                          const std::vector<Tensor>& arguments) {
  if (iterator == nullptr) return InvalidArgument("test_step needs the worker's iterator");
  TFD_ASSIGN_OR_RETURN(const ExecutionArgs args,
                       ParseExecutionArguments(kRemoteTestStep, arguments,
                                               /*class_weights_allowed=*/false));
  distribute::StrategyScope scope(&strategy());
  distribute::BuiltinTrainingLoopScope builtin_loop;
  // Each call reports its own batches: the chief adds the calls up.
  TFD_RETURN_IF_ERROR(ResetMetrics());
  std::vector<DistributedVariable*> raw;
  for (const Weight& w : weights()) raw.push_back(w.get());
  for (int64_t b = 0; b < args.batches; ++b) {
    TFD_ASSIGN_OR_RETURN(std::optional<data::Element> element, iterator->GetNext());
    if (!element) {
      if (b == 0) return absl::OutOfRangeError("the worker's evaluation dataset is exhausted");
      // The batches before the end count, as the metric updates Keras's
      // test_function made before its iterator ran out stay on the ps;
      // this worker's next call finds the end.
      break;
    }
    TFD_ASSIGN_OR_RETURN(Batch batch, Unpack(*element, true, "Evaluate"));
    // Pulled per batch, as Keras's test_function reads the ps's values
    // at every batch.
    TFD_RETURN_IF_ERROR(ps.PullVariables(raw));
    TFD_ASSIGN_OR_RETURN(Tensor y_pred, Call(batch.x, /*training=*/false));
    TFD_RETURN_IF_ERROR(MatchDtypeAndRank(y_pred, &batch));
    TFD_RETURN_IF_ERROR(compiled_loss_->Call(batch.y, y_pred, batch.sample_weight).status());
    if (!compiled_metrics_->built()) {
      TFD_RETURN_IF_ERROR(compiled_metrics_->Build(batch.y, y_pred));
    }
    // Compile's metrics ignore sample weights, as in TestExecution.
    TFD_RETURN_IF_ERROR(compiled_metrics_->Update(batch.y, y_pred));
  }
  return MetricStates();
}

absl::StatusOr<std::vector<Tensor>> Model::MetricStates() const {
  std::vector<Tensor> states;
  std::vector<const Metric*> metrics = {&compiled_loss_->tracker()};
  for (const auto& metric : compiled_metrics_->metrics()) metrics.push_back(metric.get());
  for (const Metric* metric : metrics) {
    for (const auto& variable : metric->variables()) {
      TFD_ASSIGN_OR_RETURN(Tensor value, variable->Value());
      states.push_back(std::move(value));
    }
  }
  return states;
}

absl::Status Model::ResetMetrics() {
  TFD_RETURN_IF_ERROR(compiled_loss_->tracker().Reset());
  for (const auto& metric : compiled_metrics_->metrics()) TFD_RETURN_IF_ERROR(metric->Reset());
  return absl::OkStatus();
}

absl::StatusOr<Logs> Model::MetricLogs() const {
  // Keras reads its logs once, at the end of the step. The results are
  // computed where the metrics' state lives (a GPU under a default device)
  // and stacked there, so the host waits for the device once, for one
  // copy, instead of once per value.
  std::vector<std::string> names = {"loss"};
  std::vector<Tensor> values;
  TFD_ASSIGN_OR_RETURN(Tensor loss, compiled_loss_->tracker().ResultInPlace());
  values.push_back(std::move(loss));
  for (const auto& metric : compiled_metrics_->metrics()) {
    TFD_ASSIGN_OR_RETURN(Tensor value, metric->ResultInPlace());
    names.push_back(metric->name());
    values.push_back(std::move(value));
  }
  bool one_device = true;
  for (const Tensor& v : values) one_device = one_device && v.device() == values[0].device();
  std::vector<float> read(values.size());
  if (one_device) {
    TFD_ASSIGN_OR_RETURN(Tensor stacked, Execute1("Pack", values, AttrMap(), values[0].device()));
    TFD_ASSIGN_OR_RETURN(stacked, stacked.CopyTo(HostDevice()));
    for (size_t i = 0; i < values.size(); ++i) read[i] = stacked.flat<float>()[i];
  } else {
    for (size_t i = 0; i < values.size(); ++i) {
      TFD_ASSIGN_OR_RETURN(Tensor host, values[i].CopyTo(HostDevice()));
      read[i] = host.scalar<float>();
    }
  }
  Logs logs;
  for (size_t i = 0; i < names.size(); ++i) logs.Set(names[i], read[i]);
  return logs;
}

std::vector<std::string> Model::metrics_names() const {
  if (!compiled()) return {};
  std::vector<std::string> names = {"loss"};
  for (const std::string& name : compiled_metrics_->names()) names.push_back(name);
  return names;
}

}  // namespace nn
}  // namespace tfd
