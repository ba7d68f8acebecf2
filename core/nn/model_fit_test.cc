// Model::Compile / Fit / Evaluate / Predict against tf-keras 2.21: golden
// numbers from testdata/fit_golden.py for two optimizers, class and sample
// weights, a binary head, and Fit on tensors with validation_split.
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
