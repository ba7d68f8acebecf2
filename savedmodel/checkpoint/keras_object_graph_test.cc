// tfd's checkpoints of the models and optimizers of
// testdata/make_keras_object_graphs.py carry exactly the object graph that
// tf-keras 2.21 writes for them: nodes in the same order, the same edges,
// keys, variable names and has_checkpoint_values flags. The mixed_float16
// case trains through a LossScaleOptimizer: its "loss_scale" state sits
// on the wrapped optimizer's node, as Keras tracks it.
#include "savedmodel/checkpoint/keras_object_graph.h"

#include <algorithm>
#include <functional>
#include <ostream>
#include <memory>
#include <optional>
#include <string>

#include "core/io/file.h"
#include "core/nn/adagrad.h"
#include "core/nn/adam.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/layer_names.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/learning_rate_schedule.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/rmsprop.h"
#include "core/nn/sgd.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace savedmodel {
namespace {

using ModelFn = std::function<absl::StatusOr<std::shared_ptr<nn::Model>>()>;
using OptimizerFn = std::function<absl::StatusOr<std::shared_ptr<nn::Optimizer>>()>;

template <typename T>
absl::StatusOr<std::shared_ptr<nn::Optimizer>> Shared(absl::StatusOr<std::unique_ptr<T>> opt) {
  if (!opt.ok()) return opt.status();
  return std::shared_ptr<nn::Optimizer>(std::move(opt).value());
}

struct Case {
  std::string name;  // testdata/<name>.pbtxt
  ModelFn model;
  TensorShape input_shape;
  OptimizerFn optimizer;
  // The global dtype policy while the model is made.
  std::string policy = "float32";
};

void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class KerasObjectGraphTest : public ::testing::TestWithParam<Case> {};

TEST_P(KerasObjectGraphTest, SameGraphAsTfKeras) {
  const Case& c = GetParam();
  nn::ClearSession();
  ASSERT_OK_AND_ASSIGN(nn::DTypePolicy policy, nn::DTypePolicy::FromName(c.policy));
  std::optional<nn::ScopedGlobalPolicy> scoped(policy);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<nn::Model> model, c.model());
  scoped.reset();
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<nn::Optimizer> optimizer, c.optimizer());
  ASSERT_OK(test::Train(*model, *optimizer, test::MakeBatch(c.input_shape, 4, 1), 1));

  Checkpoint checkpoint(model, optimizer);
  ASSERT_OK_AND_ASSIGN(std::string path, checkpoint.Save(test::TempDir(c.name) + "/ckpt"));
  ASSERT_OK_AND_ASSIGN(auto reader, BundleReader::Open(path));
  ASSERT_OK_AND_ASSIGN(Tensor proto, reader->Lookup(kObjectGraphKey));
  tensorflow::TrackableObjectGraph ours;
  ASSERT_TRUE(ours.ParseFromString(proto.data<std::string>()[0]));

  ASSERT_OK_AND_ASSIGN(std::string text,
                       io::ReadFileToString("savedmodel/checkpoint/testdata/" + c.name + ".pbtxt"));
  tensorflow::TrackableObjectGraph keras;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &keras));
  ASSERT_GT(keras.nodes_size(), 10);

  google::protobuf::util::MessageDifferencer differencer;
  std::string report;
  differencer.ReportDifferencesToString(&report);
  EXPECT_TRUE(differencer.Compare(ours, keras)) << report;

  // Every key the graph names is in the bundle, and nothing else is.
  std::vector<std::string> keys = {kObjectGraphKey};
  for (const auto& node : keras.nodes()) {
    for (const auto& a : node.attributes()) keys.push_back(a.checkpoint_key());
  }
  std::sort(keys.begin(), keys.end());
  EXPECT_EQ(reader->Keys(), keys);
}

absl::StatusOr<std::shared_ptr<nn::Optimizer>> DefaultAdam() {
  return Shared(nn::Adam::Create(nn::AdamOptions()));
}

// What compile() makes of Adam under mixed_float16.
absl::StatusOr<std::shared_ptr<nn::Optimizer>> LossScaledAdam() {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Optimizer> adam, DefaultAdam());
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::LossScaleOptimizer> scaled,
                       nn::LossScaleOptimizer::Create(std::move(adam)));
  return std::shared_ptr<nn::Optimizer>(std::move(scaled));
}

INSTANTIATE_TEST_SUITE_P(
    TfKeras, KerasObjectGraphTest,
    ::testing::Values(
        Case{"cnn_adam", test::MakeCnn, {2, 28, 28, 1}, DefaultAdam},
        Case{"functional_bn_adam", test::MakeFunctionalBn, {4, 8}, DefaultAdam},
        Case{"nested_sequential_sgd", test::MakeNestedSequential, {4, 4},
             [] {
               nn::SGDOptions o;
               o.learning_rate = 0.1f;
               return Shared(nn::SGD::Create(o));
             }},
        Case{"mlp_sgd_momentum", test::MakeMlp, {4, 8},
             [] {
               nn::SGDOptions o;
               o.learning_rate = 0.1f;
               o.momentum = 0.9;
               return Shared(nn::SGD::Create(o));
             }},
        Case{"mlp_rmsprop_centered", test::MakeMlp, {4, 8},
             [] {
               nn::RMSpropOptions o;
               o.momentum = 0.5;
               o.centered = true;
               return Shared(nn::RMSprop::Create(o));
             }},
        Case{"mlp_adagrad", test::MakeMlp, {4, 8},
             [] { return Shared(nn::Adagrad::Create(nn::AdagradOptions())); }},
        Case{"mlp_adamw_amsgrad", test::MakeMlp, {4, 8},
             [] {
               nn::AdamWOptions o;
               o.amsgrad = true;
               return Shared(nn::AdamW::Create(o));
             }},
        Case{"mlp_sgd_schedule", test::MakeMlp, {4, 8},
             []() -> absl::StatusOr<std::shared_ptr<nn::Optimizer>> {
               auto schedule = nn::ExponentialDecay::Create(0.1f, 10, 0.9f);
               if (!schedule.ok()) return schedule.status();
               nn::SGDOptions o;
               o.learning_rate = *schedule;
               return Shared(nn::SGD::Create(o));
             }},
        Case{"mlp_mixed_float16_adam", test::MakeMlp, {4, 8}, LossScaledAdam,
             "mixed_float16"}),
    [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
