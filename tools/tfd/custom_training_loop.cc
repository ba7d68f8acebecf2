#include "tools/tfd/custom_training_loop.h"

#include "core/autodiff/gradient_tape.h"
#include "core/distribute/reduce_op.h"
#include "core/framework/status.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses_utils.h"

namespace tfd {
namespace cli {
namespace {

nn::SparseCategoricalCrossentropy::Options PerExampleLoss() {
  nn::SparseCategoricalCrossentropy::Options options;
  options.from_logits = true;
  options.reduction = nn::Reduction::kNone;
  return options;
}

}  // namespace

CustomTrainingLoop::CustomTrainingLoop(distribute::Strategy* strategy,
                                       std::shared_ptr<nn::Model> model)
    : strategy_(strategy), model_(std::move(model)), loss_object_(PerExampleLoss()) {}

absl::StatusOr<std::unique_ptr<CustomTrainingLoop>> CustomTrainingLoop::Create(
    distribute::Strategy* strategy, std::shared_ptr<nn::Model> model, float learning_rate) {
  if (strategy == nullptr || model == nullptr) {
    return InvalidArgument("CustomTrainingLoop needs a strategy and a model");
  }
  std::unique_ptr<CustomTrainingLoop> loop(new CustomTrainingLoop(strategy, std::move(model)));
  // Optimizer slots and metric state are created under the strategy, as
  // the tutorial creates them inside strategy.scope().
  distribute::StrategyScope scope(strategy);
  nn::AdamOptions adam;
  adam.learning_rate = learning_rate;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<nn::Adam> plain, nn::Adam::Create(adam));
  TFD_ASSIGN_OR_RETURN(loop->optimizer_,
                       nn::WrapOptimizerForPolicy(std::shared_ptr<nn::Optimizer>(std::move(plain)),
                                                  loop->model_->dtype_policy()));
  TFD_ASSIGN_OR_RETURN(loop->train_accuracy_,
                       nn::SparseCategoricalAccuracy::Create("train_accuracy"));
  TFD_ASSIGN_OR_RETURN(loop->test_loss_, nn::Mean::Create("test_loss"));
  TFD_ASSIGN_OR_RETURN(loop->test_accuracy_,
                       nn::SparseCategoricalAccuracy::Create("test_accuracy"));
  // Slots now, in cross-replica context, rather than lazily in the first step.
  std::vector<distribute::DistributedVariable*> vars;
  for (const nn::Weight& w : loop->model_->TrainableVariables()) vars.push_back(w.get());
  TFD_RETURN_IF_ERROR(loop->optimizer_->Build(vars));
  return loop;
}

absl::StatusOr<data::DistributedDatasetPtr> CustomTrainingLoop::DistributeDataset(
    data::DatasetPtr dataset) const {
  data::DistributeOptions options;
  options.num_workers = strategy_->num_workers();
  options.worker_index = strategy_->worker_rank();
  // Batches for GPU replicas are copied to them ahead of each step.
  const std::vector<Device*> devices = strategy_->replica_devices();
  if (static_cast<int>(devices.size()) == strategy_->num_local_replicas()) {
    options.input_options.replica_devices = devices;
  }
  return data::DistributeDataset(std::move(dataset), strategy_->num_replicas_in_sync(), options);
}

absl::StatusOr<std::vector<int64_t>> CustomTrainingLoop::LocalBatchSizes(
    const std::vector<data::Element>& per_replica) const {
  const int replicas = strategy_->num_local_replicas();
  if (static_cast<int>(per_replica.size()) != replicas) {
    return InvalidArgument("expected one batch per local replica (", replicas, "), got ",
                           per_replica.size());
  }
  std::vector<int64_t> rows;
  for (const data::Element& batch : per_replica) {
    if (batch.size() != 2 || batch[0].rank() < 1 || batch[1].rank() != 1 ||
        batch[0].dim(0) != batch[1].dim(0)) {
      return InvalidArgument("expected (images [b, ...], labels [b]) per replica, got ",
                             batch.size(), " tensors");
    }
    rows.push_back(batch[0].dim(0));
  }
  return rows;
}

absl::StatusOr<int64_t> CustomTrainingLoop::GlobalBatchSize(
    const std::vector<data::Element>& per_replica) {
  TFD_ASSIGN_OR_RETURN(std::vector<int64_t> rows, LocalBatchSizes(per_replica));
  if (strategy_->num_workers() == 1) {
    int64_t total = 0;
    for (int64_t r : rows) total += r;
    return total;
  }
  // The other workers' pieces of a partial batch are not seen here: a
  // job-wide sum tells every worker the same total.
  std::vector<Tensor> parts;
  for (int64_t r : rows) parts.push_back(Tensor::Scalar<int64_t>(r));
  TFD_ASSIGN_OR_RETURN(Tensor total, strategy_->Reduce(distribute::ReduceOp::kSum, parts));
  return total.scalar<int64_t>();
}

int CustomTrainingLoop::LocalReplica(const distribute::ReplicaContext& ctx) const {
  // Replica ids are global under a multi-worker strategy: worker w's
  // start at w * num_local_replicas.
  return ctx.replica_id_in_sync_group() % strategy_->num_local_replicas();
}

absl::StatusOr<double> CustomTrainingLoop::MetricResult(const nn::Metric& metric) const {
  distribute::StrategyScope scope(strategy_);
  TFD_ASSIGN_OR_RETURN(Tensor value, metric.Result());
  return value.scalar<float>();
}

absl::StatusOr<Tensor> CustomTrainingLoop::TrainStep(const data::Element& batch,
                                                     int64_t global_batch_size) {
  const Tensor& images = batch[0];
  const Tensor& labels = batch[1];
  const std::vector<nn::Weight> vars = model_->TrainableVariables();
  GradientTape tape;
  TFD_ASSIGN_OR_RETURN(Tensor logits, model_->Call(images, /*training=*/true));
  TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_object_.Call(labels, logits));
  // Divided by the global batch, so that summing the replicas' gradients
  // (Minimize all-reduces with SUM, during the backward pass when the
  // strategy overlaps) gives the global batch's mean.
  TFD_ASSIGN_OR_RETURN(Tensor loss, nn::ComputeAverageLoss(per_example, global_batch_size));
  TFD_RETURN_IF_ERROR(optimizer_->Minimize(loss, vars, tape));
  TFD_RETURN_IF_ERROR(train_accuracy_->Update(labels, logits));
  return loss;
}

absl::StatusOr<float> CustomTrainingLoop::DistributedTrainStep(
    const std::vector<data::Element>& per_replica) {
  TFD_ASSIGN_OR_RETURN(int64_t global_batch, GlobalBatchSize(per_replica));
  TFD_ASSIGN_OR_RETURN(
      distribute::PerReplica out,
      strategy_->Run([&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
        TFD_ASSIGN_OR_RETURN(Tensor loss,
                             TrainStep(per_replica[LocalReplica(ctx)], global_batch));
        return std::vector<Tensor>{loss};
      }));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> losses, strategy_->ExperimentalLocalResults(out, 0));
  TFD_ASSIGN_OR_RETURN(Tensor loss, strategy_->Reduce(distribute::ReduceOp::kSum, losses));
  return loss.scalar<float>();
}

absl::Status CustomTrainingLoop::TestStep(const data::Element& batch) {
  TFD_ASSIGN_OR_RETURN(Tensor logits, model_->Call(batch[0], /*training=*/false));
  TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_object_.Call(batch[1], logits));
  TFD_RETURN_IF_ERROR(test_loss_->Update(per_example));
  return test_accuracy_->Update(batch[1], logits);
}

absl::Status CustomTrainingLoop::DistributedTestStep(
    const std::vector<data::Element>& per_replica) {
  TFD_RETURN_IF_ERROR(LocalBatchSizes(per_replica).status());
  return strategy_
      ->Run([&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
        TFD_RETURN_IF_ERROR(TestStep(per_replica[LocalReplica(ctx)]));
        return std::vector<Tensor>{};
      })
      .status();
}

}  // namespace cli
}  // namespace tfd
