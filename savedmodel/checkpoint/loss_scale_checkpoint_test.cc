// Checkpoints of mixed_float16 training: a LossScaleOptimizer's dynamic
// scale and good-steps counter are saved under Keras's keys with Keras's
// dtypes, and restored so that training resumes with them; a compiled
// model's wrapper and the optimizer given to the Checkpoint share them;
// checkpoints without them still restore into a loss-scaled model.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/nn/adam.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/layer_names.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "gtest/gtest.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace savedmodel {
namespace {

constexpr char kScaleKey[] = "optimizer/loss_scale/current_loss_scale/.ATTRIBUTES/VARIABLE_VALUE";
constexpr char kGoodStepsKey[] = "optimizer/loss_scale/good_steps/.ATTRIBUTES/VARIABLE_VALUE";

// Dense(16, relu) Dense(4) made under mixed_float16: float16 compute,
// float32 variables.
std::shared_ptr<nn::Model> MixedMlp() {
  nn::ScopedGlobalPolicy mixed(nn::DTypePolicy::FromName("mixed_float16").value());
  absl::StatusOr<std::shared_ptr<nn::Model>> model = test::MakeMlp();
  EXPECT_TRUE(model.ok()) << model.status();
  return model.ok() ? *model : nullptr;
}

std::shared_ptr<nn::Adam> NewAdam() {
  return std::shared_ptr<nn::Adam>(nn::Adam::Create(nn::AdamOptions()).value());
}

std::shared_ptr<nn::LossScaleOptimizer> Scaled(std::shared_ptr<nn::Optimizer> inner,
                                               nn::LossScaleOptions options = {}) {
  return nn::LossScaleOptimizer::Create(std::move(inner), options).value();
}

// Sets the scale state to values no fresh optimizer has.
void SetScaleState(nn::LossScaleOptimizer& optimizer, float scale, int64_t good_steps) {
  ASSERT_OK(optimizer.current_loss_scale()->AssignAll(Tensor::Scalar<float>(scale)));
  ASSERT_OK(optimizer.good_steps()->AssignAll(Tensor::Scalar<int64_t>(good_steps)));
}

TEST(LossScaleCheckpointTest, SavesScaleAndGoodStepsAsKerasDoes) {
  nn::ClearSession();
  auto model = MixedMlp();
  auto optimizer = Scaled(NewAdam());
  ASSERT_OK(test::Train(*model, *optimizer, test::MakeBatch({4, 8}, 4, 1), 2));
  ASSERT_OK_AND_ASSIGN(int64_t good_steps, optimizer->DynamicCounter());
  EXPECT_EQ(good_steps, 2);
  SetScaleState(*optimizer, 1024.0f, 17);

  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, optimizer).Save(test::TempDir("lso_keys") + "/ckpt"));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(path));
  ASSERT_OK_AND_ASSIGN(Tensor scale, reader->Lookup(kScaleKey));
  ASSERT_EQ(scale.dtype(), DT_FLOAT);
  ASSERT_EQ(scale.shape(), TensorShape());
  EXPECT_EQ(scale.scalar<float>(), 1024.0f);
  ASSERT_OK_AND_ASSIGN(Tensor steps, reader->Lookup(kGoodStepsKey));
  ASSERT_EQ(steps.dtype(), DT_INT64);
  ASSERT_EQ(steps.shape(), TensorShape());
  EXPECT_EQ(steps.scalar<int64_t>(), 17);
  // The wrapped optimizer's state is at the plain optimizer's keys.
  ASSERT_OK_AND_ASSIGN(Tensor iterations,
                       reader->Lookup("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"));
  EXPECT_EQ(iterations.scalar<int64_t>(), 2);
  EXPECT_TRUE(reader->Contains("optimizer/_variables/8/.ATTRIBUTES/VARIABLE_VALUE"));
  // The graph, 4 weights, 9 `_variables`, the learning rate, the scale
  // state and save_counter: what tf-keras writes (testdata's
  // mlp_mixed_float16_adam).
  EXPECT_EQ(reader->Keys().size(), 18u);
}

// A fresh model and optimizer take the scale, the counter, the step and
// the slots, and the next step is the one the saved run would take.
TEST(LossScaleCheckpointTest, RestoredTrainingContinuesWithTheSavedScale) {
  nn::ClearSession();
  const test::Batch batch = test::MakeBatch({4, 8}, 4, 2);
  auto model = MixedMlp();
  auto optimizer = Scaled(NewAdam());
  ASSERT_OK(test::Train(*model, *optimizer, batch, 3));
  SetScaleState(*optimizer, 4096.0f, 1999);
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, optimizer).Save(test::TempDir("lso_resume") + "/ckpt"));

  nn::ClearSession();
  auto fresh = MixedMlp();
  auto fresh_optimizer = Scaled(NewAdam());
  ASSERT_OK(Checkpoint(fresh, fresh_optimizer).Restore(path));
  ASSERT_OK_AND_ASSIGN(float scale, fresh_optimizer->LossScale());
  EXPECT_EQ(scale, 4096.0f);
  ASSERT_OK_AND_ASSIGN(int64_t good_steps, fresh_optimizer->DynamicCounter());
  EXPECT_EQ(good_steps, 1999);
  ASSERT_OK_AND_ASSIGN(int64_t iterations, fresh_optimizer->Iterations());
  EXPECT_EQ(iterations, 3);
  EXPECT_EQ(test::StateBytes(*fresh, *fresh_optimizer), test::StateBytes(*model, *optimizer));

  // Step 2000 of the counter doubles the scale in both runs.
  ASSERT_OK(test::Train(*model, *optimizer, batch, 1));
  ASSERT_OK(test::Train(*fresh, *fresh_optimizer, batch, 1));
  ASSERT_OK_AND_ASSIGN(scale, fresh_optimizer->LossScale());
  EXPECT_EQ(scale, 8192.0f);
  ASSERT_OK_AND_ASSIGN(good_steps, fresh_optimizer->DynamicCounter());
  EXPECT_EQ(good_steps, 0);
  EXPECT_EQ(test::StateBytes(*fresh, *fresh_optimizer), test::StateBytes(*model, *optimizer));
}

// Compiled under mixed_float16, the model's optimizer is the wrapper and
// the Checkpoint gets the Adam inside it (what the C API does): both
// nodes carry "loss_scale", and the keys are the ones Keras writes.
TEST(LossScaleCheckpointTest, CompiledWrapperAndInnerOptimizerShareTheScale) {
  nn::ClearSession();
  auto model = MixedMlp();
  auto adam = NewAdam();
  nn::SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  nn::CompileOptions compile;
  compile.optimizer = adam;
  compile.loss = std::make_shared<nn::SparseCategoricalCrossentropy>(loss);
  ASSERT_OK(model->Compile(compile));
  auto* wrapper = dynamic_cast<nn::LossScaleOptimizer*>(model->optimizer());
  ASSERT_NE(wrapper, nullptr);
  ASSERT_OK(test::Train(*model, *wrapper, test::MakeBatch({4, 8}, 4, 3), 2));
  SetScaleState(*wrapper, 256.0f, 5);

  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, adam).Save(test::TempDir("lso_compiled") + "/ckpt"));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(path));
  ASSERT_OK_AND_ASSIGN(Tensor scale, reader->Lookup(kScaleKey));
  EXPECT_EQ(scale.scalar<float>(), 256.0f);
  EXPECT_FALSE(
      reader->Contains("model/optimizer/loss_scale/good_steps/.ATTRIBUTES/VARIABLE_VALUE"));
  ASSERT_OK_AND_ASSIGN(Tensor proto, reader->Lookup(kObjectGraphKey));
  tensorflow::TrackableObjectGraph graph;
  ASSERT_TRUE(graph.ParseFromString(proto.data<std::string>()[0]));
  auto child = [&graph](int node, const std::string& name) {
    for (const auto& c : graph.nodes(node).children()) {
      if (c.local_name() == name) return c.node_id();
    }
    return -1;
  };
  const int inner = child(0, "optimizer");
  const int outer = child(child(0, "model"), "optimizer");
  ASSERT_GE(inner, 0);
  ASSERT_GE(outer, 0);
  EXPECT_NE(inner, outer);  // Two objects in Keras too.
  EXPECT_GE(child(inner, "loss_scale"), 0);
  EXPECT_EQ(child(inner, "loss_scale"), child(outer, "loss_scale"));
  EXPECT_EQ(child(inner, "_variables"), child(outer, "_variables"));

  // A fresh compiled model restores it, the scale included.
  nn::ClearSession();
  auto fresh = MixedMlp();
  auto fresh_adam = NewAdam();
  compile.optimizer = fresh_adam;
  ASSERT_OK(fresh->Compile(compile));
  ASSERT_OK(Checkpoint(fresh, fresh_adam).Restore(path));
  auto* fresh_wrapper = dynamic_cast<nn::LossScaleOptimizer*>(fresh->optimizer());
  ASSERT_NE(fresh_wrapper, nullptr);
  ASSERT_OK_AND_ASSIGN(float restored_scale, fresh_wrapper->LossScale());
  EXPECT_EQ(restored_scale, 256.0f);
  ASSERT_OK_AND_ASSIGN(int64_t good_steps, fresh_wrapper->DynamicCounter());
  EXPECT_EQ(good_steps, 5);
  ASSERT_OK_AND_ASSIGN(int64_t iterations, fresh_adam->Iterations());
  EXPECT_EQ(iterations, 2);
}

// A float32 run's checkpoint has no loss scale; a mixed_float16 model
// restores its weights and slots and starts scaling afresh (Keras leaves
// what a checkpoint lacks as it is).
TEST(LossScaleCheckpointTest, CheckpointWithoutScaleRestoresIntoScaledTraining) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto plain, test::MakeMlp());
  auto adam = NewAdam();
  ASSERT_OK(test::Train(*plain, *adam, test::MakeBatch({4, 8}, 4, 4), 2));
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(plain, adam).Save(test::TempDir("lso_from_f32") + "/ckpt"));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(path));
  EXPECT_FALSE(reader->Contains(kScaleKey));

  nn::ClearSession();
  auto mixed = MixedMlp();
  auto optimizer = Scaled(NewAdam());
  ASSERT_OK(Checkpoint(mixed, optimizer).Restore(path));
  ASSERT_OK_AND_ASSIGN(float scale, optimizer->LossScale());
  EXPECT_EQ(scale, 32768.0f);
  ASSERT_OK_AND_ASSIGN(int64_t iterations, optimizer->Iterations());
  EXPECT_EQ(iterations, 2);
  EXPECT_EQ(test::StateBytes(*mixed, *optimizer), test::StateBytes(*plain, *adam));
}

// A fixed scale is no state in Keras: nothing is saved for it.
TEST(LossScaleCheckpointTest, FixedScaleSavesNoState) {
  nn::ClearSession();
  auto model = MixedMlp();
  nn::LossScaleOptions fixed;
  fixed.dynamic = false;
  fixed.initial_scale = 128.0;
  auto optimizer = Scaled(NewAdam(), fixed);
  ASSERT_OK(test::Train(*model, *optimizer, test::MakeBatch({4, 8}, 4, 5), 1));
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, optimizer).Save(test::TempDir("lso_fixed") + "/ckpt"));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(path));
  EXPECT_FALSE(reader->Contains(kScaleKey));
  EXPECT_FALSE(reader->Contains(kGoodStepsKey));
  EXPECT_TRUE(reader->Contains("optimizer/_variables/8/.ATTRIBUTES/VARIABLE_VALUE"));
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
