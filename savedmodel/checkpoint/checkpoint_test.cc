// Checkpoint::Save/Write/Restore: values and keys written, save_counter,
// resuming training exactly, restoring into every replica copy, and the
// errors for models and files that do not match.
#include "savedmodel/checkpoint/checkpoint.h"

#include <memory>
#include <string>
#include <vector>

#include "core/distribute/strategy.h"
#include "core/io/file.h"
#include "core/nn/adam.h"
#include "core/nn/dense.h"
#include "core/nn/layer_names.h"
#include "core/nn/layer_test_strategy.h"
#include "core/nn/losses.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint_state.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace savedmodel {
namespace {

using nn::test::ExpectError;
using nn::test::Values;

std::shared_ptr<nn::Optimizer> NewAdam(float learning_rate = 0.01f) {
  nn::AdamOptions options;
  options.learning_rate = learning_rate;
  return std::shared_ptr<nn::Optimizer>(nn::Adam::Create(options).value());
}

std::shared_ptr<nn::Optimizer> NewSgd(float learning_rate, double momentum) {
  nn::SGDOptions options;
  options.learning_rate = learning_rate;
  options.momentum = momentum;
  return std::shared_ptr<nn::Optimizer>(nn::SGD::Create(options).value());
}

TEST(CheckpointTest, SaveWritesEveryValueUnderItsKerasKey) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  auto optimizer = NewAdam();
  ASSERT_OK(test::Train(*model, *optimizer, test::MakeBatch({4, 8}, 4, 1), 2));
  Checkpoint checkpoint(model, optimizer);
  const std::string dir = test::TempDir("save_keys");
  ASSERT_OK_AND_ASSIGN(std::string path, checkpoint.Save(dir + "/ckpt"));
  EXPECT_EQ(path, dir + "/ckpt-1");
  EXPECT_EQ(checkpoint.save_counter(), 1);

  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(path));
  auto expect_value = [&](const std::string& key, const Tensor& expected) {
    ASSERT_OK_AND_ASSIGN(Tensor got, reader->Lookup(key));
    EXPECT_EQ(got.dtype(), expected.dtype()) << key;
    EXPECT_EQ(Values(got), Values(expected)) << key;
  };
  const auto weights = model->weights();
  expect_value("model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE",
               weights[0]->component(0).Peek());
  expect_value("model/layer_with_weights-1/bias/.ATTRIBUTES/VARIABLE_VALUE",
               weights[3]->component(0).Peek());
  // _variables: iterations, then m and v of each variable in turn.
  const auto slots = optimizer->variables();
  expect_value("optimizer/_variables/1/.ATTRIBUTES/VARIABLE_VALUE", slots[1]->component(0).Peek());
  expect_value("optimizer/_variables/8/.ATTRIBUTES/VARIABLE_VALUE", slots[8]->component(0).Peek());
  EXPECT_EQ(slots[8]->name(), "Adam/v/dense_1/bias");
  expect_value("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE", Tensor::Scalar<int64_t>(2));
  expect_value("optimizer/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE", Tensor::Scalar<float>(0.01f));
  expect_value("save_counter/.ATTRIBUTES/VARIABLE_VALUE", Tensor::Scalar<int64_t>(1));

  // A second save numbers the next file and updates the state file.
  ASSERT_OK_AND_ASSIGN(std::string second, checkpoint.Save(dir + "/ckpt"));
  EXPECT_EQ(second, dir + "/ckpt-2");
  ASSERT_OK_AND_ASSIGN(std::string latest, LatestCheckpoint(dir));
  EXPECT_EQ(latest, second);
  EXPECT_TRUE(io::FileExists(MetaFilename(path)));
}

// Training k steps, saving, restoring into a fresh model and optimizer and
// training m more steps gives bit for bit the weights, slots and step
// counter of k + m uninterrupted steps.
void ExpectResumesExactly(const std::function<std::shared_ptr<nn::Optimizer>()>& make_optimizer) {
  const test::Batch batch = test::MakeBatch({8, 28, 28, 1}, 10, 7);
  const int k = 2, m = 2;
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto straight, test::MakeCnn());
  auto straight_opt = make_optimizer();
  ASSERT_OK_AND_ASSIGN(auto first, test::MakeCnn());
  auto first_opt = make_optimizer();
  // Same initial weights for both runs.
  for (size_t i = 0; i < straight->weights().size(); ++i) {
    ASSERT_OK(first->weights()[i]->AssignAll(straight->weights()[i]->component(0).Peek()));
  }
  ASSERT_OK(test::Train(*straight, *straight_opt, batch, k + m));

  ASSERT_OK(test::Train(*first, *first_opt, batch, k));
  const std::string dir = test::TempDir("resume");
  ASSERT_OK_AND_ASSIGN(std::string path, Checkpoint(first, first_opt).Save(dir + "/ckpt"));

  ASSERT_OK_AND_ASSIGN(auto resumed, test::MakeCnn());  // other initial weights
  auto resumed_opt = make_optimizer();
  ASSERT_FALSE(resumed_opt->built());
  Checkpoint checkpoint(resumed, resumed_opt);
  ASSERT_OK(checkpoint.Restore(path));
  EXPECT_EQ(checkpoint.save_counter(), 1);
  ASSERT_OK_AND_ASSIGN(int64_t iterations, resumed_opt->Iterations());
  EXPECT_EQ(iterations, k);
  ASSERT_OK(test::Train(*resumed, *resumed_opt, batch, m));

  const auto expected = test::StateBytes(*straight, *straight_opt);
  const auto got = test::StateBytes(*resumed, *resumed_opt);
  ASSERT_EQ(got.size(), expected.size());
  // Variable names differ (the models were made one after another): compare values.
  for (size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].substr(got[i].find('=')), expected[i].substr(expected[i].find('=')))
        << "variable " << i << ": " << got[i].substr(0, got[i].find('='));
  }
}

TEST(CheckpointTest, AdamResumesExactly) { ExpectResumesExactly([] { return NewAdam(); }); }

TEST(CheckpointTest, SgdWithMomentumResumesExactly) {
  ExpectResumesExactly([] { return NewSgd(0.05f, 0.9); });
}

TEST(CheckpointTest, RestoresTheLearningRate) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  auto optimizer = NewSgd(0.25f, 0.0);
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, optimizer).Save(test::TempDir("lr") + "/ckpt"));
  // An optimizer owned elsewhere, passed by pointer.
  auto other = NewSgd(0.5f, 0.0);
  ASSERT_OK(Checkpoint(model, other.get()).Restore(path));
  ASSERT_OK_AND_ASSIGN(float rate, other->CurrentLearningRate());
  EXPECT_EQ(rate, 0.25f);
}

// Under a two-replica strategy: mirrored variables save their primary copy
// and restore into both copies; sync-on-read moving statistics save the
// mean of the replicas' copies.
TEST(CheckpointTest, MirroredAndSyncOnReadVariables) {
  nn::ClearSession();
  nn::test::LayerTestStrategy strategy(2);
  std::shared_ptr<nn::Model> model;
  std::shared_ptr<nn::Optimizer> optimizer;
  {
    distribute::StrategyScope scope(&strategy);
    ASSERT_OK_AND_ASSIGN(model, test::MakeFunctionalBn());
    optimizer = NewAdam();
    std::vector<distribute::DistributedVariable*> vars;
    for (const nn::Weight& w : model->TrainableVariables()) vars.push_back(w.get());
    ASSERT_OK(optimizer->Build(vars));
  }
  ASSERT_EQ(model->weights().size(), 8u);
  ASSERT_EQ(model->weights()[0]->num_components(), 2);
  ASSERT_OK_AND_ASSIGN(auto bn, model->GetLayer("batch_normalization"));
  ASSERT_EQ(bn->weights().size(), 4u);
  const nn::Weight moving_mean = bn->weights()[2];
  ASSERT_EQ(moving_mean->name(), "batch_normalization/moving_mean");
  ASSERT_EQ(moving_mean->synchronization(), distribute::VariableSynchronization::kOnRead);
  ASSERT_OK(moving_mean->component(0).Assign(nn::test::FromDoubles(DT_FLOAT, std::vector<double>(16, 1.0), {16})));
  ASSERT_OK(moving_mean->component(1).Assign(nn::test::FromDoubles(DT_FLOAT, std::vector<double>(16, 3.0), {16})));

  const std::string dir = test::TempDir("mirrored");
  std::string path;
  {
    distribute::StrategyScope scope(&strategy);
    Checkpoint checkpoint(model, optimizer);
    ASSERT_OK_AND_ASSIGN(path, checkpoint.Save(dir + "/ckpt"));
  }
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(path));
  ASSERT_OK_AND_ASSIGN(Tensor saved_mean,
                       reader->Lookup("model/layer_with_weights-1/moving_mean/.ATTRIBUTES/VARIABLE_VALUE"));
  EXPECT_EQ(Values(saved_mean), std::vector<double>(16, 2.0));

  // Restore into a fresh mirrored model: every replica's copy gets the value.
  nn::ClearSession();
  std::shared_ptr<nn::Model> fresh;
  std::shared_ptr<nn::Optimizer> fresh_opt;
  {
    distribute::StrategyScope scope(&strategy);
    ASSERT_OK_AND_ASSIGN(fresh, test::MakeFunctionalBn());
    fresh_opt = NewAdam();
    ASSERT_OK(Checkpoint(fresh, fresh_opt).Restore(path));
  }
  for (size_t i = 0; i < fresh->weights().size(); ++i) {
    const nn::Weight w = fresh->weights()[i];
    ASSERT_OK_AND_ASSIGN(Tensor original, model->weights()[i]->Value());
    for (int c = 0; c < w->num_components(); ++c) {
      EXPECT_EQ(Values(w->component(c).Peek()), Values(original)) << w->name() << " replica " << c;
    }
  }
  // The slots were created for both replicas and restored.
  ASSERT_TRUE(fresh_opt->built());
  ASSERT_EQ(fresh_opt->variables().size(), 13u);
  EXPECT_EQ(fresh_opt->variables()[1]->num_components(), 2);
}

TEST(CheckpointTest, MatchesByObjectGraphNotByVariableNames) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, nullptr).Save(test::TempDir("by_graph") + "/ckpt"));
  // Layers named otherwise ("dense_2", "dense_3" and explicit names) in the
  // same positions restore.
  ASSERT_OK_AND_ASSIGN(
      auto renamed,
      nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 8}),
                            std::make_shared<nn::Dense>(16, nn::DenseOptions().Name("hidden")),
                            std::make_shared<nn::Dense>(4, nn::DenseOptions().Name("logits"))}));
  ASSERT_OK(Checkpoint(renamed, nullptr).Restore(path));
  for (size_t i = 0; i < renamed->weights().size(); ++i) {
    EXPECT_EQ(Values(renamed->weights()[i]->component(0).Peek()),
              Values(model->weights()[i]->component(0).Peek()));
  }
}

TEST(CheckpointTest, ShapeMismatchNamesTheKeyAndChangesNothing) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, nullptr).Save(test::TempDir("shape") + "/ckpt"));
  ASSERT_OK_AND_ASSIGN(
      auto wider, nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 8}),
                                        std::make_shared<nn::Dense>(16),
                                        std::make_shared<nn::Dense>(5)}));
  const std::vector<double> before = Values(wider->weights()[0]->component(0).Peek());
  ExpectError(Checkpoint(wider, nullptr).Restore(path), absl::StatusCode::kInvalidArgument,
              {"model/layer_with_weights-1/kernel/.ATTRIBUTES/VARIABLE_VALUE", "[16,5]", "[16,4]"});
  // The first layer matched, but nothing is assigned when any value fails.
  EXPECT_EQ(Values(wider->weights()[0]->component(0).Peek()), before);
}

TEST(CheckpointTest, DtypeMismatchNamesTheKey) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, nullptr).Save(test::TempDir("dtype") + "/ckpt"));
  nn::DenseOptions f64;
  f64.layer.dtype = DT_DOUBLE;
  ASSERT_OK_AND_ASSIGN(auto doubles,
                       nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 8}),
                                             std::make_shared<nn::Dense>(16, f64),
                                             std::make_shared<nn::Dense>(4, f64)}));
  ExpectError(Checkpoint(doubles, nullptr).Restore(path), absl::StatusCode::kInvalidArgument,
              {"model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE", "expected float64 [8,16]",
               "checkpoint has float32 [8,16]"});
}

TEST(CheckpointTest, MissingObjectsAreNamed) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  ASSERT_OK_AND_ASSIGN(std::string path,
                       Checkpoint(model, nullptr).Save(test::TempDir("missing") + "/ckpt"));
  // A model-only checkpoint has no optimizer state, for a new optimizer...
  ExpectError(Checkpoint(model, NewAdam()).Restore(path), absl::StatusCode::kNotFound,
              {"optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE",
               "optimizer/_learning_rate/.ATTRIBUTES/VARIABLE_VALUE"});
  // ...nor slots for a built one.
  auto built = NewAdam();
  ASSERT_OK(test::Train(*model, *built, test::MakeBatch({4, 8}, 4, 1), 1));
  ExpectError(Checkpoint(model, built).Restore(path), absl::StatusCode::kNotFound,
              {"optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE",
               "optimizer/_variables/1/.ATTRIBUTES/VARIABLE_VALUE"});
  // A deeper model than the checkpoint's.
  ASSERT_OK_AND_ASSIGN(
      auto deeper, nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 8}),
                                         std::make_shared<nn::Dense>(16),
                                         std::make_shared<nn::Dense>(4),
                                         std::make_shared<nn::Dense>(2)}));
  ExpectError(Checkpoint(deeper, nullptr).Restore(path), absl::StatusCode::kNotFound,
              {"model/layer_with_weights-2/kernel/.ATTRIBUTES/VARIABLE_VALUE"});
}

// A compiled model tracks its optimizer as "optimizer", as Keras's does: a
// checkpoint of the model alone keeps the optimizer's state under
// model/optimizer/, and with the optimizer also at the root it is one node
// whose keys take the shorter path.
TEST(CheckpointTest, CompiledModelTracksItsOptimizer) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  auto adam = NewAdam();
  nn::SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  nn::CompileOptions compile;
  compile.optimizer = adam;
  compile.loss = std::make_shared<nn::SparseCategoricalCrossentropy>(loss);
  ASSERT_OK(model->Compile(compile));
  ASSERT_OK(test::Train(*model, *adam, test::MakeBatch({4, 8}, 4, 1), 3));
  const std::string dir = test::TempDir("compiled");

  ASSERT_OK_AND_ASSIGN(std::string model_only, Checkpoint(model, nullptr).Save(dir + "/model"));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(model_only));
  EXPECT_TRUE(reader->Contains("model/optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"));
  EXPECT_TRUE(reader->Contains("model/optimizer/_variables/8/.ATTRIBUTES/VARIABLE_VALUE"));

  ASSERT_OK_AND_ASSIGN(std::string both, Checkpoint(model, model->optimizer()).Save(dir + "/both"));
  ASSERT_OK_AND_ASSIGN(reader, BundleReader::Open(both));
  EXPECT_TRUE(reader->Contains("optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"));
  EXPECT_FALSE(reader->Contains("model/optimizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE"));
  ASSERT_OK_AND_ASSIGN(Tensor proto, reader->Lookup(kObjectGraphKey));
  tensorflow::TrackableObjectGraph graph;
  ASSERT_TRUE(graph.ParseFromString(proto.data<std::string>()[0]));
  int root_optimizer = -1, model_optimizer = -2;
  for (const auto& c : graph.nodes(0).children()) {
    if (c.local_name() == "optimizer") root_optimizer = c.node_id();
  }
  for (const auto& c : graph.nodes(1).children()) {
    if (c.local_name() == "optimizer") model_optimizer = c.node_id();
  }
  EXPECT_EQ(root_optimizer, model_optimizer);

  // A fresh compiled model restores the optimizer's state from model/optimizer/.
  ASSERT_OK_AND_ASSIGN(auto fresh, test::MakeMlp());
  auto fresh_adam = NewAdam();
  compile.optimizer = fresh_adam;
  ASSERT_OK(fresh->Compile(compile));
  ASSERT_OK(Checkpoint(fresh, nullptr).Restore(model_only));
  ASSERT_OK_AND_ASSIGN(int64_t iterations, fresh_adam->Iterations());
  EXPECT_EQ(iterations, 3);
}

// An optimizer class whose Keras layout the checkpoint does not know.
class PlainDescent : public nn::Optimizer {
 public:
  PlainDescent() : Optimizer("PlainDescent", 0.1f, nn::OptimizerOptions()) {}

 protected:
  absl::Status CreateSlots(absl::Span<distribute::DistributedVariable* const>) override {
    return absl::OkStatus();
  }
  absl::Status UpdateStep(const UpdateArgs&) override {
    return absl::UnimplementedError("PlainDescent takes no steps");
  }
};

TEST(CheckpointTest, UnknownOptimizerIsUnimplemented) {
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  const std::string dir = test::TempDir("unknown_optimizer");
  ExpectError(Checkpoint(model, std::make_shared<PlainDescent>()).Save(dir + "/ckpt").status(),
              absl::StatusCode::kUnimplemented, {"PlainDescent", "Keras layout"});
  EXPECT_FALSE(io::FileExists(dir + "/ckpt-1.index"));
}

TEST(CheckpointTest, UnbuiltModelAndMissingFiles) {
  nn::ClearSession();
  auto unbuilt = std::make_shared<nn::Sequential>();
  ASSERT_OK(unbuilt->Add(std::make_shared<nn::Dense>(4)));
  const std::string dir = test::TempDir("unbuilt");
  ExpectError(Checkpoint(unbuilt, nullptr).Save(dir + "/ckpt").status(),
              absl::StatusCode::kFailedPrecondition, {"not built"});
  EXPECT_FALSE(io::FileExists(dir + "/ckpt-1.index"));
  ASSERT_OK_AND_ASSIGN(auto model, test::MakeMlp());
  ExpectError(Checkpoint(model, nullptr).Restore(dir + "/nothing"), absl::StatusCode::kNotFound,
              {"nothing.index"});
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
