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
#include "core/nn/layer_testutil.h"
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

}  // namespace
}  // namespace nn
}  // namespace tfd
