// Model::Evaluate and Fit's validation under ParameterServerStrategy, with
// every task of the job in this process (model_ps_testutil.h).
//
// The validation data is one fixed batch, repeated: whichever worker reads
// whichever batch, the steps' summed states give exactly that batch's
// loss and accuracy, which the chief's own Evaluate checks.
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "core/data/transforms.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/nn/losses.h"
#include "core/nn/model_ps_testutil.h"
#include "core/nn/sgd.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using ::testing::HasSubstr;

DatasetCreator Validation(int64_t repeats) {
  return {"validation", [repeats](const data::InputContext&) { return FixedBatch(repeats); }};
}

std::shared_ptr<Optimizer> Sgd() {
  SGDOptions options;
  options.learning_rate = 0.2f;
  return *SGD::Create(options);
}

// Counts the test batches of each evaluation.
class TestBatches : public Callback {
 public:
  absl::Status OnTestBegin(const Logs&) override {
    per_evaluation.push_back(0);
    return absl::OkStatus();
  }
  absl::Status OnTestBatchEnd(int64_t, Logs&) override {
    ++per_evaluation.back();
    return absl::OkStatus();
  }
  std::vector<int> per_evaluation;
};

// The fixed batch's loss and accuracy, evaluated on the chief with the
// values it holds (the ps's, after Fit).
Logs OnTheChief(Model& model) {
  EvaluateOptions options;
  options.verbose = 0;
  auto logs = model.Evaluate(*FixedBatch(1), options);
  EXPECT_TRUE(logs.ok()) << logs.status();
  return logs.ok() ? *logs : Logs();
}

using ModelPsEvaluateTest = PsJobTest;

TEST_F(ModelPsEvaluateTest, FitValidatesOnTheWorkers) {
  StartWorkers(Sgd, {Validation(-1)});
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  auto batches = std::make_shared<TestBatches>();
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 10;
  options.verbose = 0;
  options.validation_creator = Validation(-1);
  options.validation_steps = 6;
  options.callbacks = {batches};
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(batches->per_evaluation, std::vector<int>({6, 6}));
  const std::vector<double> val_loss = (*history)->Get("val_loss");
  const std::vector<double> val_accuracy = (*history)->Get("val_accuracy");
  ASSERT_EQ(val_loss.size(), 2u);
  ASSERT_EQ(val_accuracy.size(), 2u);
  EXPECT_NE(val_loss[0], val_loss[1]);  // trained in between
  const Logs expected = OnTheChief(**model);
  EXPECT_NEAR(val_loss[1], *expected.Get("loss"), 1e-6);
  EXPECT_NEAR(val_accuracy[1], *expected.Get("accuracy"), 1e-6);

  // Evaluate on the workers gives the same, for any number of steps.
  EvaluateOptions eval;
  eval.verbose = 0;
  eval.steps = 3;
  auto logs = (*model)->Evaluate(Validation(-1), eval);
  ASSERT_TRUE(logs.ok()) << logs.status();
  EXPECT_NEAR(*logs->Get("loss"), *expected.Get("loss"), 1e-6);
  EXPECT_NEAR(*logs->Get("accuracy"), *expected.Get("accuracy"), 1e-6);
}

// Without validation_steps, each evaluation runs until a worker's data
// runs out (each has 3 batches: 3 to 6 of them are read), and training
// goes on after.
TEST_F(ModelPsEvaluateTest, WithoutStepsEvaluationEndsWhenAWorkersDataRunsOut) {
  StartWorkers(Sgd, {Validation(3)});
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  auto batches = std::make_shared<TestBatches>();
  FitOptions options;
  options.epochs = 3;
  options.steps_per_epoch = 5;
  options.verbose = 0;
  options.validation_creator = Validation(3);
  options.callbacks = {batches};
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ((*history)->Get("loss").size(), 3u);
  ASSERT_EQ(batches->per_evaluation.size(), 3u);
  for (int count : batches->per_evaluation) {
    EXPECT_GE(count, 3);
    EXPECT_LE(count, 6);
  }
  const std::vector<double> val_loss = (*history)->Get("val_loss");
  ASSERT_EQ(val_loss.size(), 3u);
  EXPECT_NEAR(val_loss.back(), *OnTheChief(**model).Get("loss"), 1e-6);
}

// The iterators each worker keeps at every epoch's end (after its
// validation); -1 for a worker that is gone.
class WorkerIterators : public Callback {
 public:
  explicit WorkerIterators(const std::vector<std::unique_ptr<distribute::WorkerServing>>* serving)
      : serving_(serving) {}
  absl::Status OnEpochEnd(int, Logs&) override {
    for (const auto& worker : *serving_) {
      at_epoch_end.push_back(worker == nullptr ? -1 : worker->num_live_iterators());
    }
    return absl::OkStatus();
  }
  std::vector<int> at_epoch_end;

 private:
  const std::vector<std::unique_ptr<distribute::WorkerServing>>* serving_;
};

// Each evaluation makes a fresh iterator on every worker and releases it
// when done: a long job's workers keep Fit's training iterator only, and
// none once Fit returned.
TEST_F(ModelPsEvaluateTest, EvaluationsReleaseTheirIteratorsOnTheWorkers) {
  StartWorkers(Sgd, {Validation(-1)});
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  auto iterators = std::make_shared<WorkerIterators>(&serving_);
  FitOptions options;
  options.epochs = 8;
  options.steps_per_epoch = 3;
  options.verbose = 0;
  options.validation_creator = Validation(-1);
  options.validation_steps = 2;
  options.callbacks = {iterators};
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(iterators->at_epoch_end, std::vector<int>(2 * 8, 1));
  for (const auto& worker : serving_) EXPECT_EQ(worker->num_live_iterators(), 0);

  EvaluateOptions eval;
  eval.verbose = 0;
  eval.steps = 2;
  for (int i = 0; i < 20; ++i) {
    auto logs = (*model)->Evaluate(Validation(-1), eval);
    ASSERT_TRUE(logs.ok()) << logs.status();
    for (const auto& worker : serving_) ASSERT_EQ(worker->num_live_iterators(), 0) << i;
  }
}

// A worker lost before an evaluation: its steps run on the other, and
// the release it cannot receive is logged, not an error.
TEST_F(ModelPsEvaluateTest, ReleaseToALostWorkerDoesNotFailTheEvaluation) {
  StartWorkers(Sgd, {Validation(-1)});
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  EvaluateOptions eval;
  eval.verbose = 0;
  // Enough steps that both workers answer one (a worker that never
  // answered yet is waited for, as one still starting).
  eval.steps = 20;
  ASSERT_TRUE((*model)->Evaluate(Validation(-1), eval).ok());
  eval.steps = 4;
  serving_[1].reset();
  for (int i = 0; i < 3; ++i) {
    const absl::Time start = absl::Now();
    auto logs = (*model)->Evaluate(Validation(-1), eval);
    ASSERT_TRUE(logs.ok()) << logs.status();
    // Far below the step timeout (20 s): nothing waited on the lost worker.
    EXPECT_LT(absl::Now() - start, absl::Seconds(10));
    EXPECT_EQ(serving_[0]->num_live_iterators(), 0);
  }
  EXPECT_EQ(chief->num_live_workers(), 1);
}

TEST_F(ModelPsEvaluateTest, ValidationDataIsEvaluatedOnTheChief) {
  StartWorkers(Sgd);
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 10;
  options.verbose = 0;
  options.validation_data = *FixedBatch(2);
  options.validation_freq = 2;
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  // validation_freq 2: only the second epoch's logs have val_*, which
  // History records from the epoch that first has them.
  const std::vector<double> val_loss = (*history)->Get("val_loss");
  ASSERT_FALSE(val_loss.empty());
  EXPECT_NEAR(val_loss.back(), *OnTheChief(**model).Get("loss"), 1e-6);
}

TEST_F(ModelPsEvaluateTest, ErrorsSayWhatIsWrong) {
  StartWorkers(Sgd);
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  FitOptions options;
  options.steps_per_epoch = 2;
  options.verbose = 0;
  FitOptions split = options;
  split.validation_split = 0.2;
  auto fit = (*model)->Fit(Creator(), split);
  EXPECT_EQ(fit.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(fit.status().message(), HasSubstr("validation_split"));
  FitOptions both = options;
  both.validation_data = *FixedBatch(1);
  both.validation_creator = Validation(1);
  EXPECT_EQ((*model)->Fit(Creator(), both).status().code(), absl::StatusCode::kInvalidArgument);

  // The workers do not serve "validation".
  EvaluateOptions eval;
  eval.verbose = 0;
  auto unserved = (*model)->Evaluate(Validation(1), eval);
  EXPECT_EQ(unserved.status().code(), absl::StatusCode::kNotFound) << unserved.status();
  eval.steps = 0;
  EXPECT_EQ((*model)->Evaluate(Validation(1), eval).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Training still works after the failed evaluation.
  EXPECT_TRUE((*model)->Fit(Creator(), options).ok());

  // Evaluate with a creator on a worker; two creators of one name.
  auto worker = Strategy("worker", 0);
  ASSERT_NE(worker, nullptr);
  distribute::StrategyScope worker_scope(worker.get());
  auto worker_model = BuildModel(Sgd());
  ASSERT_TRUE(worker_model.ok()) << worker_model.status();
  EXPECT_EQ((*worker_model)->Evaluate(Validation(1), EvaluateOptions()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  DatasetCreator twin = Creator();
  EXPECT_EQ((*worker_model)->ServeTrainSteps(Creator(), {twin}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// The test steps each test-batch hook saw, begin and end.
class TestSteps : public Callback {
 public:
  absl::Status OnTestBatchBegin(int64_t step, const Logs&) override {
    begins.push_back(step);
    return absl::OkStatus();
  }
  absl::Status OnTestBatchEnd(int64_t step, Logs&) override {
    ends.push_back(step);
    return absl::OkStatus();
  }
  std::vector<int64_t> begins, ends;
};

// 7 different batches of 16 rows: not a multiple of 3.
constexpr int64_t kSevenBatches = 7;
DatasetCreator SevenBatches() {
  return {"seven", [](const data::InputContext&) -> absl::StatusOr<data::DatasetPtr> {
            TFD_ASSIGN_OR_RETURN(data::DatasetPtr rows, Rows(5));
            return data::Take(rows, kSevenBatches);
          }};
}

// One worker reads the batches in order, so every steps_per_execution
// evaluates the same 7 batches: the numbers are the chief's own
// evaluation of them, and the hooks fire once per execution, at its first
// and last step, as Keras's do.
TEST_F(ModelPsEvaluateTest, StepsPerExecutionRunsExecutionsOnTheWorkers) {
  num_workers_ = 1;
  StartWorkers(Sgd, {SevenBatches()});
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());

  struct Case {
    int steps_per_execution;
    std::optional<int64_t> steps;
    std::vector<int64_t> begins, ends;
  };
  const std::vector<Case> cases = {
      {1, kSevenBatches, {0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5, 6}},
      {3, kSevenBatches, {0, 3, 6}, {2, 5, 6}},
      {1, std::nullopt, {0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5, 6}},
      // Until the data runs out: the third execution asks for 3 batches,
      // gets 1 and counts it; the fourth finds the end. Its hooks say
      // steps 6..8, as Keras's with no known length.
      {3, std::nullopt, {0, 3, 6}, {2, 5, 8}},
      {4, std::nullopt, {0, 4}, {3, 7}},
  };
  // One model (its variables are the ps's), compiled again per case.
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  std::optional<Logs> first;
  for (const Case& c : cases) {
    SCOPED_TRACE(::testing::Message() << "steps_per_execution " << c.steps_per_execution
                                      << ", steps " << (c.steps ? *c.steps : -1));
    SparseCategoricalCrossentropy::Options loss;
    loss.from_logits = true;
    CompileOptions compile;
    compile.optimizer = Sgd();
    compile.loss = std::make_shared<SparseCategoricalCrossentropy>(loss);
    compile.metrics = {"accuracy"};
    compile.steps_per_execution = c.steps_per_execution;
    ASSERT_TRUE((*model)->Compile(std::move(compile)).ok());
    auto hooks = std::make_shared<TestSteps>();
    EvaluateOptions options;
    options.verbose = 0;
    options.steps = c.steps;
    options.callbacks = {hooks};
    auto logs = (*model)->Evaluate(SevenBatches(), options);
    ASSERT_TRUE(logs.ok()) << logs.status();
    EXPECT_EQ(hooks->ends, c.ends);
    if (c.steps) {
      EXPECT_EQ(hooks->begins, c.begins);
    } else {
      // Executions are scheduled ahead (two per worker), so those begun
      // after the data ran out are begun too, as Keras's coordinator
      // loop begins every execution it schedules; none of them ends.
      ASSERT_GE(hooks->begins.size(), c.begins.size());
      EXPECT_LE(hooks->begins.size(), c.begins.size() + 2);
      for (size_t i = 0; i < hooks->begins.size(); ++i) {
        EXPECT_EQ(hooks->begins[i], static_cast<int64_t>(i) * c.steps_per_execution) << i;
      }
    }
    EXPECT_EQ(serving_[0]->num_live_iterators(), 0);

    // The chief's own evaluation of the same batches, with the ps's values
    // (a new dataset: another iterator of one would shuffle again).
    auto seven = SevenBatches().function(data::InputContext());
    ASSERT_TRUE(seven.ok()) << seven.status();
    EvaluateOptions local;
    local.verbose = 0;
    auto expected = (*model)->Evaluate(*seven, local);
    ASSERT_TRUE(expected.ok()) << expected.status();
    EXPECT_NEAR(*logs->Get("loss"), *expected->Get("loss"), 1e-6);
    EXPECT_NEAR(*logs->Get("accuracy"), *expected->Get("accuracy"), 1e-6);
    if (!first) first = *logs;
    EXPECT_NEAR(*logs->Get("loss"), *first->Get("loss"), 1e-6);
    EXPECT_NEAR(*logs->Get("accuracy"), *first->Get("accuracy"), 1e-6);
  }
}

// A test step takes the batch count only: class weights or a bad count
// are refused on the worker, naming the step.
TEST_F(ModelPsEvaluateTest, TestStepArgumentsAreChecked) {
  num_workers_ = 1;
  StartWorkers(Sgd, {SevenBatches()});
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd());
  ASSERT_TRUE(model.ok()) << model.status();
  distribute::ParameterServerTraining* ps = distribute::ParameterServerTrainingOf(*chief);
  ASSERT_NE(ps, nullptr);
  auto iterator = ps->CreatePerWorkerIterator(SevenBatches().name);
  ASSERT_TRUE(iterator.ok()) << iterator.status();
  const distribute::PerWorkerIteratorOwner owner(ps, *iterator);
  const std::vector<std::vector<Tensor>> bad = {
      {Tensor::Scalar<float>(2), Tensor::Scalar<float>(1)},
      {Tensor::Scalar<float>(0)},
      {Tensor::Scalar<float>(1.5f)},
      {Tensor::Scalar<int32_t>(2)},
  };
  for (const std::vector<Tensor>& arguments : bad) {
    auto outputs = ps->Schedule("test_step", owner.id(), arguments)->Fetch();
    EXPECT_EQ(outputs.status().code(), absl::StatusCode::kInvalidArgument) << outputs.status();
    EXPECT_THAT(outputs.status().message(), HasSubstr("test_step"));
    ps->Join().IgnoreError();
  }
  // Two batches in one call: the states of 32 rows.
  auto two = ps->Schedule("test_step", owner.id(), {Tensor::Scalar<float>(2)})->Fetch();
  ASSERT_TRUE(two.ok()) << two.status();
  ASSERT_EQ(two->size(), 4u);  // (total, count) of the loss and of accuracy
  EXPECT_EQ((*two)[1].scalar<float>(), 32.0f);
  EXPECT_EQ((*two)[3].scalar<float>(), 32.0f);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
