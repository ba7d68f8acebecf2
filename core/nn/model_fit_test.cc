// Model::Compile / Fit / Evaluate / Predict against tf-keras 2.21
// (golden numbers from testdata/fit_golden.py), under MirroredStrategy
// against one device, and on bad input.
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/data/transforms.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/framework/tensor_testutil.h"
#include "core/nn/adam.h"
#include "core/nn/callbacks/progbar_logger.h"
#include "core/nn/dense.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using test::Values;

// The data and model of fit_golden.py.
void MakeData(int n, Tensor* x, Tensor* y) {
  std::vector<float> xs;
  std::vector<int32_t> ys;
  for (int i = 0; i < n; ++i) {
    // Computed in double and rounded, as numpy does.
    for (int j = 0; j < 4; ++j) {
      xs.push_back(static_cast<float>(((i * 7 + j * 3) % 11) / 10.0 - 0.5));
    }
    ys.push_back((i * 5 % 3) % 2);
  }
  *x = tfd::test::AsTensor<float>(xs, {n, 4});
  *y = tfd::test::AsTensor<int32_t>(ys, {n});
}

absl::StatusOr<data::DatasetPtr> MakeDataset(int n, int batch) {
  Tensor x, y;
  MakeData(n, &x, &y);
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr ds, data::FromTensorSlices({x, y}));
  return data::Batch(ds, batch, /*drop_remainder=*/false);
}

std::vector<float> Linspace(float a, float b, int n) {
  std::vector<float> out;
  for (int i = 0; i < n; ++i) {
    out.push_back(static_cast<float>(a + (static_cast<double>(b) - a) * i / (n - 1)));
  }
  return out;
}

absl::StatusOr<std::shared_ptr<Sequential>> MakeModel() {
  TFD_ASSIGN_OR_RETURN(auto model,
                       Sequential::Make({MakeInputLayer({kNone, 4}),
                                         std::make_shared<Dense>(3, DenseOptions().Activation(
                                                                        "relu")),
                                         std::make_shared<Dense>(2)}));
  const std::vector<Weight> w = model->weights();
  if (w.size() != 4) return absl::InternalError("expected 4 weights");
  TFD_RETURN_IF_ERROR(w[0]->AssignAll(tfd::test::AsTensor<float>(Linspace(-0.5, 0.5, 12), {4, 3})));
  TFD_RETURN_IF_ERROR(w[1]->AssignAll(tfd::test::AsTensor<float>({0.1f, -0.1f, 0.05f}, {3})));
  TFD_RETURN_IF_ERROR(w[2]->AssignAll(tfd::test::AsTensor<float>(Linspace(-0.4, 0.6, 6), {3, 2})));
  TFD_RETURN_IF_ERROR(w[3]->AssignAll(tfd::test::AsTensor<float>({0.0f, 0.1f}, {2})));
  return model;
}

std::shared_ptr<const Loss> LogitsLoss() {
  SparseCategoricalCrossentropy::Options options;
  options.from_logits = true;
  return std::make_shared<SparseCategoricalCrossentropy>(options);
}

std::shared_ptr<Optimizer> MakeSgd() {
  SGDOptions options;
  options.learning_rate = 0.1f;
  options.momentum = 0.9;
  return std::shared_ptr<Optimizer>(*SGD::Create(options));
}

std::shared_ptr<Optimizer> MakeAdam() {
  AdamOptions options;
  options.learning_rate = 0.01f;
  return std::shared_ptr<Optimizer>(*Adam::Create(options));
}

// Records the logs of every train batch end, as the golden script prints.
class BatchRecorder : public Callback {
 public:
  absl::Status OnTrainBatchEnd(int64_t batch, Logs& logs) override {
    batches.push_back(batch);
    logs_.push_back(logs);
    return absl::OkStatus();
  }
  std::vector<int64_t> batches;
  std::vector<Logs> logs_;
};

void ExpectNear(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "at " << i;
}

struct Golden {
  std::string name;
  std::shared_ptr<Optimizer> (*optimizer)();
  std::vector<double> batch_loss, loss, accuracy, val_loss, val_accuracy;
  std::vector<std::vector<double>> weights;
  std::vector<double> predict;
};

std::vector<Golden> Goldens() {
  return {
      {"sgd", MakeSgd,
       {0.755125761, 0.728967309, 0.711835504, 0.683441401, 0.655894399, 0.65587914},
       {0.711835504, 0.65587914},
       {0.400000006, 0.600000024},
       {0.663234711, 0.611875057},
       {0.699999988, 0.699999988},
       {{-0.522123277, -0.406749278, -0.330667436, -0.205241919, -0.134247735, -0.032854978,
         0.0634223893, 0.138253868, 0.234360814, 0.297198445, 0.410755396, 0.48942256},
        {0.0864567533, -0.100752354, 0.0316283554},
        {-0.399944842, -0.200055167, -0.00034748856, 0.200347498, 0.401089132, 0.598910928},
        {0.335724771, -0.235724777}},
       {0.299686551, -0.0237015039, 0.335724771, -0.235724777, 0.304990292, -0.251098365,
        0.34494096, -0.221963063, 0.335724771, -0.235724777, 0.290322542, -0.258435279,
        0.330604821, -0.23828581, 0.335724771, -0.235724777, 0.328803718, 0.00537237525,
        0.315937072, -0.245622724}},
      {"adam", MakeAdam,
       {0.755125761, 0.733741939, 0.716844857, 0.730700731, 0.714001536, 0.700359344},
       {0.716844857, 0.700359344},
       {0.300000012, 0.300000012},
       {0.702375054, 0.690200627},
       {0.300000012, 0.899999976},
       {{-0.545986116, -0.390159488, -0.362622648, -0.172552556, -0.110622101, -0.0106627578,
         0.102710709, 0.130522668, 0.276553392, 0.279723793, 0.39705947, 0.474217474},
        {0.0667037666, -0.11543873, 0.0334149115},
        {-0.387936801, -0.212063193, 0.0148465084, 0.185153499, 0.413797766, 0.586202323},
        {0.0545996279, 0.0454003736}},
       {0.0457742997, 0.245334387, 0.0545996279, 0.0454003736, 0.0312021635, 0.0419010706,
        0.0545996279, 0.0454003736, 0.0545996279, 0.0454003736, 0.0074843429, 0.0196451023,
        0.0545996279, 0.0454003736, 0.0545996279, 0.0454003736, 0.0744730905, 0.275086433,
        0.0545996279, 0.0454003736}},
  };
}

class FitGoldenTest : public ::testing::TestWithParam<int> {};

TEST_P(FitGoldenTest, MatchesTfKeras) {
  const Golden g = Goldens()[GetParam()];
  SCOPED_TRACE(g.name);
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({g.optimizer(), LogitsLoss(), {"accuracy"}}));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));  // batches of 4, 4, 2
  auto recorder = std::make_shared<BatchRecorder>();
  FitOptions options;
  options.epochs = 2;
  options.verbose = 0;
  options.validation_data = ds;
  options.callbacks = {recorder};
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<History> history, model->Fit(ds, options));

  std::vector<double> batch_loss;
  for (const Logs& logs : recorder->logs_) batch_loss.push_back(*logs.Get("loss"));
  ExpectNear(batch_loss, g.batch_loss, 2e-6);
  EXPECT_EQ(recorder->batches, (std::vector<int64_t>{0, 1, 2, 0, 1, 2}));

  ASSERT_EQ(history->history().size(), 4u);
  EXPECT_EQ(history->history()[0].first, "loss");
  EXPECT_EQ(history->history()[1].first, "accuracy");
  EXPECT_EQ(history->history()[2].first, "val_loss");
  EXPECT_EQ(history->history()[3].first, "val_accuracy");
  EXPECT_EQ(history->epoch(), (std::vector<int>{0, 1}));
  ExpectNear(history->Get("loss"), g.loss, 2e-6);
  ExpectNear(history->Get("accuracy"), g.accuracy, 1e-7);
  ExpectNear(history->Get("val_loss"), g.val_loss, 2e-6);
  ExpectNear(history->Get("val_accuracy"), g.val_accuracy, 1e-7);
  EXPECT_EQ(model->history(), history);
  EXPECT_EQ(*model->optimizer()->Iterations(), 6);

  const std::vector<Weight> w = model->weights();
  ASSERT_EQ(w.size(), g.weights.size());
  for (size_t i = 0; i < w.size(); ++i) {
    SCOPED_TRACE(w[i]->name());
    ExpectNear(Values(w[i]->component(0).Peek()), g.weights[i], 2e-6);
  }

  EvaluateOptions eval;
  eval.verbose = 0;
  ASSERT_OK_AND_ASSIGN(Logs results, model->Evaluate(ds, eval));
  EXPECT_EQ(results.DebugString(),
            absl::StrCat("loss: ", absl::StrFormat("%.4f", g.val_loss[1]),
                         " - accuracy: ", absl::StrFormat("%.4f", g.val_accuracy[1])));
  EXPECT_NEAR(*results.Get("loss"), g.val_loss[1], 2e-6);

  PredictOptions predict;
  predict.verbose = 0;
  ASSERT_OK_AND_ASSIGN(Tensor out, model->Predict(ds, predict));
  EXPECT_EQ(out.shape().dims(), (std::vector<int64_t>{10, 2}));
  ExpectNear(Values(out), g.predict, 2e-6);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, FitGoldenTest, ::testing::Values(0, 1));


// Fits `model` (compiled) for `epochs` on `ds` quietly.
absl::StatusOr<std::shared_ptr<History>> QuietFit(Model& model, data::DatasetPtr ds, int epochs,
                                                  std::vector<std::shared_ptr<Callback>> cbs = {}) {
  FitOptions options;
  options.epochs = epochs;
  options.verbose = 0;
  options.callbacks = std::move(cbs);
  return model.Fit(std::move(ds), options);
}

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

// One SGD(0.1) epoch on fit_golden.py's data; returns the model.
absl::StatusOr<std::shared_ptr<Sequential>> FitOneSgdEpoch(data::DatasetPtr ds, FitOptions options,
                                                           std::shared_ptr<History>* history) {
  TFD_ASSIGN_OR_RETURN(auto model, MakeModel());
  SGDOptions sgd;
  sgd.learning_rate = 0.1f;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<SGD> opt, SGD::Create(sgd));
  TFD_RETURN_IF_ERROR(model->Compile({std::move(opt), LogitsLoss(), {"accuracy"}}));
  options.verbose = 0;
  TFD_ASSIGN_OR_RETURN(*history, model->Fit(std::move(ds), options));
  return model;
}

void ExpectWeights(const Model& model, const std::vector<std::vector<double>>& want) {
  const std::vector<Weight> w = model.weights();
  ASSERT_EQ(w.size(), want.size());
  for (size_t i = 0; i < w.size(); ++i) {
    SCOPED_TRACE(w[i]->name());
    ExpectNear(Values(w[i]->component(0).Peek()), want[i], 2e-6);
  }
}

TEST(FitTest, ClassWeightMatchesTfKeras) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  FitOptions options;
  options.class_weight = {{0, 0.5}, {1, 2.0}};
  std::shared_ptr<History> history;
  ASSERT_OK_AND_ASSIGN(auto model, FitOneSgdEpoch(ds, options, &history));
  ExpectNear(history->Get("loss"), {0.629070163}, 2e-6);
  ExpectNear(history->Get("accuracy"), {0.300000012}, 1e-7);
  ExpectWeights(*model,
                {{-0.506830513, -0.411561221, -0.322719008, -0.225082368, -0.13687098,
                  -0.0445713028, 0.0508643016, 0.137819275, 0.230718732, 0.316594273,
                  0.412509501, 0.500820935},
                 {0.110731289, -0.0934567675, 0.0585425384},
                 {-0.418964952, -0.181035042, -0.0103133498, 0.210313365, 0.38416326,
                  0.615836799},
                 {-0.0343677849, 0.134367794}});

  options.class_weight = {{0, 0.5}, {2, 2.0}};
  absl::Status s = FitOneSgdEpoch(ds, options, &history).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("keys from 0"), std::string::npos) << s;
  options.class_weight = {{0, 0.5}};  // label 1 has no weight
  EXPECT_EQ(FitOneSgdEpoch(ds, options, &history).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(FitTest, SampleWeightsMatchTfKeras) {
  ClearSession();
  Tensor x, y;
  MakeData(10, &x, &y);
  std::vector<float> sw;
  for (int i = 0; i < 10; ++i) sw.push_back(0.25f * (i % 4));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds,
                       data::FromTensorSlices({x, y, tfd::test::AsTensor<float>(sw, {10})}));
  ASSERT_OK_AND_ASSIGN(ds, data::Batch(ds, 4, false));
  std::shared_ptr<History> history;
  ASSERT_OK_AND_ASSIGN(auto model, FitOneSgdEpoch(ds, FitOptions(), &history));
  ExpectNear(history->Get("loss"), {0.233631045}, 2e-6);
  ExpectNear(history->Get("accuracy"), {0.300000012}, 1e-7);
  ExpectWeights(*model,
                {{-0.502320647, -0.409090906, -0.319930047, -0.225384191, -0.13636364,
                  -0.0442204885, 0.0464957617, 0.13636364, 0.227874786, 0.316426039,
                  0.409090906, 0.498673081},
                 {0.0971756056, -0.100000001, 0.0478933193},
                 {-0.399720728, -0.200279295, 0, 0.200000003, 0.400647551, 0.599352479},
                 {0.0271516703, 0.0728483275}});
}

TEST(FitTest, BinaryHeadResolvesAccuracyToBinaryAccuracyAsTfKeras) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(
      auto model,
      Sequential::Make({MakeInputLayer({kNone, 4}),
                        std::make_shared<Dense>(3, DenseOptions().Activation("relu")),
                        std::make_shared<Dense>(1, DenseOptions().Activation("sigmoid"))}));
  const std::vector<Weight> w = model->weights();
  ASSERT_OK(w[0]->AssignAll(tfd::test::AsTensor<float>(Linspace(-0.5, 0.5, 12), {4, 3})));
  ASSERT_OK(w[1]->AssignAll(tfd::test::AsTensor<float>({0.1f, -0.1f, 0.05f}, {3})));
  ASSERT_OK(w[2]->AssignAll(tfd::test::AsTensor<float>({0.3f, -0.2f, 0.5f}, {3, 1})));
  ASSERT_OK(w[3]->AssignAll(tfd::test::AsTensor<float>({0.05f}, {1})));
  SGDOptions sgd;
  sgd.learning_rate = 0.5f;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<SGD> opt, SGD::Create(sgd));
  ASSERT_OK(model->Compile({std::move(opt), std::make_shared<BinaryCrossentropy>(), {"accuracy"}}));

  Tensor x, y;
  MakeData(10, &x, &y);
  std::vector<float> labels;
  for (double v : Values(y)) labels.push_back(static_cast<float>(v));
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds,
                       data::FromTensorSlices({x, tfd::test::AsTensor<float>(labels, {10})}));
  ASSERT_OK_AND_ASSIGN(ds, data::Batch(ds, 4, false));  // [batch] labels, [batch, 1] outputs
  ASSERT_OK_AND_ASSIGN(auto history, QuietFit(*model, ds, 2));
  ExpectNear(history->Get("loss"), {0.695301771, 0.650800824}, 2e-6);
  ExpectNear(history->Get("accuracy"), {0.600000024, 0.600000024}, 1e-7);
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

TEST(FitTest, TensorsWithValidationSplitMatchTfKeras) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, MakeModel());
  ASSERT_OK(model->Compile({MakeSgd(), LogitsLoss(), {"accuracy"}}));
  Tensor x, y;
  MakeData(10, &x, &y);
  FitOptions options;
  options.epochs = 2;
  options.verbose = 0;
  options.batch_size = 3;            // 8 training rows: batches of 3, 3, 2
  options.validation_split = 0.2;    // the last 2 rows
  options.shuffle = false;
  ASSERT_OK_AND_ASSIGN(auto history, model->Fit(x, y, options));
  ExpectNear(history->Get("loss"), {0.718539655, 0.618280828}, 2e-6);
  ExpectNear(history->Get("accuracy"), {0.5, 0.625}, 1e-7);
  ExpectNear(history->Get("val_loss"), {0.650070906, 0.732416272}, 2e-6);
  ExpectNear(history->Get("val_accuracy"), {1, 0.5}, 1e-7);

  // Shuffled with a seed: reproducible.
  options.validation_split = 0;
  options.shuffle = true;
  options.shuffle_seed = 7;
  ASSERT_OK_AND_ASSIGN(auto a, MakeModel());
  ASSERT_OK(a->Compile({MakeSgd(), LogitsLoss(), {}}));
  ASSERT_OK_AND_ASSIGN(auto b, MakeModel());
  ASSERT_OK(b->Compile({MakeSgd(), LogitsLoss(), {}}));
  ASSERT_OK_AND_ASSIGN(auto ha, a->Fit(x, y, options));
  ASSERT_OK_AND_ASSIGN(auto hb, b->Fit(x, y, options));
  EXPECT_EQ(ha->Get("loss"), hb->Get("loss"));

  // Keras's errors.
  options.validation_split = 1.0;
  EXPECT_EQ(model->Fit(x, y, options).status().code(), absl::StatusCode::kInvalidArgument);
  options.validation_split = 0.01;  // 9 training rows, 1 held out
  EXPECT_TRUE(model->Fit(x, y, options).ok());
  options.validation_split = 0.05;  // 1 row: floor(0.95) = 0 rows of training
  ASSERT_OK_AND_ASSIGN(Tensor one_x, x.Slice(0, 1));
  ASSERT_OK_AND_ASSIGN(Tensor one_y, y.Slice(0, 1));
  absl::Status s = model->Fit(one_x, one_y, options).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("not sufficient"), std::string::npos) << s;
  options.validation_split = 0;
  ASSERT_OK_AND_ASSIGN(Tensor short_y, y.Slice(0, 8));
  s = model->Fit(x, short_y, options).status();
  EXPECT_NE(s.message().find("Data cardinality is ambiguous"), std::string::npos) << s;
  options.batch_size = 0;
  EXPECT_EQ(model->Fit(x, y, options).status().code(), absl::StatusCode::kInvalidArgument);
  // A dataset does not take validation_split, as in Keras.
  options.batch_size = 4;
  options.validation_split = 0.2;
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(10, 4));
  EXPECT_EQ(model->Fit(ds, options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
