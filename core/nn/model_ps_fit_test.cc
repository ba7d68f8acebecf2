// Model::Fit under ParameterServerStrategy with every task of the job in
// this process (model_ps_testutil.h).
#include <memory>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/framework/tensor_testutil.h"
#include "core/nn/adagrad.h"
#include "core/nn/adam.h"
#include "core/nn/learning_rate_schedule.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "core/nn/model_ps_testutil.h"
#include "core/nn/rmsprop.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/list_variables.h"

namespace tfd {
namespace nn {
namespace {

using ::testing::HasSubstr;

std::shared_ptr<Optimizer> Sgd(float lr) {
  SGDOptions options;
  options.learning_rate = lr;
  options.momentum = 0.5;
  return *SGD::Create(options);
}

// The values of `weights`' local copies.
std::vector<std::vector<float>> Values(const std::vector<Weight>& weights) {
  std::vector<std::vector<float>> values;
  for (const Weight& w : weights) {
    const Tensor host = tfd::test::ToHost(w->component(0).Peek());
    const auto flat = host.flat<float>();
    values.emplace_back(flat.begin(), flat.end());
  }
  return values;
}

// Expects the chief's slots of `kernel` to be the ps's, in its order.
void ExpectSlotsAsOnThePs(Optimizer& optimizer, const Weight& kernel,
                          const ps::PsClient::State& on_ps, const std::vector<std::string>& names) {
  ASSERT_EQ(on_ps.slots.size(), names.size());
  for (size_t k = 0; k < names.size(); ++k) {
    std::shared_ptr<DistributedVariable> slot = optimizer.GetSlot(*kernel, names[k]);
    ASSERT_NE(slot, nullptr) << names[k];
    const Tensor local = tfd::test::ToHost(slot->component(0).Peek());
    for (int64_t i = 0; i < local.NumElements(); ++i) {
      ASSERT_EQ(local.flat<float>()[i], on_ps.slots[k].flat<float>()[i]) << names[k];
    }
  }
}

// Calls `fn` after batch `at` of the first epoch.
class AtBatch : public Callback {
 public:
  AtBatch(int64_t at, std::function<void()> fn) : at_(at), fn_(std::move(fn)) {}
  absl::Status OnTrainBatchEnd(int64_t batch, Logs&) override {
    if (batch == at_ && fn_) std::exchange(fn_, nullptr)();
    return absl::OkStatus();
  }

 private:
  int64_t at_;
  std::function<void()> fn_;
};

// Counts the train batches whose logs reached the callbacks.
class BatchCounter : public Callback {
 public:
  absl::Status OnTrainBatchEnd(int64_t, Logs&) override {
    ++count;
    return absl::OkStatus();
  }
  int count = 0;
};

using ModelPsFitTest = PsJobTest;

TEST_F(ModelPsFitTest, ChiefFitsOnTheWorkersAndTheVariablesLiveOnThePs) {
  StartWorkers([] { return Sgd(0.2f); });
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd(0.2f));
  ASSERT_TRUE(model.ok()) << model.status();
  // The kernel of "hidden" ([4, 16]) is split in two shards, one per ps.
  EXPECT_EQ(chief->parameter_servers().NumShards("hidden/kernel"), 2);
  EXPECT_TRUE(chief->IsRemote(*(*model)->TrainableVariables()[0]));

  FitOptions options;
  options.epochs = 4;
  options.steps_per_epoch = 40;
  options.verbose = 0;
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  const std::vector<double> loss = (*history)->Get("loss");
  const std::vector<double> accuracy = (*history)->Get("accuracy");
  ASSERT_EQ(loss.size(), 4u);
  EXPECT_LT(loss.back(), 0.7 * loss.front());
  EXPECT_GT(accuracy.back(), 0.8);

  // After Fit the chief's model holds the ps's values.
  for (const Weight& w : (*model)->TrainableVariables()) {
    auto on_ps = chief->parameter_servers().Read(w->name());
    ASSERT_TRUE(on_ps.ok()) << on_ps.status();
    const Tensor local_host = tfd::test::ToHost(w->component(0).Peek());
    const auto local = local_host.flat<float>();
    const auto remote = on_ps->flat<float>();
    ASSERT_EQ(local.size(), remote.size());
    for (size_t i = 0; i < local.size(); ++i) ASSERT_EQ(local[i], remote[i]) << w->name();
  }
  // Evaluate runs on the chief with those values.
  auto eval_data = Rows(9);
  ASSERT_TRUE(eval_data.ok());
  EvaluateOptions eval;
  eval.steps = 8;
  eval.verbose = 0;
  auto logs = (*model)->Evaluate(*eval_data, eval);
  ASSERT_TRUE(logs.ok()) << logs.status();
  EXPECT_GT(logs->Get("accuracy").value_or(0), 0.8);
}

// A variable split over the ps tasks is saved whole, under the key of an
// unsplit one, as tf.train.Checkpoint saves a ShardedVariable; restored
// into the model, it goes back to the ps tasks with PushVariables.
TEST_F(ModelPsFitTest, CheckpointSavesShardedVariablesWholeAndRestoresThem) {
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd(0.2f));
  ASSERT_TRUE(model.ok()) << model.status();
  ASSERT_EQ(chief->parameter_servers().NumShards("hidden/kernel"), 2);
  const Tensor saved = *chief->parameter_servers().Read("hidden/kernel");

  savedmodel::Checkpoint checkpoint(*model, nullptr);
  auto path = checkpoint.Save(::testing::TempDir() + "/ps_ckpt");
  ASSERT_TRUE(path.ok()) << path.status();
  auto listed = savedmodel::ListVariables(*path);
  ASSERT_TRUE(listed.ok()) << listed.status();
  bool found = false;
  for (const auto& v : *listed) {
    if (v.name != "model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE") continue;
    found = true;
    EXPECT_EQ(v.shape.DebugString(), TensorShape({4, 16}).DebugString());
  }
  EXPECT_TRUE(found);

  // The ps tasks lose the values (a restarted job); restore and push.
  Tensor zeros = *Tensor::Zeros(DT_FLOAT, saved.shape());
  ASSERT_TRUE(chief->parameter_servers().Assign("hidden/kernel", zeros).ok());
  ASSERT_TRUE((*model)->TrainableVariables()[0]->AssignAll(zeros).ok());
  ASSERT_TRUE(checkpoint.Restore(*path).ok());
  std::vector<DistributedVariable*> vars;
  for (const Weight& w : (*model)->TrainableVariables()) vars.push_back(w.get());
  ASSERT_TRUE(chief->PushVariables(vars).ok());
  const Tensor restored = *chief->parameter_servers().Read("hidden/kernel");
  for (int64_t i = 0; i < saved.NumElements(); ++i) {
    ASSERT_EQ(restored.flat<float>()[i], saved.flat<float>()[i]);
  }
}

TEST_F(ModelPsFitTest, LostWorkersStepsFinishOnTheOther) {
  StartWorkers([] { return Sgd(0.2f); });
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(Sgd(0.2f));
  ASSERT_TRUE(model.ok()) << model.status();
  auto recorder = std::make_shared<BatchCounter>();
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 30;
  options.verbose = 0;
  // Worker 1 goes away after the chief saw batch 5.
  options.callbacks = {std::make_shared<AtBatch>(5, [this] { serving_[1].reset(); }), recorder};
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  EXPECT_EQ(recorder->count, 60);
  EXPECT_EQ(chief->num_live_workers(), 1);
}

TEST_F(ModelPsFitTest, AdamRunsOnThePs) {
  auto adam = [] {
    AdamOptions options;
    options.learning_rate = 0.02f;
    return std::shared_ptr<Optimizer>(*Adam::Create(options));
  };
  StartWorkers(adam);
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(adam());
  ASSERT_TRUE(model.ok()) << model.status();
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 40;
  options.verbose = 0;
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  const std::vector<double> loss = (*history)->Get("loss");
  EXPECT_LT(loss.back(), loss.front());

  // The chief's optimizer holds the ps's slots and count: 80 updates.
  Optimizer& optimizer = *(*model)->optimizer();
  const Weight kernel = (*model)->TrainableVariables()[0];
  auto on_ps = chief->parameter_servers().ReadState("hidden/kernel");
  ASSERT_TRUE(on_ps.ok()) << on_ps.status();
  ASSERT_EQ(on_ps->slots.size(), 2u);
  EXPECT_EQ(on_ps->step, 80);
  EXPECT_EQ(*optimizer.Iterations(), 80);
  const std::vector<std::string> names = {"m", "v"};
  for (size_t k = 0; k < 2; ++k) {
    const Tensor local = optimizer.GetSlot(*kernel, names[k])->component(0).Peek();
    for (int64_t i = 0; i < local.NumElements(); ++i) {
      ASSERT_EQ(local.flat<float>()[i], on_ps->slots[k].flat<float>()[i]) << names[k];
    }
  }

  // A checkpoint of model and optimizer, restored after the ps lost its
  // state, goes back to the ps when Fit starts.
  savedmodel::Checkpoint checkpoint(*model, &optimizer);
  auto path = checkpoint.Save(::testing::TempDir() + "/ps_adam_ckpt");
  ASSERT_TRUE(path.ok()) << path.status();
  ps::PsClient::State lost = *on_ps;
  for (Tensor& slot : lost.slots) slot = *Tensor::Zeros(DT_FLOAT, slot.shape());
  lost.step = 0;
  ASSERT_TRUE(chief->parameter_servers().AssignState("hidden/kernel", lost).ok());
  ASSERT_TRUE(checkpoint.Restore(*path).ok());
  options.initial_epoch = options.epochs;  // nothing left to train
  ASSERT_TRUE((*model)->Fit(Creator(), options).ok());
  auto restored = chief->parameter_servers().ReadState("hidden/kernel");
  ASSERT_TRUE(restored.ok()) << restored.status();
  EXPECT_EQ(restored->step, 80);
  for (size_t k = 0; k < 2; ++k) {
    for (int64_t i = 0; i < restored->slots[k].NumElements(); ++i) {
      ASSERT_EQ(restored->slots[k].flat<float>()[i], on_ps->slots[k].flat<float>()[i]);
    }
  }
}

TEST_F(ModelPsFitTest, CenteredRmsPropWithMomentumAndAScheduleRunsOnThePs) {
  auto rmsprop = [] {
    RMSpropOptions options;
    options.learning_rate = *ExponentialDecay::Create(0.01f, 10, 0.9f);
    options.momentum = 0.5;
    options.centered = true;
    return std::shared_ptr<Optimizer>(*RMSprop::Create(options));
  };
  StartWorkers(rmsprop);
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(rmsprop());
  ASSERT_TRUE(model.ok()) << model.status();
  FitOptions options;
  options.epochs = 2;
  options.steps_per_epoch = 30;
  options.verbose = 0;
  auto history = (*model)->Fit(Creator(), options);
  ASSERT_TRUE(history.ok()) << history.status();
  const std::vector<double> loss = (*history)->Get("loss");
  EXPECT_LT(loss.back(), loss.front());
  Optimizer& optimizer = *(*model)->optimizer();
  auto on_ps = chief->parameter_servers().ReadState("hidden/kernel");
  ASSERT_TRUE(on_ps.ok()) << on_ps.status();
  EXPECT_EQ(on_ps->step, 60);
  EXPECT_EQ(*optimizer.Iterations(), 60);
  ExpectSlotsAsOnThePs(optimizer, (*model)->TrainableVariables()[0], *on_ps,
                       {"velocity", "momentum", "average_gradient"});
}

// The schedule's rate is read at the ps's update count: 0.2 for the first
// 20 updates, then 0, so the second epoch leaves the weights as they are
// (Adagrad with a zero rate only grows its accumulator).
TEST_F(ModelPsFitTest, AScheduleReadsTheIterationsOnThePs) {
  auto adagrad = [] {
    AdagradOptions options;
    options.learning_rate = *PiecewiseConstantDecay::Create({19}, {0.2f, 0.0f});
    return std::shared_ptr<Optimizer>(*Adagrad::Create(options));
  };
  StartWorkers(adagrad);
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(adagrad());
  ASSERT_TRUE(model.ok()) << model.status();
  const auto initial = Values((*model)->TrainableVariables());
  FitOptions options;
  options.epochs = 1;
  options.steps_per_epoch = 20;
  options.verbose = 0;
  ASSERT_TRUE((*model)->Fit(Creator(), options).ok());
  const auto after_first = Values((*model)->TrainableVariables());
  EXPECT_NE(after_first, initial);
  options.initial_epoch = 1;
  options.epochs = 2;
  ASSERT_TRUE((*model)->Fit(Creator(), options).ok());
  EXPECT_EQ(Values((*model)->TrainableVariables()), after_first);
  auto on_ps = chief->parameter_servers().ReadState("hidden/kernel");
  ASSERT_TRUE(on_ps.ok()) << on_ps.status();
  EXPECT_EQ(on_ps->step, 40);
  ExpectSlotsAsOnThePs(*(*model)->optimizer(), (*model)->TrainableVariables()[0], *on_ps,
                       {"accumulator"});
}

// The workers clip before they send: with clipvalue 1e-3 and rate 1, no
// weight moves more than 1e-3 per step.
TEST_F(ModelPsFitTest, WorkersClipTheGradients) {
  auto clipped = [] {
    SGDOptions options;
    options.learning_rate = 1.0f;
    options.clipvalue = 1e-3;
    return std::shared_ptr<Optimizer>(*SGD::Create(options));
  };
  StartWorkers(clipped);
  auto chief = Strategy("chief", 0);
  ASSERT_NE(chief, nullptr);
  distribute::StrategyScope scope(chief.get());
  auto model = BuildModel(clipped());
  ASSERT_TRUE(model.ok()) << model.status();
  const auto initial = Values((*model)->TrainableVariables());
  FitOptions options;
  options.steps_per_epoch = 10;
  options.verbose = 0;
  ASSERT_TRUE((*model)->Fit(Creator(), options).ok());
  const auto trained = Values((*model)->TrainableVariables());
  double largest = 0;
  for (size_t v = 0; v < trained.size(); ++v) {
    for (size_t i = 0; i < trained[v].size(); ++i) {
      largest = std::max(largest, std::abs(static_cast<double>(trained[v][i]) - initial[v][i]));
    }
  }
  EXPECT_GT(largest, 0);
  EXPECT_LE(largest, 10 * 1e-3 + 1e-6);
}

TEST_F(ModelPsFitTest, ErrorsSayWhatIsWrong) {
  auto worker = Strategy("worker", 0);
  auto chief = Strategy("chief", 0);
  ASSERT_TRUE(worker && chief);
  std::shared_ptr<Sequential> worker_model, model;
  {
    distribute::StrategyScope scope(worker.get());
    worker_model = *BuildModel(Sgd(0.1f));
  }
  distribute::StrategyScope scope(chief.get());
  model = *BuildModel(Sgd(0.1f));
  FitOptions options;
  options.verbose = 0;
  // No steps_per_epoch.
  EXPECT_EQ(model->Fit(Creator(), options).status().code(), absl::StatusCode::kInvalidArgument);
  options.steps_per_epoch = 2;
  // A dataset instead of a creator.
  auto rows = Rows(1);
  ASSERT_TRUE(rows.ok());
  auto with_dataset = model->Fit(*rows, options);
  EXPECT_EQ(with_dataset.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(with_dataset.status().message(), HasSubstr("DatasetCreator"));
  // Fit on a worker; serving on the chief.
  EXPECT_EQ(worker_model->Fit(Creator(), options).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(model->ServeTrainSteps(Creator()).status().code(),
            absl::StatusCode::kFailedPrecondition);
  // Class weights not keyed 0 .. n-1, refused before anything runs.
  FitOptions weighted = options;
  weighted.class_weight = {{1, 2.0}};
  auto bad_keys = model->Fit(Creator(), weighted);
  EXPECT_EQ(bad_keys.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_keys.status().message(), HasSubstr("Expected `class_weight`"));
  // Loss scaling, which tf-keras refuses under ParameterServerStrategy.
  CompileOptions compile;
  compile.optimizer = *LossScaleOptimizer::Create(Sgd(0.1f));
  compile.loss = std::make_shared<SparseCategoricalCrossentropy>();
  ASSERT_TRUE(model->Compile(compile).ok());
  auto unsupported = model->Fit(Creator(), options);
  EXPECT_EQ(unsupported.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unsupported.status().message(), HasSubstr("Loss scaling is not supported"));
}

}  // namespace
}  // namespace nn
}  // namespace tfd
