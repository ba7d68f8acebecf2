// Model: the base of Sequential and Functional (tf.keras.Model): a layer
// made of layers.
//
// A model's weights are its layers' weights, layer by layer in the order
// of layers(), each weight once (a shared layer counts once):
// trainable_weights() the trainable ones in that order,
// non_trainable_weights() the others (all of them when the model's
// trainable flag is off); set_trainable() sets the flag of every layer, as
// Keras does. TrainableVariables() is what an optimizer updates and a
// GradientTape differentiates (through LocalVariables(), layer.h), and
// Call(x, training) is the forward pass.
//
// Training follows tf-keras 2.x (see Note [Fit under a strategy] in
// model_fit.cc): Compile(optimizer, loss, metrics) under the strategy the
// model was built in; Fit(dataset) trains and returns the History;
// Evaluate(dataset) returns "loss" and the metrics; Predict(dataset)
// returns the outputs of every batch, concatenated. They run on the
// calling thread, which must not be a replica thread; one at a time per
// model.
//
// Summary() prints the Keras table (summary.h) with each layer's output
// shape as recorded by the model's graph. A model not yet built has no
// summary (FAILED_PRECONDITION, Keras's message).
//
// Thread safety: as Layer; a built model may be called from replica
// threads at once.
//
//   TFD_ASSIGN_OR_RETURN(std::string text, model->Summary());
//   TFD_RETURN_IF_ERROR(model->Compile({optimizer, loss, {"accuracy"}}));
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<History> history, model->Fit(train, fit_options));
//   TFD_ASSIGN_OR_RETURN(Logs test, model->Evaluate(test_data));
//   GradientTape tape;
//   TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(x, /*training=*/true));
//   ... tape.Gradient(loss, LocalVariables(model->TrainableVariables()));
#ifndef TFD_CORE_NN_MODEL_H_
#define TFD_CORE_NN_MODEL_H_

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/data/distributed_dataset.h"
#include "core/distribute/parameter_server_training.h"
#include "core/distribute/strategy.h"
#include "core/nn/callbacks/callback.h"
#include "core/nn/callbacks/history.h"
#include "core/nn/compiled_loss.h"
#include "core/nn/compiled_metrics.h"
#include "core/nn/dataset_creator.h"
#include "core/nn/layer.h"
#include "core/nn/optimizer.h"
#include "core/nn/summary.h"
#include "core/nn/training_options.h"

namespace tfd {
namespace nn {

class Model : public Layer {
 public:
  // The layers in Keras's order (model.layers): a Sequential's own layers;
  // a functional model's layers by decreasing depth, InputLayers included.
  virtual std::vector<std::shared_ptr<Layer>> layers() const = 0;
  // The layer called `name`; NOT_FOUND otherwise.
  absl::StatusOr<std::shared_ptr<Layer>> GetLayer(absl::string_view name) const;

  std::vector<Weight> weights() const override;
  std::vector<Weight> trainable_weights() const override;
  std::vector<Weight> non_trainable_weights() const override;
  void set_trainable(bool trainable) override;

  // The variables an optimizer updates: trainable_weights().
  std::vector<Weight> TrainableVariables() const { return trainable_weights(); }

  // The summary text, one line per "\n" (each line ends with it).
  absl::StatusOr<std::string> Summary() const;
  // Calls `print_fn` with each line, as model.summary(print_fn=...).
  absl::Status Summary(const std::function<void(const std::string&)>& print_fn) const;
  // The table Summary() formats.
  absl::StatusOr<SummaryTable> MakeSummaryTable() const;

  // Keras's model.stop_training: a callback sets it to end Fit after the
  // current batch; Fit clears it when it starts. Thread-safe.
  bool stop_training() const { return stop_training_.load(std::memory_order_acquire); }
  void set_stop_training(bool stop) { stop_training_.store(stop, std::memory_order_release); }

  // The optimizer given to Compile (Keras's model.optimizer), owned by the
  // model; null before Compile.
  Optimizer* optimizer() const { return optimizer_.get(); }

  // Configures training (tf.keras.Model.compile) under the current
  // strategy, which Fit, Evaluate and Predict then use. Compiling again
  // replaces the configuration. INVALID_ARGUMENT for a missing optimizer or
  // loss, a loss with reduction 'none', bad metric entries or
  // steps_per_execution < 1.
  absl::Status Compile(CompileOptions options);
  bool compiled() const { return compiled_loss_ != nullptr; }

  // Trains for options.epochs epochs (see training_options.h) and returns
  // the History. Errors: FAILED_PRECONDITION before Compile; INVALID_ARGUMENT
  // for a null or empty dataset, elements that are not (x, y[, weight]),
  // bad options, and the errors of the layers and loss on wrong shapes or
  // dtypes; a callback's error as it returned it.
  absl::StatusOr<std::shared_ptr<History>> Fit(data::DatasetPtr dataset,
                                               FitOptions options = FitOptions());
  // Fit on tensors: rows of x with targets y, batched by
  // options.batch_size, with options.validation_split and shuffle (see
  // training_options.h). INVALID_ARGUMENT (Keras's messages) when x and y
  // differ in rows, batch_size < 1, or validation_split is outside [0, 1)
  // or leaves either part empty; then as Fit on a dataset.
  absl::StatusOr<std::shared_ptr<History>> Fit(const Tensor& x, const Tensor& y,
                                               FitOptions options = FitOptions());
  // Fit on datasets the workers build (tf.keras's fit with a
  // DatasetCreator), under ParameterServerStrategy, on the chief (see Note
  // [Fit on parameter servers] in model_ps_fit.cc): options.steps_per_epoch
  // is required; each step is scheduled on a free worker and reads that
  // worker's own dataset; the variables and the optimizer's slots live on
  // the ps tasks; the logs are the steps' losses and metrics gathered from
  // their RemoteValues. Validation, at the end of every validation_freq-th
  // epoch, adds "val_*" logs: options.validation_creator is evaluated on
  // the workers (Evaluate(creator)), options.validation_data on the chief
  // with the ps's values. The model must be built (its variables created in
  // the strategy's scope) and its values are pushed to the ps tasks first,
  // with the optimizer's slots and iterations when the optimizer was
  // restored from a checkpoint (else they are read from the ps), so a
  // checkpoint restored into the model is where training resumes; at the
  // end of every epoch the ps's values and optimizer state are pulled
  // back into the model and its optimizer, so callbacks and checkpoints
  // see them. The model's non-trainable weights (BatchNormalization's
  // moving statistics) live on the ps tasks too and are updated there by
  // the workers' steps (Note [State on parameter servers]). Class weights
  // weight each sample's loss on the worker, and steps_per_execution
  // batches run in one scheduled call (Note [Fit on parameter servers]).
  // Errors: as Fit; INVALID_ARGUMENT without steps_per_epoch or for class
  // weights not keyed 0 .. n-1; UNIMPLEMENTED under another strategy, for
  // optimizers the ps cannot apply (remote_update_rule.h) and
  // non-trainable weights it cannot hold (not float32); INVALID_ARGUMENT
  // for validation_split (tensors only, as Keras), both kinds of
  // validation data, or a LossScaleOptimizer (tf-keras refuses loss
  // scaling under ParameterServerStrategy); FAILED_PRECONDITION on a
  // worker; a step's error; UNAVAILABLE when every worker or a ps was
  // lost.
  absl::StatusOr<std::shared_ptr<History>> Fit(const DatasetCreator& creator,
                                               FitOptions options = FitOptions());
  // On a worker of a ParameterServerStrategy job: serves this model's
  // training step ("train_step") and `creator`'s dataset for the chief's
  // Fit, and its test step ("test_step") with the datasets of
  // `evaluation` (the chief's validation_creator, or what it gives
  // Evaluate), until the returned service is destroyed (Wait() blocks on
  // it). Build and Compile the model as the chief does first; its
  // non-trainable weights are placed on the ps tasks (Note [State on
  // parameter servers]). The datasets are built with InputContext(num
  // workers, this worker's index, 1). FAILED_PRECONDITION before Compile,
  // under another strategy, or on the chief; INVALID_ARGUMENT for a
  // creator without name or function, or two with one name, or a
  // LossScaleOptimizer; UNIMPLEMENTED for an optimizer the ps cannot
  // apply or non-trainable weights it cannot hold; UNAVAILABLE when the
  // worker's address cannot be served.
  absl::StatusOr<std::unique_ptr<distribute::WorkerServing>> ServeTrainSteps(
      const DatasetCreator& creator, const std::vector<DatasetCreator>& evaluation = {});

  // The chief's side of a custom training loop under
  // ParameterServerStrategy, the loop a TensorFlow user writes with a
  // ClusterCoordinator (schedule, join, fetch) over the "train_step" the
  // workers serve (ServeTrainSteps); Fit is made of the same pieces. In
  // order:
  //   PushToParameterServers: the model's values and the optimizer's state
  //     to the ps tasks, as Fit does first (an optimizer not built yet is
  //     built and takes the ps's state);
  //   ScheduleTrainStep: one step on the next free worker, on the next
  //     batch of that worker's iterator `iterator`
  //     (ParameterServerTraining::CreatePerWorkerIterator); its RemoteValue
  //     holds the batch's (total, count) of the loss and of each metric,
  //     in metrics_names() order;
  //   JoinTrainSteps: waits for every scheduled step and pulls the ps's
  //     values and optimizer state into the model, so evaluation and
  //     checkpoints see them.
  // FAILED_PRECONDITION before Compile, under another strategy, on a
  // worker, or (Push) before the model is built; UNIMPLEMENTED for an
  // optimizer the ps cannot apply or non-trainable weights it cannot
  // hold, INVALID_ARGUMENT for a LossScaleOptimizer; the coordinator's
  // errors (Join: the first step's error since the last Join, UNAVAILABLE
  // when every worker was lost).
  absl::Status PushToParameterServers();
  absl::StatusOr<std::shared_ptr<distribute::RemoteValue>> ScheduleTrainStep(int64_t iterator);
  absl::Status JoinTrainSteps();

  // "loss" then the metrics over the dataset (tf.keras.Model.evaluate with
  // return_dict). Errors as Fit.
  absl::StatusOr<Logs> Evaluate(data::DatasetPtr dataset,
                                EvaluateOptions options = EvaluateOptions());
  // Evaluate on datasets the workers build, under ParameterServerStrategy,
  // on the chief (tf-keras's evaluate with a DatasetCreator): each test
  // step is scheduled on a free worker, reads the next batch of that
  // worker's fresh iterator over `creator` (which the workers serve, see
  // ServeTrainSteps) with the values on the ps tasks, and returns its
  // batch's metric states, which the chief adds up. options.steps batches;
  // nullopt: until a worker's dataset runs out (Keras's behaviour; with
  // data repeated forever it never ends). Errors: FAILED_PRECONDITION
  // before Compile, under another strategy or on a worker;
  // INVALID_ARGUMENT for steps < 1, an unnamed creator, or no batch at
  // all; a step's error; UNAVAILABLE when every worker was lost.
  absl::StatusOr<Logs> Evaluate(const DatasetCreator& creator,
                                EvaluateOptions options = EvaluateOptions());
  // The model's outputs for every batch's x, concatenated along dimension 0
  // (tf.keras.Model.predict). Needs no Compile. Errors as Fit.
  absl::StatusOr<Tensor> Predict(data::DatasetPtr dataset,
                                 PredictOptions options = PredictOptions());

  // Keras's model.metrics_names: "loss", then the compiled metrics' names.
  // Empty before Compile.
  std::vector<std::string> metrics_names() const;
  // The History of the last Fit; null before.
  std::shared_ptr<History> history() const { return history_; }

  // Where the running Fit resumes (tf-keras's
  // _maybe_load_initial_counters_from_ckpt): a callback that restored a
  // backup (BackupAndRestore) calls it from OnTrainBegin. Fit then starts
  // at `epoch` and skips the first `step` batches of that epoch's data,
  // which were trained before the backup, so the resumed run sees the same
  // batches as an uninterrupted one. Fit forgets it when it starts.
  void ResumeFitAt(int epoch, int64_t step) { resume_point_ = {epoch, step}; }

 protected:
  Model(absl::string_view class_name, const LayerOptions& options) : Layer(class_name, options) {}
  bool autocast() const override { return false; }

  // Whether the summary uses the three-column layout.
  virtual bool SequentialLike() const = 0;
  // The "Connected to" entries of `layer` within this model.
  virtual std::vector<std::string> ConnectionsOf(const Layer& layer) const { return {}; }

 private:
  // One step's input: one element per replica, and the batches of one
  // execution.
  using StepInput = std::vector<data::Element>;

  // The strategy of Compile, else the current one.
  distribute::Strategy& strategy() const;
  // `dataset` split between the strategy's replicas.
  absl::StatusOr<data::DistributedDatasetPtr> Distribute(const data::DatasetPtr& dataset) const;
  // Runs `steps` (one execution) on every replica: forward, loss,
  // gradients, update, metrics.
  absl::Status TrainExecution(const std::vector<StepInput>& steps);
  absl::Status TestExecution(const std::vector<StepInput>& steps);
  // The training step a worker of a parameter-server job runs: the
  // batches of one execution from `iterator` (`arguments` as
  // kRemoteTrainStep says), each with the variables pulled from the ps and
  // the clipped gradients sent there with the optimizer's rule at the ps's
  // iterations. Returns the batches' (total, count) of the loss tracker
  // and of every metric, which the chief adds up.
  absl::StatusOr<std::vector<Tensor>> RemoteTrainStep(distribute::ParameterServerTraining& ps,
                                                      data::Iterator* iterator,
                                                      const std::vector<Tensor>& arguments);
  // One batch of RemoteTrainStep, its metrics added to the compiled ones.
  absl::Status RemoteTrainBatch(distribute::ParameterServerTraining& ps,
                                const data::Element& element);
  // The test step a worker of a parameter-server job runs: the batches of
  // one execution from `iterator` (`arguments` as kRemoteTestStep says),
  // each with the variables pulled from the ps; returns their metric
  // states as RemoteTrainStep does. OUT_OF_RANGE when the iterator is
  // exhausted before the first batch; after it, the batches that ran.
  absl::StatusOr<std::vector<Tensor>> RemoteTestStep(distribute::ParameterServerTraining& ps,
                                                     data::Iterator* iterator,
                                                     const std::vector<Tensor>& arguments);
  // The (total, count) of the loss tracker and of every compiled metric,
  // in metrics_names() order: what a remote step returns.
  absl::StatusOr<std::vector<Tensor>> MetricStates() const;
  // The chief's evaluation loop over the workers' datasets `dataset`
  // (Evaluate(creator) and Fit's validation_creator).
  absl::StatusOr<Logs> EvaluateOnWorkers(distribute::ParameterServerTraining& ps,
                                         const std::string& dataset, std::optional<int64_t> steps,
                                         Callback& callbacks);
  absl::StatusOr<std::shared_ptr<History>> FitOnParameterServers(
      distribute::ParameterServerTraining& ps, const DatasetCreator& creator, FitOptions options);
  // The chief's local copies of the ps's variables brought up to date.
  absl::Status PullFromParameterServers();
  // The optimizer's slots and iterations to the ps tasks (push) or from
  // them, so that checkpoints of the chief hold the ps's optimizer state.
  absl::Status ExchangeOptimizerState(distribute::ParameterServerTraining& ps,
                                      const distribute::RemoteUpdateRule& rule, bool push);
  // Each step's outputs, per replica in replica order, appended to `out`.
  absl::Status PredictExecution(const std::vector<StepInput>& steps, std::vector<Tensor>* out);
  // Builds the metrics named in Compile from the first step's shapes (in a
  // MergeCall) when they are not built yet.
  absl::Status MaybeBuildMetrics(distribute::ReplicaContext& ctx, bool build, const Tensor& y,
                                 const Tensor& y_pred);
  absl::Status ResetMetrics();
  // "loss" and the metrics' results, read in cross-replica context.
  absl::StatusOr<Logs> MetricLogs() const;
  // The evaluation loop shared by Evaluate and Fit's validation.
  absl::StatusOr<Logs> RunEvaluation(const data::DatasetPtr& dataset,
                                     std::optional<int64_t> steps, Callback& callbacks);
  // What Fit's callbacks start with: the History, and where training
  // begins (a restored backup's resume point, else initial_epoch).
  struct FitStart {
    std::shared_ptr<History> history;
    int first_epoch = 0;
    int64_t first_step = 0;
  };
  // The set-up both Fits share: the user's callbacks with the defaults in
  // `callbacks`, their model and params, stop_training cleared, then
  // OnTrainBegin (where BackupAndRestore may call ResumeFitAt).
  absl::StatusOr<FitStart> BeginFit(const FitOptions& options, std::optional<int64_t> steps,
                                    CallbackList* callbacks);
  // The default callbacks added to the user's: History and ProgbarLogger
  // (when verbose), as Keras's CallbackList does.
  absl::StatusOr<std::shared_ptr<History>> AddDefaultCallbacks(
      const std::vector<std::shared_ptr<Callback>>& user, int verbose, bool add_history,
      CallbackList* list);

  std::shared_ptr<Optimizer> optimizer_;
  std::shared_ptr<CompiledLoss> compiled_loss_;
  std::shared_ptr<CompiledMetrics> compiled_metrics_;
  int steps_per_execution_ = 1;
  distribute::Strategy* strategy_ = nullptr;
  std::shared_ptr<History> history_;
  std::atomic<bool> stop_training_{false};
  // Set by ResumeFitAt: (epoch, step).
  std::optional<std::pair<int, int64_t>> resume_point_;
};

// Keras's layer.output_shape as the summary prints it: the shape of the
// layer's calls when they agree ("multiple" when they differ or there are
// none); an InputLayer's in a list, "[(None, 8)]".
std::string OutputShapeText(const Layer& layer);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_MODEL_H_
