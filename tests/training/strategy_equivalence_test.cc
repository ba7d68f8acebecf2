// MirroredStrategy over two CPU replicas against OneDeviceStrategy, end to
// end: the Fashion-MNIST CNN trained with Adam by the custom training loop
// (tools/tfd) on the same global batches from the same seeds. For 50 steps
// the global losses agree within 1e-4 relative, and after every step the
// two mirrored copies of every variable (weights and optimizer slots) are
// bit-identical: both replicas apply the same all-reduced gradients.
//
// The data is a fixed slice of the real Fashion-MNIST images (the first 50
// global batches of the smaller t10k file, unshuffled), so the run takes
// seconds.
#include <cmath>
#include <cstring>

#include "core/data/distributed_dataset.h"
#include "core/data/transforms.h"
#include "core/kernels/random_seed.h"
#include "core/nn/layer_names.h"
#include "gtest/gtest.h"
#include "tools/tfd/custom_training_loop.h"
#include "tools/tfd/fashion_mnist.h"
#include "tools/tfd/fashion_models.h"
#include "tools/tfd/strategy_factory.h"

namespace tfd {
namespace {

constexpr int kSteps = 50;
constexpr int64_t kGlobalBatch = 16;
constexpr int64_t kSeed = 7;

// Every variable a training step writes: the model's, then the optimizer's.
std::vector<std::shared_ptr<distribute::DistributedVariable>> AllVariables(
    const nn::Model& model, const nn::Optimizer& optimizer) {
  std::vector<std::shared_ptr<distribute::DistributedVariable>> vars = model.weights();
  for (const auto& v : optimizer.variables()) vars.push_back(v);
  return vars;
}

bool SameBytes(const Tensor& a, const Tensor& b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.raw_data(), b.raw_data(), a.TotalBytes()) == 0;
}

// What one run leaves behind.
struct TrainingRun {
  std::vector<double> losses;  // the global loss of each step
  std::vector<Tensor> initial_weights;
  int64_t steps_with_diverged_copies = 0;
};

// Trains the CNN for kSteps on `slice` under strategy `name` with `replicas`.
absl::StatusOr<TrainingRun> Train(const std::string& name, int replicas,
                                  const cli::FashionMnistSplit& slice) {
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::Strategy> strategy,
                       cli::MakeStrategy(name, replicas));
  nn::ClearSession();
  SetRandomSeed(kSeed);
  std::shared_ptr<nn::Sequential> model;
  {
    distribute::StrategyScope scope(strategy.get());
    TFD_ASSIGN_OR_RETURN(model, cli::MakeFashionModel("fashion_cnn"));
  }
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<cli::CustomTrainingLoop> loop,
                       cli::CustomTrainingLoop::Create(strategy.get(), model));
  TrainingRun run;
  for (const nn::Weight& w : model->weights()) run.initial_weights.push_back(w->component(0).Peek());

  TFD_ASSIGN_OR_RETURN(data::DatasetPtr ds,
                       data::FromTensorSlices({slice.images, slice.labels}));
  TFD_ASSIGN_OR_RETURN(ds, data::Batch(ds, kGlobalBatch, /*drop_remainder=*/true));
  TFD_ASSIGN_OR_RETURN(data::DistributedDatasetPtr dist,
                       data::DistributeDataset(ds, strategy->num_replicas_in_sync()));
  TFD_ASSIGN_OR_RETURN(auto it, dist->MakeIterator());
  while (true) {
    TFD_ASSIGN_OR_RETURN(auto step, it->GetNext());
    if (!step) break;
    TFD_ASSIGN_OR_RETURN(float loss, loop->DistributedTrainStep(*step));
    run.losses.push_back(loss);
    bool diverged = false;
    for (const auto& v : AllVariables(*model, loop->optimizer())) {
      for (int c = 1; c < v->num_components(); ++c) {
        diverged |= !SameBytes(v->component(c).Peek(), v->component(0).Peek());
      }
    }
    run.steps_with_diverged_copies += diverged;
  }
  return run;
}

TEST(StrategyEquivalenceTest, MirroredTwoReplicasFollowOneDeviceForFiftySteps) {
  absl::StatusOr<cli::FashionMnistSplit> images =
      cli::LoadFashionMnist("/usr/share/datasets/fashion-mnist", "t10k");
  ASSERT_TRUE(images.ok()) << images.status() << " (tools/setup.sh installs the dataset)";
  cli::FashionMnistSplit slice;
  slice.images = *images->images.Slice(0, kSteps * kGlobalBatch);
  slice.labels = *images->labels.Slice(0, kSteps * kGlobalBatch);

  absl::StatusOr<TrainingRun> one = Train("one_device", 1, slice);
  ASSERT_TRUE(one.ok()) << one.status();
  absl::StatusOr<TrainingRun> mirrored = Train("mirrored", 2, slice);
  ASSERT_TRUE(mirrored.ok()) << mirrored.status();

  // Same seeds, same initial weights: the comparison starts from one point.
  ASSERT_EQ(one->initial_weights.size(), mirrored->initial_weights.size());
  for (size_t i = 0; i < one->initial_weights.size(); ++i) {
    ASSERT_TRUE(SameBytes(one->initial_weights[i], mirrored->initial_weights[i])) << i;
  }
  ASSERT_EQ(one->losses.size(), static_cast<size_t>(kSteps));
  ASSERT_EQ(mirrored->losses.size(), static_cast<size_t>(kSteps));
  // The model learned something (the last ten steps' mean loss is well
  // below the first ten's), so agreeing is not trivially true.
  const auto mean_of = [](const std::vector<double>& v, size_t begin) {
    double sum = 0;
    for (size_t i = begin; i < begin + 10; ++i) sum += v[i];
    return sum / 10;
  };
  EXPECT_LT(mean_of(one->losses, kSteps - 10), 0.75 * mean_of(one->losses, 0));
  for (int step = 0; step < kSteps; ++step) {
    EXPECT_NEAR(mirrored->losses[step], one->losses[step], 1e-4 * std::abs(one->losses[step]))
        << "step " << step;
  }
  EXPECT_EQ(mirrored->steps_with_diverged_copies, 0);
}

}  // namespace
}  // namespace tfd
