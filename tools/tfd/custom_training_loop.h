// A custom training loop under a tf.distribute strategy, written as
// TensorFlow's "Custom training with tf.distribute.Strategy" tutorial
// writes it:
//
//   train_step(inputs)            on each replica: forward under a tape,
//                                 per-example loss, ComputeAverageLoss over
//                                 the GLOBAL batch, optimizer.Minimize
//                                 (gradients all-reduced during the backward
//                                 pass, then applied), train accuracy;
//   DistributedTrainStep(inputs)  strategy.Run(train_step), then
//                                 strategy.Reduce(SUM) of the replicas'
//                                 losses: the global batch's mean loss;
//   test_step / DistributedTestStep  the same without gradients, into the
//                                 test loss and accuracy metrics.
//
// The optimizer (Adam) and the metrics are created in the strategy's scope,
// so their variables are mirrored like the model's. The model must have
// been built in that scope too. Under the model's mixed_float16 policy the
// optimizer is a LossScaleOptimizer around the Adam, as Keras's compile()
// makes it and as TensorFlow's mixed-precision guide has a custom loop
// make it: Minimize scales the loss and unscales the gradients.
//
// Under MultiWorkerMirroredStrategy every worker runs the same loop on its
// own replicas, as a TensorFlow custom loop under that strategy does:
// DistributeDataset gives each worker its share of every global batch
// (strategy.experimental_distribute_dataset), a step's global batch is the
// job's (one scalar sum across the workers per step, so a final partial
// batch is averaged over the rows the whole job got), the optimizer's
// all-reduce and Reduce span every worker, and metrics read through
// MetricResult hold the whole job's counts. Every worker must call the
// same steps and read the same metrics in the same order: each is a
// collective.
//
// Thread safety: one loop is driven by one thread; its steps run on the
// strategy's replica threads.
//
//   TFD_ASSIGN_OR_RETURN(auto loop, CustomTrainingLoop::Create(strategy, model));
//   TFD_ASSIGN_OR_RETURN(auto train, loop->DistributeDataset(global_batches));
//   for (each step of train's iterator) {
//     TFD_ASSIGN_OR_RETURN(float loss, loop->DistributedTrainStep(per_replica_batches));
//   }
//   TFD_ASSIGN_OR_RETURN(double accuracy, loop->MetricResult(loop->train_accuracy()));
#ifndef TFD_TOOLS_TFD_CUSTOM_TRAINING_LOOP_H_
#define TFD_TOOLS_TFD_CUSTOM_TRAINING_LOOP_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"
#include "core/data/distributed_dataset.h"
#include "core/distribute/strategy.h"
#include "core/nn/adam.h"
#include "core/nn/losses.h"
#include "core/nn/optimizer.h"
#include "core/nn/metrics.h"
#include "core/nn/metrics_accuracy.h"
#include "core/nn/model.h"

namespace tfd {
namespace cli {

class CustomTrainingLoop {
 public:
  // A loop training `model` (logits [batch, classes] from images) with Adam
  // at `learning_rate` (loss-scaled under a mixed_float16 model) and
  // SparseCategoricalCrossentropy(from_logits).
  // `strategy` and `model` must outlive the loop.
  static absl::StatusOr<std::unique_ptr<CustomTrainingLoop>> Create(
      distribute::Strategy* strategy, std::shared_ptr<nn::Model> model,
      float learning_rate = 0.001f);

  // strategy.experimental_distribute_dataset: each global batch of
  // `dataset` split between every replica of every worker, this worker
  // iterating its own replicas' pieces (core/data/distributed_dataset.h).
  // DistributeDataset's errors.
  absl::StatusOr<data::DistributedDatasetPtr> DistributeDataset(data::DatasetPtr dataset) const;

  // One training step. `per_replica` holds one (images, labels) batch per
  // local replica (DistributedIterator::GetNext); replicas may get empty
  // batches at the end of the data. Returns the mean loss over the global
  // batch of the whole job. INVALID_ARGUMENT when there is not one batch
  // per local replica or a batch is not (images, labels); model, loss,
  // optimizer and collective errors (a lost worker) pass through.
  absl::StatusOr<float> DistributedTrainStep(const std::vector<data::Element>& per_replica);

  // One evaluation step: updates the test loss and accuracy. Errors as above.
  absl::Status DistributedTestStep(const std::vector<data::Element>& per_replica);

  // A metric's result in cross-replica context under the strategy: under
  // MultiWorkerMirroredStrategy the sum of every worker's counts (a
  // collective). The metric's errors pass through.
  absl::StatusOr<double> MetricResult(const nn::Metric& metric) const;

  nn::Optimizer& optimizer() const { return *optimizer_; }
  nn::SparseCategoricalAccuracy& train_accuracy() const { return *train_accuracy_; }
  nn::Mean& test_loss() const { return *test_loss_; }
  nn::SparseCategoricalAccuracy& test_accuracy() const { return *test_accuracy_; }

 private:
  CustomTrainingLoop(distribute::Strategy* strategy, std::shared_ptr<nn::Model> model);

  // The rows of one step's local batches; INVALID_ARGUMENT as above.
  absl::StatusOr<std::vector<int64_t>> LocalBatchSizes(
      const std::vector<data::Element>& per_replica) const;
  // The rows of the step across the whole job (smaller than the configured
  // batch on the last, partial step).
  absl::StatusOr<int64_t> GlobalBatchSize(const std::vector<data::Element>& per_replica);
  // The index into a step's batches of the replica running `ctx`.
  int LocalReplica(const distribute::ReplicaContext& ctx) const;
  // What one replica computes in a training step: its share of the loss.
  absl::StatusOr<Tensor> TrainStep(const data::Element& batch, int64_t global_batch_size);
  absl::Status TestStep(const data::Element& batch);

  distribute::Strategy* const strategy_;
  const std::shared_ptr<nn::Model> model_;
  // Per-example losses: the reduction is ours to do (ComputeAverageLoss).
  const nn::SparseCategoricalCrossentropy loss_object_;
  // Adam, or a LossScaleOptimizer around it (mixed_float16).
  std::shared_ptr<nn::Optimizer> optimizer_;
  std::unique_ptr<nn::SparseCategoricalAccuracy> train_accuracy_;
  std::unique_ptr<nn::Mean> test_loss_;
  std::unique_ptr<nn::SparseCategoricalAccuracy> test_accuracy_;
};

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_CUSTOM_TRAINING_LOOP_H_
