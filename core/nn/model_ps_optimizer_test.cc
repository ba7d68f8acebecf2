// The optimizers a parameter server applies take the steps the local
// optimizer takes: a parameter-server job in this process
// (model_ps_testutil.h) trains N steps one at a time, and the same model
// under OneDeviceStrategy fits the same N batches; values and slots agree
// within 1e-6.
//
// Every batch is the same one (FixedBatch), and the chief waits for each
// step before it schedules the next, so the job's steps are sequential
// whichever worker runs them.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/distribute/one_device_strategy.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/framework/device.h"
#include "core/nn/adam.h"
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
      auto model = BuildModel(make());
      ASSERT_TRUE(model.ok()) << model.status();
      remote = *model;
      initial = remote->TrainableVariables()[0]->component(0).Peek().flat<float>()[0];
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
    auto local = BuildModel(make());
    ASSERT_TRUE(local.ok()) << local.status();
    FitOptions options;
    options.verbose = 0;
    auto history = (*local)->Fit(*FixedBatch(kSteps), options);
    ASSERT_TRUE(history.ok()) << history.status();

    ASSERT_EQ(*(*local)->optimizer()->Iterations(), kSteps);
    ASSERT_EQ(*remote->optimizer()->Iterations(), kSteps);
    const std::vector<Weight> expected = (*local)->TrainableVariables();
    const std::vector<Weight> actual = remote->TrainableVariables();
    ASSERT_EQ(actual.size(), expected.size());
    // Trained at all: the weights moved from where both started.
    EXPECT_NE(actual[0]->component(0).Peek().flat<float>()[0], initial);
    for (size_t v = 0; v < actual.size(); ++v) {
      ExpectClose(*actual[v], *expected[v], actual[v]->name());
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

}  // namespace
}  // namespace nn
}  // namespace tfd
