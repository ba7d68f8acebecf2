// LearningRateScheduler on a compiled model: the rate it sets, the "lr"
// it logs, Keras's verbose message (the numbers tf-keras 2.21 prints for
// the same schedule), and through Fit.
#include "core/nn/callbacks/learning_rate_scheduler.h"

#include <cstdio>

#include "core/data/transforms.h"
#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/learning_rate_schedule.h"
#include "core/nn/losses.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

std::shared_ptr<Sequential> CompiledModel(LearningRate rate) {
  ClearSession();
  auto model = Sequential::Make({MakeInputLayer({kNone, 2}), std::make_shared<Dense>(2)});
  EXPECT_TRUE(model.ok()) << model.status();
  SGDOptions sgd;
  sgd.learning_rate = rate;
  auto optimizer = SGD::Create(sgd);
  EXPECT_TRUE(optimizer.ok()) << optimizer.status();
  SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  EXPECT_TRUE((*model)
                  ->Compile({std::shared_ptr<Optimizer>(std::move(*optimizer)),
                             std::make_shared<SparseCategoricalCrossentropy>(loss),
                             {"accuracy"}})
                  .ok());
  return *model;
}

LearningRateScheduler::Schedule Halve() {
  return [](int epoch, double lr) -> absl::StatusOr<double> { return lr * 0.5; };
}

TEST(LearningRateSchedulerTest, SetsTheRateEachEpochAndLogsIt) {
  auto model = CompiledModel(0.1f);
  LearningRateScheduler scheduler(Halve());
  scheduler.SetModel(model.get());
  for (int epoch = 0; epoch < 2; ++epoch) {
    ASSERT_OK(scheduler.OnEpochBegin(epoch, Logs()));
    Logs logs{{"loss", 1.0}};
    ASSERT_OK(scheduler.OnEpochEnd(epoch, logs));
    const float expected = static_cast<float>(0.1f * (epoch == 0 ? 0.5 : 0.25));
    ASSERT_OK_AND_ASSIGN(float rate, model->optimizer()->CurrentLearningRate());
    EXPECT_EQ(rate, expected);
    EXPECT_EQ(logs.Get("lr"), static_cast<double>(expected));
  }
}

TEST(LearningRateSchedulerTest, VerboseMessageAsKerasPrintsIt) {
  auto model = CompiledModel(0.1f);
  std::FILE* out = std::tmpfile();
  ASSERT_NE(out, nullptr);
  LearningRateScheduler scheduler(Halve(), /*verbose=*/1, out);
  scheduler.SetModel(model.get());
  ASSERT_OK(scheduler.OnEpochBegin(0, Logs()));
  std::rewind(out);
  char buf[256] = {0};
  const size_t n = std::fread(buf, 1, sizeof(buf) - 1, out);
  std::fclose(out);
  // Keras reads the float32 variable (0.10000000149011612) and halves it.
  EXPECT_EQ(std::string(buf, n),
            "\nEpoch 1: LearningRateScheduler setting learning rate to 0.05000000074505806.\n");
}

TEST(LearningRateSchedulerTest, DrivenByFit) {
  auto model = CompiledModel(0.1f);
  Tensor x(DT_FLOAT, {8, 2});
  for (float& v : x.flat<float>()) v = 0.25f;
  Tensor y(DT_INT32, {8});
  for (int32_t& v : y.flat<int32_t>()) v = 1;
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, data::FromTensorSlices({x, y}));
  ASSERT_OK_AND_ASSIGN(ds, data::Batch(ds, 4, /*drop_remainder=*/false));
  FitOptions fit;
  fit.epochs = 3;
  fit.verbose = 0;
  fit.callbacks = {std::make_shared<LearningRateScheduler>(
      [](int epoch, double lr) -> absl::StatusOr<double> { return epoch < 1 ? lr : lr * 0.1; })};
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<History> history, model->Fit(ds, fit));
  const std::vector<double> lr = history->Get("lr");
  ASSERT_EQ(lr.size(), 3u);
  EXPECT_EQ(lr[0], static_cast<double>(0.1f));
  EXPECT_EQ(lr[1], static_cast<double>(static_cast<float>(static_cast<double>(0.1f) * 0.1)));
  EXPECT_FLOAT_EQ(lr[2], 0.001f);
}

TEST(LearningRateSchedulerTest, RefusesWhatItCannotSet) {
  // No optimizer: the model was never compiled.
  ClearSession();
  auto plain = Sequential::Make({MakeInputLayer({kNone, 2}), std::make_shared<Dense>(2)});
  ASSERT_TRUE(plain.ok());
  LearningRateScheduler scheduler(Halve());
  scheduler.SetModel(plain->get());
  EXPECT_EQ(scheduler.OnEpochBegin(0, Logs()).code(), absl::StatusCode::kFailedPrecondition);

  // An optimizer driven by a schedule.
  auto decay = ExponentialDecay::Create(0.1f, 10, 0.5f);
  ASSERT_TRUE(decay.ok()) << decay.status();
  auto scheduled = CompiledModel(*decay);
  scheduler.SetModel(scheduled.get());
  EXPECT_EQ(scheduler.OnEpochBegin(0, Logs()).code(), absl::StatusCode::kFailedPrecondition);

  // A schedule that fails, and one that returns a negative rate.
  auto model = CompiledModel(0.1f);
  LearningRateScheduler failing(
      [](int, double) -> absl::StatusOr<double> { return absl::InternalError("no rate"); });
  failing.SetModel(model.get());
  EXPECT_EQ(failing.OnEpochBegin(0, Logs()).code(), absl::StatusCode::kInternal);
  LearningRateScheduler negative([](int, double) -> absl::StatusOr<double> { return -1.0; });
  negative.SetModel(model.get());
  EXPECT_EQ(negative.OnEpochBegin(0, Logs()).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
