// Model::Fit's loop: MirroredStrategy against one device, empty replica
// batches, stop_training, steps_per_execution, steps_per_epoch,
// validation_freq, the progress lines, mixed precision and bad input.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/data/transforms.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/framework/tensor_testutil.h"
#include "core/nn/callbacks/progbar_logger.h"
#include "core/nn/dense.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "core/nn/model_fit_testutil.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using test::Values;
using namespace fit_test;  // NOLINT(build/namespaces): the shared fixtures

TEST(FitTest, MirroredTwoReplicasEqualOneDeviceOnTheSameGlobalBatch) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto strategy, distribute::MirroredStrategy::WithCpuReplicas(2));
  std::shared_ptr<Sequential> mirrored;
  {
    distribute::StrategyScope scope(strategy.get());
    ASSERT_OK_AND_ASSIGN(mirrored, MakeModel());
    ASSERT_OK(mirrored->Compile({MakeAdam(), LogitsLoss(), {"accuracy"}}));
  }
  ASSERT_OK_AND_ASSIGN(auto single, MakeModel());
  ASSERT_OK(single->Compile({MakeAdam(), LogitsLoss(), {"accuracy"}}));

  // 12 rows in global batches of 4: every replica gets 2 rows each step.
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(12, 4));
  ASSERT_OK_AND_ASSIGN(auto h2, QuietFit(*mirrored, ds, 3));
  ASSERT_OK_AND_ASSIGN(auto h1, QuietFit(*single, ds, 3));
  for (const char* key : {"loss", "accuracy"}) {
    SCOPED_TRACE(key);
    std::vector<double> a = h2->Get(key), b = h1->Get(key);
    ASSERT_EQ(a.size(), 3u);
    for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], 1e-6 * std::abs(b[i]) + 1e-7);
  }
  const std::vector<Weight> mw = mirrored->weights(), sw = single->weights();
  for (size_t i = 0; i < mw.size(); ++i) {
    SCOPED_TRACE(mw[i]->name());
    ASSERT_EQ(mw[i]->num_components(), 2);
    const std::vector<double> c0 = Values(mw[i]->component(0).Peek());
    EXPECT_EQ(c0, Values(mw[i]->component(1).Peek()));  // mirrored copies bit-identical
    const std::vector<double> one = Values(sw[i]->component(0).Peek());
    for (size_t j = 0; j < c0.size(); ++j) EXPECT_NEAR(c0[j], one[j], 1e-6);
  }

  // Evaluate and Predict split the batches too and agree with one device.
  EvaluateOptions eval;
  eval.verbose = 0;
  ASSERT_OK_AND_ASSIGN(Logs e2, mirrored->Evaluate(ds, eval));
  ASSERT_OK_AND_ASSIGN(Logs e1, single->Evaluate(ds, eval));
  EXPECT_NEAR(*e2.Get("loss"), *e1.Get("loss"), 1e-6);
  EXPECT_EQ(*e2.Get("accuracy"), *e1.Get("accuracy"));
  PredictOptions predict;
  predict.verbose = 0;
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr odd, MakeDataset(11, 4));  // last batch 3: pieces 2, 1
  ASSERT_OK_AND_ASSIGN(Tensor p2, mirrored->Predict(odd, predict));
  ASSERT_OK_AND_ASSIGN(Tensor p1, single->Predict(odd, predict));
  EXPECT_EQ(p2.shape().dims(), (std::vector<int64_t>{11, 2}));
  const std::vector<double> v2 = Values(p2), v1 = Values(p1);
  for (size_t j = 0; j < v1.size(); ++j) EXPECT_NEAR(v2[j], v1[j], 1e-6);
}

TEST(FitTest, PartialLastBatchWithAnEmptyReplicaTrains) {
  // 9 rows in batches of 4: the last global batch has one row, so replica 1
  // runs that step on an empty batch, as in TensorFlow.
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto strategy, distribute::MirroredStrategy::WithCpuReplicas(2));
  distribute::StrategyScope scope(strategy.get());
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(9, 4));
  ASSERT_OK_AND_ASSIGN(auto history, QuietFit(*model, ds, 1));
  EXPECT_EQ(*model->optimizer()->Iterations(), 3);
  ASSERT_EQ(history->Get("loss").size(), 1u);
  EXPECT_TRUE(std::isfinite(history->Get("loss")[0]));
  for (const Weight& w : model->weights()) {
    EXPECT_EQ(Values(w->component(0).Peek()), Values(w->component(1).Peek())) << w->name();
  }
}

// Asks Fit to stop after the batch `stop_batch` of epoch `stop_epoch`.
class StopAt : public Callback {
 public:
  StopAt(int epoch, int64_t batch) : epoch_(epoch), batch_(batch) {}
  absl::Status OnEpochBegin(int epoch, const Logs& logs) override {
    epoch_now_ = epoch;
    return absl::OkStatus();
  }
  absl::Status OnTrainBatchEnd(int64_t batch, Logs& logs) override {
    if (epoch_now_ == epoch_ && batch == batch_) model()->set_stop_training(true);
    return absl::OkStatus();
  }

 private:
  int epoch_, epoch_now_ = 0;
  int64_t batch_;
};

TEST(FitTest, StopTrainingEndsAfterTheCurrentBatch) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  ASSERT_OK_AND_ASSIGN(auto history, QuietFit(*model, ds, 5, {std::make_shared<StopAt>(1, 0)}));
  // Epoch 0 whole (3 steps), then one step of epoch 1; its epoch end still runs.
  EXPECT_EQ(*model->optimizer()->Iterations(), 4);
  EXPECT_EQ(history->epoch(), (std::vector<int>{0, 1}));
  EXPECT_TRUE(model->stop_training());
  // The next Fit starts afresh.
  ASSERT_OK_AND_ASSIGN(history, QuietFit(*model, ds, 1));
  EXPECT_EQ(*model->optimizer()->Iterations(), 7);
  EXPECT_FALSE(model->stop_training());
}

TEST(FitTest, StepsPerExecutionGroupsBatchesAndKeepsTheNumbers) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto grouped, MakeModel());
  ASSERT_OK(grouped->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}, /*steps_per_execution=*/2}));
  ASSERT_OK_AND_ASSIGN(auto single, MakeModel());
  ASSERT_OK(single->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  auto recorder = std::make_shared<BatchRecorder>();
  ASSERT_OK_AND_ASSIGN(auto hg, QuietFit(*grouped, ds, 2, {recorder}));
  ASSERT_OK_AND_ASSIGN(auto hs, QuietFit(*single, ds, 2));
  // Executions of steps [0, 1] and [2]: batch hooks see their last steps.
  EXPECT_EQ(recorder->batches, (std::vector<int64_t>{1, 2, 1, 2}));
  ExpectNear(hg->Get("loss"), hs->Get("loss"), 1e-7);
  ExpectNear(hg->Get("accuracy"), hs->Get("accuracy"), 1e-7);
}

TEST(FitTest, StepsPerEpochRunsOneIteratorAcrossEpochs) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));  // 3 batches
  FitOptions options;
  options.epochs = 3;
  options.verbose = 0;
  options.steps_per_epoch = 2;
  // Epoch 0 takes batches 0-1, epoch 1 batch 2 and runs out: training stops.
  ASSERT_OK_AND_ASSIGN(auto history, model->Fit(ds, options));
  EXPECT_EQ(*model->optimizer()->Iterations(), 3);
  EXPECT_EQ(history->epoch(), (std::vector<int>{0, 1}));

  ASSERT_OK_AND_ASSIGN(data::DatasetPtr repeated, data::Repeat(ds));
  ASSERT_OK_AND_ASSIGN(history, model->Fit(repeated, options));
  EXPECT_EQ(*model->optimizer()->Iterations(), 9);
  EXPECT_EQ(history->epoch(), (std::vector<int>{0, 1, 2}));
  options.steps_per_epoch.reset();
  EXPECT_EQ(model->Fit(repeated, options).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FitTest, ProgressLinesOffATerminal) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  std::string out;
  ProgbarIo io;
  io.clock = [] { return 5.0; };
  io.write = [&](absl::string_view text) { out.append(text.data(), text.size()); };
  io.dynamic_display = false;
  FitOptions options;
  options.epochs = 2;
  options.validation_data = ds;
  options.callbacks = {std::make_shared<ProgbarLogger>(io)};
  ASSERT_OK(model->Fit(ds, options).status());
  EXPECT_EQ(out,
            "Epoch 1/2\n"
            "3/3 [==============================] - 0s 0s/step - loss: 0.7118 - accuracy: "
            "0.4000 - val_loss: 0.6632 - val_accuracy: 0.7000\n"
            "Epoch 2/2\n"
            "3/3 [==============================] - 0s 0s/step - loss: 0.6559 - accuracy: "
            "0.6000 - val_loss: 0.6119 - val_accuracy: 0.7000\n");

  out.clear();
  EvaluateOptions eval;
  eval.callbacks = {std::make_shared<ProgbarLogger>(io)};
  ASSERT_OK(model->Evaluate(ds, eval).status());
  EXPECT_EQ(out, "3/3 [==============================] - 0s 0s/step - loss: 0.6119 - accuracy: "
                 "0.7000\n");
}

TEST(FitTest, BadInputGetsClearErrors) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  // Before Compile.
  absl::Status s = QuietFit(*model, ds, 1).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("compile"), std::string::npos) << s;
  EXPECT_EQ(model->Evaluate(ds).status().code(), absl::StatusCode::kFailedPrecondition);

  // Compile's own checks.
  EXPECT_EQ(model->Compile({nullptr, LogitsLoss()}).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Compile({MakeSgd(), nullptr}).code(), absl::StatusCode::kInvalidArgument);
  SparseCategoricalCrossentropy::Options none;
  none.reduction = Reduction::kNone;
  EXPECT_EQ(model->Compile({MakeSgd(), std::make_shared<SparseCategoricalCrossentropy>(none)})
                .code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy", "accuracy"}}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(model->Compile({MakeSgd(), LogitsLoss(), {}, 0}).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(model->compiled());

  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"no_such_metric"}}));
  s = QuietFit(*model, ds, 1).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("no_such_metric"), std::string::npos) << s;

  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  // Null and empty datasets.
  EXPECT_EQ(QuietFit(*model, nullptr, 1).status().code(), absl::StatusCode::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr empty, data::Take(ds, 0));
  s = QuietFit(*model, empty, 1).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("empty"), std::string::npos) << s;
  EXPECT_EQ(model->Predict(empty).status().code(), absl::StatusCode::kInvalidArgument);

  // Elements without targets.
  Tensor x, y;
  MakeData(8, &x, &y);
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr x_only, data::FromTensorSlices({x}));
  ASSERT_OK_AND_ASSIGN(x_only, data::Batch(x_only, 4, false));
  s = QuietFit(*model, x_only, 1).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("targets"), std::string::npos) << s;
  PredictOptions quiet;
  quiet.verbose = 0;
  ASSERT_OK_AND_ASSIGN(Tensor p, model->Predict(x_only, quiet));  // Predict needs x only
  EXPECT_EQ(p.shape().dims(), (std::vector<int64_t>{8, 2}));

  // Wrong feature count, wrong input dtype, labels out of range.
  Tensor wide = tfd::test::AsTensor<float>(std::vector<float>(8 * 5, 0.5f), {8, 5});
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr bad_shape, data::FromTensorSlices({wide, y}));
  ASSERT_OK_AND_ASSIGN(bad_shape, data::Batch(bad_shape, 4, false));
  EXPECT_EQ(QuietFit(*model, bad_shape, 1).status().code(), absl::StatusCode::kInvalidArgument);
  Tensor strings(DT_STRING, {8, 4});
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr bad_dtype, data::FromTensorSlices({strings, y}));
  ASSERT_OK_AND_ASSIGN(bad_dtype, data::Batch(bad_dtype, 4, false));
  EXPECT_FALSE(QuietFit(*model, bad_dtype, 1).ok());
  Tensor big = tfd::test::AsTensor<int32_t>(std::vector<int32_t>(8, 7), {8});
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr bad_labels, data::FromTensorSlices({x, big}));
  ASSERT_OK_AND_ASSIGN(bad_labels, data::Batch(bad_labels, 4, false));
  EXPECT_EQ(QuietFit(*model, bad_labels, 1).status().code(), absl::StatusCode::kInvalidArgument);

  // A callback's error stops Fit and comes back as is.
  class Failing : public Callback {
    absl::Status OnEpochEnd(int epoch, Logs& logs) override {
      return absl::DataLossError("disk full");
    }
  };
  s = QuietFit(*model, ds, 2, {std::make_shared<Failing>()}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kDataLoss);
}

TEST(FitTest, MixedFloat16WrapsTheOptimizerAndTrains) {
  ClearSession();
  ScopedGlobalPolicy mixed(*DTypePolicy::FromName("mixed_float16"));
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  auto* scaled = dynamic_cast<LossScaleOptimizer*>(model->optimizer());
  ASSERT_NE(scaled, nullptr);
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  ASSERT_OK_AND_ASSIGN(auto history, QuietFit(*model, ds, 2));
  const std::vector<double> loss = history->Get("loss");
  ASSERT_EQ(loss.size(), 2u);
  // float16 compute: close to the float32 run (fit_golden.py's SGD numbers).
  EXPECT_NEAR(loss[0], 0.711835504, 5e-3);
  EXPECT_NEAR(loss[1], 0.65587914, 5e-3);
  EXPECT_EQ(*model->optimizer()->Iterations(), 6);
}


TEST(FitTest, ValidationFreqAndInitialEpoch) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  FitOptions options;
  options.epochs = 5;
  options.initial_epoch = 1;
  options.verbose = 0;
  options.validation_data = ds;
  options.validation_freq = 2;
  options.validation_steps = 1;
  ASSERT_OK_AND_ASSIGN(auto history, model->Fit(ds, options));
  EXPECT_EQ(history->epoch(), (std::vector<int>{1, 2, 3, 4}));
  EXPECT_EQ(history->Get("loss").size(), 4u);
  // Validated after epochs 2 and 4 (1-based: every second epoch).
  EXPECT_EQ(history->Get("val_loss").size(), 2u);
  EXPECT_EQ(history->Get("val_accuracy").size(), 2u);
  EXPECT_EQ(*model->optimizer()->Iterations(), 12);

  options.validation_freq = 0;
  EXPECT_EQ(model->Fit(ds, options).status().code(), absl::StatusCode::kInvalidArgument);
  options.validation_freq = 1;
  options.validation_steps = 0;
  EXPECT_EQ(model->Fit(ds, options).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(FitTest, Verbose2PrintsOneLinePerEpoch) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  std::string out;
  double now = 10.0;
  ProgbarIo io;
  io.clock = [&] { return now += 0.5; };  // every reading half a second later
  io.write = [&](absl::string_view text) { out.append(text.data(), text.size()); };
  io.dynamic_display = true;
  FitOptions options;
  options.verbose = 2;
  options.callbacks = {std::make_shared<ProgbarLogger>(io)};
  ASSERT_OK(model->Fit(ds, options).status());
  // One epoch: no "Epoch 1/1" line. The bar starts at 10.5 (epoch begin);
  // verbose 2 does not update it per batch (nor does Keras), so the end
  // reads 11.0: half a second ("0s", rounded half to even, as Python).
  EXPECT_EQ(out, "3/3 - 0s - loss: 0.7118 - accuracy: 0.4000 - 500ms/epoch - 167ms/step\n");
}


}  // namespace
}  // namespace nn
}  // namespace tfd
