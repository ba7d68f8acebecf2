#include "tools/tfd/custom_training_loop.h"

#include "core/autodiff/gradient_tape.h"
#include "core/framework/status.h"
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

// The global batch of one step: the sum of the replicas' batches (smaller
// than the configured batch size on the last, partial step).
absl::StatusOr<int64_t> GlobalBatchSize(const std::vector<data::Element>& per_replica,
                                        int num_replicas) {
  if (static_cast<int>(per_replica.size()) != num_replicas) {
    return InvalidArgument("expected one batch per replica (", num_replicas, "), got ",
                           per_replica.size());
  }
  int64_t total = 0;
  for (const data::Element& batch : per_replica) {
    if (batch.size() != 2 || batch[0].rank() < 1 || batch[1].rank() != 1 ||
        batch[0].dim(0) != batch[1].dim(0)) {
      return InvalidArgument("expected (images [b, ...], labels [b]) per replica, got ",
                             batch.size(), " tensors");
    }
    total += batch[0].dim(0);
  }
  return total;
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
  TFD_ASSIGN_OR_RETURN(loop->optimizer_, nn::Adam::Create(adam));
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

absl::StatusOr<Tensor> CustomTrainingLoop::TrainStep(const data::Element& batch,
                                                     int64_t global_batch_size) {
  const Tensor& images = batch[0];
  const Tensor& labels = batch[1];
  const std::vector<nn::Weight> vars = model_->TrainableVariables();
  GradientTape tape;
  TFD_ASSIGN_OR_RETURN(Tensor logits, model_->Call(images, /*training=*/true));
  TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_object_.Call(labels, logits));
  // Divided by the global batch, so that summing the replicas' gradients
  // (ApplyGradients all-reduces with SUM) gives the global batch's mean.
  TFD_ASSIGN_OR_RETURN(Tensor loss, nn::ComputeAverageLoss(per_example, global_batch_size));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads, tape.Gradient(loss, nn::LocalVariables(vars)));
  TFD_RETURN_IF_ERROR(optimizer_->ApplyGradients(grads, vars));
  TFD_RETURN_IF_ERROR(train_accuracy_->Update(labels, logits));
  return loss;
}

absl::StatusOr<float> CustomTrainingLoop::DistributedTrainStep(
    const std::vector<data::Element>& per_replica) {
  TFD_ASSIGN_OR_RETURN(int64_t global_batch,
                       GlobalBatchSize(per_replica, strategy_->num_replicas_in_sync()));
  TFD_ASSIGN_OR_RETURN(
      distribute::PerReplica out,
      strategy_->Run([&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
        TFD_ASSIGN_OR_RETURN(Tensor loss,
                             TrainStep(per_replica[ctx.replica_id_in_sync_group()], global_batch));
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
  TFD_RETURN_IF_ERROR(GlobalBatchSize(per_replica, strategy_->num_replicas_in_sync()).status());
  return strategy_
      ->Run([&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
        TFD_RETURN_IF_ERROR(TestStep(per_replica[ctx.replica_id_in_sync_group()]));
        return std::vector<Tensor>{};
      })
      .status();
}

}  // namespace cli
}  // namespace tfd
