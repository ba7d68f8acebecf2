#include "core/nn/callbacks/model_checkpoint.h"

#include <unistd.h>

#include <cstdlib>

#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_state.h"

namespace tfd {
namespace nn {
namespace {

std::string TempDir(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/model_checkpoint_test." +
         std::to_string(getpid()) + "/" + name;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

std::shared_ptr<Sequential> DenseModel() {
  auto model = Sequential::Make({MakeInputLayer({kNone, 2}), std::make_shared<Dense>(1)});
  EXPECT_TRUE(model.ok()) << model.status();
  return *model;
}

std::vector<float> Kernel(const Model& model) {
  const Tensor k = tfd::test::ToHost(model.weights()[0]->component(0).Peek());
  return std::vector<float>(k.data<float>(), k.data<float>() + k.NumElements());
}

void SetKernel(Model& model, float a, float b) {
  ASSERT_OK(model.weights()[0]->AssignAll(*Tensor::FromVector<float>({a, b}, {2, 1})));
}

TEST(FormatCheckpointPathTest, FormatsAsPythonFormats) {
  const Logs logs{{"loss", 0.25}, {"val_loss", 0.4567}, {"val_accuracy", 0.91234}};
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"ckpt_{epoch}", "ckpt_3"},
      {"ckpt_{epoch:02d}-{val_loss:.2f}", "ckpt_03-0.46"},
      {"{loss}", "0.25"},
      {"{val_accuracy:.4f}", "0.9123"},
      {"{val_accuracy:.1%}", "91.2%"},
      {"{val_loss:8.3f}", "   0.457"},
      {"{{epoch}}_{epoch}", "{epoch}_3"},
  };
  for (const auto& [pattern, expected] : cases) {
    absl::StatusOr<std::string> path = FormatCheckpointPath(pattern, 3, logs);
    ASSERT_TRUE(path.ok()) << pattern << ": " << path.status();
    EXPECT_EQ(*path, expected) << pattern;
  }
}

TEST(FormatCheckpointPathTest, RefusesWhatItCannotFormat) {
  const Logs logs{{"loss", 0.25}};
  for (const char* pattern : {"ckpt_{val_loss}", "ckpt_{loss:02d}", "ckpt_{loss:>10}",
                              "ckpt_{epoch", "ckpt_}"}) {
    EXPECT_EQ(FormatCheckpointPath(pattern, 1, logs).status().code(),
              absl::StatusCode::kInvalidArgument)
        << pattern;
  }
}

TEST(ModelCheckpointTest, SavesEachEpochAndTheCheckpointRestores) {
  ClearSession();
  auto model = DenseModel();
  const std::string dir = TempDir("each_epoch");
  ModelCheckpointOptions options;
  options.filepath = dir + "/ckpt_{epoch}";
  ASSERT_OK_AND_ASSIGN(auto callback, ModelCheckpoint::Create(options));
  callback->SetModel(model.get());
  for (int epoch = 0; epoch < 2; ++epoch) {
    SetKernel(*model, 1.0f + epoch, -1.0f);
    Logs logs{{"loss", 1.0}};
    ASSERT_OK(callback->OnEpochEnd(epoch, logs));
  }
  EXPECT_TRUE(Exists(dir + "/ckpt_1.index"));
  EXPECT_TRUE(Exists(dir + "/ckpt_2.index"));
  ASSERT_OK_AND_ASSIGN(std::string latest, savedmodel::LatestCheckpoint(dir));
  EXPECT_EQ(latest, dir + "/ckpt_2");

  auto restored = DenseModel();
  SetKernel(*restored, 0.0f, 0.0f);
  savedmodel::Checkpoint checkpoint(restored, nullptr);
  ASSERT_OK(checkpoint.Restore(latest));
  EXPECT_EQ(Kernel(*restored), (std::vector<float>{2.0f, -1.0f}));
}

TEST(ModelCheckpointTest, SaveBestOnlySkipsEpochsThatDoNotImprove) {
  ClearSession();
  auto model = DenseModel();
  const std::string dir = TempDir("best_only");
  ModelCheckpointOptions options;
  options.filepath = dir + "/best_{epoch:02d}";
  options.save_best_only = true;
  ASSERT_OK_AND_ASSIGN(auto callback, ModelCheckpoint::Create(options));
  callback->SetModel(model.get());
  const std::vector<double> val_loss = {1.0, 0.8, 0.9, 0.7};
  for (int epoch = 0; epoch < 4; ++epoch) {
    Logs logs{{"loss", 1.0}, {"val_loss", val_loss[epoch]}};
    ASSERT_OK(callback->OnEpochEnd(epoch, logs));
  }
  EXPECT_TRUE(Exists(dir + "/best_01.index"));
  EXPECT_TRUE(Exists(dir + "/best_02.index"));
  EXPECT_FALSE(Exists(dir + "/best_03.index"));
  EXPECT_TRUE(Exists(dir + "/best_04.index"));
  EXPECT_EQ(callback->best(), 0.7);
  EXPECT_EQ(callback->last_saved(), dir + "/best_04");
}

TEST(ModelCheckpointTest, AccuracyIsMaximizedAndTheThresholdMustBeBeaten) {
  ClearSession();
  auto model = DenseModel();
  const std::string dir = TempDir("threshold");
  ModelCheckpointOptions options;
  options.filepath = dir + "/ckpt_{epoch}";
  options.monitor = "val_accuracy";
  options.save_best_only = true;
  options.initial_value_threshold = 0.6;
  ASSERT_OK_AND_ASSIGN(auto callback, ModelCheckpoint::Create(options));
  callback->SetModel(model.get());
  const std::vector<double> accuracy = {0.5, 0.7, 0.65};
  for (int epoch = 0; epoch < 3; ++epoch) {
    Logs logs{{"val_accuracy", accuracy[epoch]}};
    ASSERT_OK(callback->OnEpochEnd(epoch, logs));
  }
  EXPECT_FALSE(Exists(dir + "/ckpt_1.index"));
  EXPECT_TRUE(Exists(dir + "/ckpt_2.index"));
  EXPECT_FALSE(Exists(dir + "/ckpt_3.index"));
}

TEST(ModelCheckpointTest, RefusesWhatItDoesNotWrite) {
  ModelCheckpointOptions options;
  options.filepath = "/tmp/model";
  options.save_weights_only = false;
  EXPECT_EQ(ModelCheckpoint::Create(options).status().code(), absl::StatusCode::kUnimplemented);
  options.save_weights_only = true;
  options.filepath = "/tmp/model.h5";
  EXPECT_EQ(ModelCheckpoint::Create(options).status().code(), absl::StatusCode::kUnimplemented);
  options.filepath = "";
  EXPECT_EQ(ModelCheckpoint::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
  options.filepath = "/tmp/x";
  options.mode = "largest";
  EXPECT_EQ(ModelCheckpoint::Create(options).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
