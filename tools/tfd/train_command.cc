#include "tools/tfd/train_command.h"

#include <chrono>
#include <memory>

#include "core/data/distributed_dataset.h"
#include "core/framework/status.h"
#include "core/kernels/random_seed.h"
#include "tools/tfd/custom_training_loop.h"
#include "tools/tfd/fashion_mnist.h"
#include "tools/tfd/fashion_models.h"
#include "tools/tfd/strategy_factory.h"

namespace tfd {
namespace cli {
namespace {

struct Inputs {
  data::DistributedDatasetPtr train;
  data::DistributedDatasetPtr test;
};

absl::StatusOr<float> ResultOf(const nn::Metric& metric) {
  TFD_ASSIGN_OR_RETURN(Tensor value, metric.Result());
  return value.scalar<float>();
}

// The epochs of the custom loop, reported as the tutorial prints them.
absl::Status TrainWithCustomLoop(const TrainFlags& flags, distribute::Strategy& strategy,
                                 std::shared_ptr<nn::Model> model, const Inputs& inputs,
                                 std::FILE* out) {
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<CustomTrainingLoop> loop,
                       CustomTrainingLoop::Create(&strategy, model));
  for (int epoch = 1; epoch <= flags.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double total_loss = 0;
    int64_t num_batches = 0;
    TFD_ASSIGN_OR_RETURN(auto train_it, inputs.train->MakeIterator());
    while (true) {
      TFD_ASSIGN_OR_RETURN(auto step, train_it->GetNext());
      if (!step) break;
      TFD_ASSIGN_OR_RETURN(float loss, loop->DistributedTrainStep(*step));
      total_loss += loss;
      ++num_batches;
    }
    TFD_ASSIGN_OR_RETURN(auto test_it, inputs.test->MakeIterator());
    while (true) {
      TFD_ASSIGN_OR_RETURN(auto step, test_it->GetNext());
      if (!step) break;
      TFD_RETURN_IF_ERROR(loop->DistributedTestStep(*step));
    }
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    TFD_ASSIGN_OR_RETURN(float train_accuracy, ResultOf(loop->train_accuracy()));
    TFD_ASSIGN_OR_RETURN(float test_loss, ResultOf(loop->test_loss()));
    TFD_ASSIGN_OR_RETURN(float test_accuracy, ResultOf(loop->test_accuracy()));
    std::fprintf(out, "Epoch %d, Loss: %.4f, Accuracy: %.2f, Test Loss: %.4f, "
                 "Test Accuracy: %.2f (%.0fs)\n",
                 epoch, total_loss / std::max<int64_t>(num_batches, 1), 100 * train_accuracy,
                 test_loss, 100 * test_accuracy, seconds);
    std::fflush(out);
    if (epoch == flags.epochs) {
      std::fprintf(out, "test_loss: %.4f - test_accuracy: %.4f\n", test_loss, test_accuracy);
    }
    TFD_RETURN_IF_ERROR(loop->train_accuracy().Reset());
    TFD_RETURN_IF_ERROR(loop->test_loss().Reset());
    TFD_RETURN_IF_ERROR(loop->test_accuracy().Reset());
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunTrain(const TrainFlags& flags, std::FILE* out) {
  if (!flags.logdir.empty()) {
    return absl::UnimplementedError(
        "--logdir: TensorBoard and CSV logs are not written yet (they come with the Keras "
        "callbacks)");
  }
  TFD_ASSIGN_OR_RETURN(FashionMnistSplit train, LoadFashionMnist(flags.data_dir, "train"));
  TFD_ASSIGN_OR_RETURN(FashionMnistSplit test, LoadFashionMnist(flags.data_dir, "t10k"));
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::Strategy> strategy,
                       MakeStrategy(flags.strategy, flags.replicas));
  const int replicas = strategy->num_replicas_in_sync();
  std::fprintf(out, "%s with %d replica%s; %lld training and %lld test images, global batch %lld\n",
               strategy->name().c_str(), replicas, replicas == 1 ? "" : "s",
               static_cast<long long>(train.labels.dim(0)),
               static_cast<long long>(test.labels.dim(0)),
               static_cast<long long>(flags.batch_size));

  // The global seed makes the initial weights reproducible, as
  // tf.random.set_seed does; the dataset's shuffle takes the same seed.
  SetRandomSeed(flags.seed);
  std::shared_ptr<nn::Sequential> model;
  {
    distribute::StrategyScope scope(strategy.get());
    TFD_ASSIGN_OR_RETURN(model, MakeFashionModel(flags.model));
  }
  TFD_RETURN_IF_ERROR(model->Summary([out](const std::string& line) {
    std::fprintf(out, "%s\n", line.c_str());
  }));

  Inputs inputs;
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr train_ds,
                       TrainingDataset(train, flags.batch_size, flags.seed));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr test_ds, EvaluationDataset(test, flags.batch_size));
  TFD_ASSIGN_OR_RETURN(inputs.train, data::DistributeDataset(train_ds, replicas));
  TFD_ASSIGN_OR_RETURN(inputs.test, data::DistributeDataset(test_ds, replicas));
  return TrainWithCustomLoop(flags, *strategy, model, inputs, out);
}

}  // namespace cli
}  // namespace tfd
