// A parameter-server job takes the steps a single process takes: the
// optimizers the ps applies (weight decay, amsgrad) and the state the
// workers' steps update there (BatchNormalization's moving statistics).
// The job (model_ps_testutil.h) trains N steps one at a time, and the same
// model under OneDeviceStrategy fits the same N batches; every weight and
// slot agrees within 1e-6.
//
// Every batch is the same one (FixedBatch), and the chief waits for each
// step before it schedules the next, so the job's steps are sequential
// whichever worker runs them.
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/distribute/one_device_strategy.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/framework/device.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/random_seed.h"
#include "core/nn/adam.h"
#include "core/nn/batch_normalization.h"
#include "core/nn/dense.h"
#include "core/nn/input_layer.h"
#include "core/nn/losses.h"
#include "core/nn/model_ps_testutil.h"
#include "core/nn/rmsprop.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

constexpr int kSteps = 6;

DatasetCreator Fixed() {
  return {"fixed", [](const data::InputContext&) { return FixedBatch(-1); }};
}

using OptimizerFactory = std::function<std::shared_ptr<Optimizer>()>;

// Expects `a` and `b` to hold the same values within 1e-6.
void ExpectClose(const DistributedVariable& a, const DistributedVariable& b,
                 const std::string& what) {
  const Tensor x = a.component(0).Peek();
  const Tensor y = b.component(0).Peek();
  ASSERT_EQ(x.NumElements(), y.NumElements()) << what;
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    ASSERT_NEAR(x.flat<float>()[i], y.flat<float>()[i], 1e-6) << what << " [" << i << "]";
  }
}

class ModelPsOptimizerTest : public PsJobTest {
 protected:
  // Trains kSteps on the job and under OneDeviceStrategy with optimizers
  // from `make`, then compares every trainable variable and its slots
  // `slot_names`.
  void ExpectSameAsOneDevice(const OptimizerFactory& make,
                             const std::vector<std::string>& slot_names) {
    StartWorkers(make, {}, Fixed());
    auto chief = Strategy("chief", 0);
    ASSERT_NE(chief, nullptr);
    std::shared_ptr<Sequential> remote;
    float initial = 0;
    {
      distribute::StrategyScope scope(chief.get());
      auto model = build_model_(make());
      ASSERT_TRUE(model.ok()) << model.status();
      remote = *model;
      initial = tfd::test::ToHost(remote->TrainableVariables()[0]->component(0).Peek()).flat<float>()[0];
      ASSERT_TRUE(remote->PushToParameterServers().ok());
      auto iterator = chief->CreatePerWorkerIterator("fixed");
      ASSERT_TRUE(iterator.ok()) << iterator.status();
      for (int step = 0; step < kSteps; ++step) {
        auto value = remote->ScheduleTrainStep(*iterator);
        ASSERT_TRUE(value.ok()) << value.status();
        auto outputs = (*value)->Fetch();
        ASSERT_TRUE(outputs.ok()) << outputs.status();
      }
      ASSERT_TRUE(remote->JoinTrainSteps().ok());
    }

    auto one_device = distribute::OneDeviceStrategy::Create(HostDevice());
    ASSERT_TRUE(one_device.ok()) << one_device.status();
    distribute::StrategyScope scope(one_device->get());
    auto local = build_model_(make());
    ASSERT_TRUE(local.ok()) << local.status();
    FitOptions options;
    options.verbose = 0;
    auto history = (*local)->Fit(*FixedBatch(kSteps), options);
    ASSERT_TRUE(history.ok()) << history.status();

    ASSERT_EQ(*(*local)->optimizer()->Iterations(), kSteps);
    ASSERT_EQ(*remote->optimizer()->Iterations(), kSteps);
    // Trained at all: the weights moved from where both started.
    EXPECT_NE(tfd::test::ToHost(remote->TrainableVariables()[0]->component(0).Peek()).flat<float>()[0], initial);
    // Every weight, the non-trainable state included.
    const std::vector<Weight> all_expected = (*local)->weights();
    const std::vector<Weight> all_actual = remote->weights();
    ASSERT_EQ(all_actual.size(), all_expected.size());
    for (size_t v = 0; v < all_actual.size(); ++v) {
      ExpectClose(*all_actual[v], *all_expected[v], all_actual[v]->name());
    }
    const std::vector<Weight> expected = (*local)->TrainableVariables();
    const std::vector<Weight> actual = remote->TrainableVariables();
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t v = 0; v < actual.size(); ++v) {
      for (const std::string& slot : slot_names) {
        auto remote_slot = remote->optimizer()->GetSlot(*actual[v], slot);
        auto local_slot = (*local)->optimizer()->GetSlot(*expected[v], slot);
        ASSERT_TRUE(remote_slot && local_slot) << slot;
        ExpectClose(*remote_slot, *local_slot, actual[v]->name() + " " + slot);
      }
    }
  }
};

TEST_F(ModelPsOptimizerTest, AdamWDecaysAsTheLocalOptimizer) {
  ExpectSameAsOneDevice(
      [] {
        AdamWOptions options;
        options.learning_rate = 0.05f;
        options.weight_decay = 0.1;
        // The biases are not decayed: the ps applies them without decay.
        options.exclude_from_weight_decay = {"bias"};
        return std::shared_ptr<Optimizer>(*AdamW::Create(options));
      },
      {"m", "v"});
}

TEST_F(ModelPsOptimizerTest, AmsgradAsTheLocalOptimizer) {
  ExpectSameAsOneDevice(
      [] {
        AdamOptions options;
        options.learning_rate = 0.05f;
        options.amsgrad = true;
        return std::shared_ptr<Optimizer>(*Adam::Create(options));
      },
      {"m", "v", "vhat"});
}

TEST_F(ModelPsOptimizerTest, SgdWithWeightDecayAsTheLocalOptimizer) {
  ExpectSameAsOneDevice(
      [] {
        SGDOptions options;
        options.learning_rate = 0.2f;
        options.momentum = 0.5;
        options.weight_decay = 0.05;
        return std::shared_ptr<Optimizer>(*SGD::Create(options));
      },
      {"m"});
}

TEST_F(ModelPsOptimizerTest, RmsPropWithWeightDecayAsTheLocalOptimizer) {
  ExpectSameAsOneDevice(
      [] {
        RMSpropOptions options;
        options.learning_rate = 0.01f;
        options.centered = true;
        options.weight_decay = 0.05;
        return std::shared_ptr<Optimizer>(*RMSprop::Create(options));
      },
      {"velocity", "average_gradient"});
}

// Dense -> BatchNormalization -> Dense: the moving statistics the
// workers' steps update live on the ps, and end as the local Fit's.
absl::StatusOr<std::shared_ptr<Sequential>> BuildNormalizedModel(
    std::shared_ptr<Optimizer> optimizer) {
  SetRandomSeed(3);
  BatchNormalizationOptions bn;
  bn.Name("bn");
  bn.momentum = 0.5;
  TFD_ASSIGN_OR_RETURN(
      auto model,
      Sequential::Make({MakeInputLayer({kNone, 4}),
                        std::make_shared<Dense>(16, DenseOptions().Activation("relu").Name("hidden")),
                        std::make_shared<BatchNormalization>(bn),
                        std::make_shared<Dense>(3, DenseOptions().Name("logits"))}));
  SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  CompileOptions compile;
  compile.optimizer = std::move(optimizer);
  compile.loss = std::make_shared<SparseCategoricalCrossentropy>(loss);
  TFD_RETURN_IF_ERROR(model->Compile(std::move(compile)));
  return model;
}

TEST_F(ModelPsOptimizerTest, MovingStatisticsLiveOnThePs) {
  build_model_ = BuildNormalizedModel;
  ExpectSameAsOneDevice(
      [] {
        SGDOptions options;
        options.learning_rate = 0.1f;
        return std::shared_ptr<Optimizer>(*SGD::Create(options));
      },
      {});
}

// The train steps' ends each Fit reports to its callbacks.
class BatchEnds : public Callback {
 public:
  absl::Status OnTrainBatchEnd(int64_t step, Logs&) override {
    steps.push_back(step);
    return absl::OkStatus();
  }
  std::vector<int64_t> steps;
};

// Fit on a job of one worker (its steps run one after another) and under
// OneDeviceStrategy, on the same shuffled batches (Rows(1), the worker's
// data), with `class_weight` and `steps_per_execution`: every weight and
// slot, the losses and the batches the callbacks see agree.
class ModelPsFitOptionsTest : public PsJobTest {
 protected:
  void ExpectSameAsOneDevice(const std::map<int64_t, double>& class_weight,
                             int steps_per_execution, const std::vector<int64_t>& batch_ends) {
    constexpr int kEpochs = 2;
    constexpr int64_t kStepsPerEpoch = 7;
    auto make = [] {
      SGDOptions options;
      options.learning_rate = 0.2f;
      options.momentum = 0.5;
      return std::shared_ptr<Optimizer>(*SGD::Create(options));
    };
    build_model_ = [steps_per_execution](std::shared_ptr<Optimizer> optimizer) {
      return BuildModelExecuting(std::move(optimizer), steps_per_execution);
    };
    num_workers_ = 1;
    StartWorkers(make);
    FitOptions options;
    options.verbose = 0;
    options.epochs = kEpochs;
    options.steps_per_epoch = kStepsPerEpoch;
    options.class_weight = class_weight;

    auto chief = Strategy("chief", 0);
    ASSERT_NE(chief, nullptr);
    std::shared_ptr<Sequential> remote;
    auto remote_batches = std::make_shared<BatchEnds>();
    std::shared_ptr<History> remote_history;
    {
      distribute::StrategyScope scope(chief.get());
      auto model = build_model_(make());
      ASSERT_TRUE(model.ok()) << model.status();
      remote = *model;
      FitOptions remote_options = options;
      remote_options.callbacks = {remote_batches};
      auto history = remote->Fit(Creator(), remote_options);
      ASSERT_TRUE(history.ok()) << history.status();
      remote_history = *history;
    }

    auto one_device = distribute::OneDeviceStrategy::Create(HostDevice());
    ASSERT_TRUE(one_device.ok()) << one_device.status();
    distribute::StrategyScope scope(one_device->get());
    auto local = build_model_(make());
    ASSERT_TRUE(local.ok()) << local.status();
    auto local_batches = std::make_shared<BatchEnds>();
    options.callbacks = {local_batches};
    auto rows = Rows(1);
    ASSERT_TRUE(rows.ok()) << rows.status();
    auto local_history = (*local)->Fit(*rows, options);
    ASSERT_TRUE(local_history.ok()) << local_history.status();

    ASSERT_EQ(*(*local)->optimizer()->Iterations(), kEpochs * kStepsPerEpoch);
    ASSERT_EQ(*remote->optimizer()->Iterations(), kEpochs * kStepsPerEpoch);
    EXPECT_EQ(remote_batches->steps, batch_ends);
    EXPECT_EQ(local_batches->steps, batch_ends);
    const std::vector<double> remote_loss = remote_history->Get("loss");
    const std::vector<double> local_loss = (*local_history)->Get("loss");
    ASSERT_EQ(remote_loss.size(), static_cast<size_t>(kEpochs));
    ASSERT_EQ(local_loss.size(), static_cast<size_t>(kEpochs));
    for (int e = 0; e < kEpochs; ++e) {
      // The chief adds the steps up in double, the local tracker in float.
      EXPECT_NEAR(remote_loss[e], local_loss[e], 1e-5 * std::abs(local_loss[e])) << e;
    }
    const std::vector<Weight> expected = (*local)->weights();
    const std::vector<Weight> actual = remote->weights();
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t v = 0; v < actual.size(); ++v) {
      ExpectClose(*actual[v], *expected[v], actual[v]->name());
      auto remote_slot = remote->optimizer()->GetSlot(*actual[v], "m");
      auto local_slot = (*local)->optimizer()->GetSlot(*expected[v], "m");
      ASSERT_TRUE(remote_slot && local_slot) << actual[v]->name();
      ExpectClose(*remote_slot, *local_slot, actual[v]->name() + " m");
    }
  }
};

// One batch per step; class 1 counts triple and class 2 half.
TEST_F(ModelPsFitOptionsTest, ClassWeightWeightsTheWorkersLossesAsOneDevice) {
  ExpectSameAsOneDevice({{0, 1.0}, {1, 3.0}, {2, 0.5}}, 1,
                        {0, 1, 2, 3, 4, 5, 6, 0, 1, 2, 3, 4, 5, 6});
}

// Executions of 3 batches (the last of each epoch 1) in one call each.
TEST_F(ModelPsFitOptionsTest, StepsPerExecutionRunsOnTheWorkerAsOneDevice) {
  ExpectSameAsOneDevice({}, 3, {2, 5, 6, 2, 5, 6});
}

TEST_F(ModelPsFitOptionsTest, ClassWeightWithStepsPerExecutionAsOneDevice) {
  ExpectSameAsOneDevice({{0, 0.25}, {1, 2.0}, {2, 1.5}}, 3, {2, 5, 6, 2, 5, 6});
}

}  // namespace
}  // namespace nn
}  // namespace tfd
