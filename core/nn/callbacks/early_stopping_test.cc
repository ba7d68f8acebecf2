// EarlyStopping against tf-keras 2.21: each case's expectations are what
// tf_keras.callbacks.EarlyStopping gives for the same monitored sequence.
#include "core/nn/callbacks/early_stopping.h"

#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

// A Dense(1) model whose kernel the test sets to the epoch number, so the
// restored weights tell which epoch they come from.
std::shared_ptr<Sequential> TinyModel() {
  ClearSession();
  auto model = Sequential::Make({MakeInputLayer({kNone, 1}), std::make_shared<Dense>(1)});
  EXPECT_TRUE(model.ok()) << model.status();
  return *model;
}

void SetKernel(Model& model, float value) {
  ASSERT_OK(model.weights()[0]->AssignAll(*Tensor::FromVector<float>({value}, {1, 1})));
}

float Kernel(const Model& model) {
  return tfd::test::ToHost(model.weights()[0]->component(0).Peek()).data<float>()[0];
}

struct Outcome {
  int stop_at = -1;  // the epoch after which stop_training was set; -1: never
  std::shared_ptr<EarlyStopping> callback;
  float kernel_after = 0;
};

// Feeds `sequence` as logs[monitor] epoch by epoch until the callback stops
// training, then ends training.
Outcome Drive(EarlyStoppingOptions options, const std::vector<double>& sequence) {
  Outcome outcome;
  auto model = TinyModel();
  auto callback = EarlyStopping::Create(options);
  EXPECT_TRUE(callback.ok()) << callback.status();
  outcome.callback = *callback;
  outcome.callback->SetModel(model.get());
  EXPECT_TRUE(outcome.callback->OnTrainBegin(Logs()).ok());
  for (size_t epoch = 0; epoch < sequence.size(); ++epoch) {
    SetKernel(*model, static_cast<float>(epoch));
    Logs logs{{"loss", 9.0}, {options.monitor, sequence[epoch]}};
    EXPECT_TRUE(outcome.callback->OnEpochEnd(static_cast<int>(epoch), logs).ok());
    if (model->stop_training()) {
      outcome.stop_at = static_cast<int>(epoch);
      break;
    }
  }
  Logs end;
  EXPECT_TRUE(outcome.callback->OnTrainEnd(end).ok());
  outcome.kernel_after = Kernel(*model);
  return outcome;
}

EarlyStoppingOptions Monitor(const std::string& monitor, int patience) {
  EarlyStoppingOptions options;
  options.monitor = monitor;
  options.patience = patience;
  return options;
}

TEST(EarlyStoppingTest, StopsAfterPatienceEpochsWithoutImprovement) {
  Outcome o = Drive(Monitor("val_loss", 2), {1.0, 0.9, 0.95, 0.97, 0.99, 0.5});
  EXPECT_EQ(o.stop_at, 3);
  EXPECT_EQ(o.callback->stopped_epoch(), 3);
  EXPECT_EQ(o.callback->best(), 0.9);
  EXPECT_EQ(o.callback->best_epoch(), 1);
  EXPECT_EQ(o.callback->wait(), 2);
  EXPECT_EQ(o.kernel_after, 3.0f);  // no restore asked
}

TEST(EarlyStoppingTest, AutoModeMaximizesAccuracy) {
  Outcome o = Drive(Monitor("val_accuracy", 1), {0.5, 0.6, 0.55, 0.7});
  EXPECT_EQ(o.stop_at, 2);
  EXPECT_EQ(o.callback->best(), 0.6);
  EXPECT_EQ(o.callback->best_epoch(), 1);
}

TEST(EarlyStoppingTest, MinDeltaIgnoresSmallImprovements) {
  EarlyStoppingOptions options = Monitor("loss", 1);
  options.min_delta = -0.1;  // its absolute value counts
  Outcome o = Drive(options, {1.0, 0.95, 0.85, 0.8});
  EXPECT_EQ(o.stop_at, 1);
  EXPECT_EQ(o.callback->best(), 1.0);
}

TEST(EarlyStoppingTest, ExplicitMaxMode) {
  EarlyStoppingOptions options = Monitor("loss", 0);
  options.mode = "max";
  Outcome o = Drive(options, {1.0, 2.0, 1.5});
  EXPECT_EQ(o.stop_at, 2);
  EXPECT_EQ(o.callback->best(), 2.0);
}

TEST(EarlyStoppingTest, ImprovementsShortOfTheBaselineNeverStop) {
  EarlyStoppingOptions options = Monitor("val_loss", 1);
  options.baseline = 0.5;
  Outcome o = Drive(options, {0.9, 0.8, 0.7, 0.6});
  EXPECT_EQ(o.stop_at, -1);
  EXPECT_EQ(o.callback->stopped_epoch(), 0);
  EXPECT_EQ(o.callback->wait(), 4);
  EXPECT_EQ(o.callback->best_epoch(), 3);
}

TEST(EarlyStoppingTest, StartFromEpochSkipsEarlyEpochs) {
  EarlyStoppingOptions options = Monitor("val_loss", 0);
  options.start_from_epoch = 2;
  Outcome o = Drive(options, {1.0, 2.0, 3.0, 4.0});
  EXPECT_EQ(o.stop_at, 3);
  EXPECT_EQ(o.callback->best(), 3.0);
  EXPECT_EQ(o.callback->best_epoch(), 2);
}

TEST(EarlyStoppingTest, RestoresTheBestEpochsWeights) {
  EarlyStoppingOptions options = Monitor("val_loss", 1);
  options.restore_best_weights = true;
  Outcome o = Drive(options, {1.0, 0.5, 0.7, 0.8, 0.9});
  EXPECT_EQ(o.stop_at, 2);
  EXPECT_EQ(o.callback->best_epoch(), 1);
  EXPECT_EQ(o.kernel_after, 1.0f);
}

TEST(EarlyStoppingTest, MissingMonitorIsSkipped) {
  auto model = TinyModel();
  ASSERT_OK_AND_ASSIGN(auto callback, EarlyStopping::Create(Monitor("val_loss", 0)));
  callback->SetModel(model.get());
  ASSERT_OK(callback->OnTrainBegin(Logs()));
  for (int epoch = 0; epoch < 3; ++epoch) {
    Logs logs{{"loss", 1.0 + epoch}};
    ASSERT_OK(callback->OnEpochEnd(epoch, logs));
  }
  EXPECT_FALSE(model->stop_training());
  EXPECT_EQ(callback->wait(), 0);
}

TEST(EarlyStoppingTest, RefusesBadOptions) {
  EarlyStoppingOptions options;
  options.mode = "biggest";
  EXPECT_EQ(EarlyStopping::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options = EarlyStoppingOptions();
  options.patience = -1;
  EXPECT_EQ(EarlyStopping::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options = EarlyStoppingOptions();
  options.monitor = "";
  EXPECT_EQ(EarlyStopping::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
