#include "core/nn/callbacks/backup_and_restore.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/data/dataset.h"
#include "core/data/transforms.h"
#include "core/framework/tensor_testutil.h"
#include "core/nn/adam.h"
#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/losses.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

constexpr int kSamples = 40;
constexpr int kBatch = 5;  // 8 steps per epoch
constexpr int kEpochs = 3;

std::string TempDir(const std::string& name) {
  return std::string(std::getenv("TEST_TMPDIR")) + "/backup_and_restore_test." +
         std::to_string(getpid()) + "/" + name;
}

bool Exists(const std::string& path) { return access(path.c_str(), F_OK) == 0; }

data::DatasetPtr MakeDataset() {
  std::vector<float> xs;
  std::vector<int32_t> ys;
  for (int i = 0; i < kSamples; ++i) {
    for (int j = 0; j < 4; ++j) xs.push_back(static_cast<float>((i * 7 + j * 3) % 11) / 10 - 0.5f);
    ys.push_back((i * 5 % 3) % 2);
  }
  auto ds = data::FromTensorSlices(
      {tfd::test::AsTensor<float>(xs, {kSamples, 4}), tfd::test::AsTensor<int32_t>(ys, {kSamples})});
  EXPECT_TRUE(ds.ok()) << ds.status();
  auto batched = data::Batch(*ds, kBatch, /*drop_remainder=*/false);
  EXPECT_TRUE(batched.ok()) << batched.status();
  return *batched;
}

// The same model and optimizer every time (fixed initial weights).
std::shared_ptr<Sequential> CompiledModel() {
  ClearSession();
  auto model = Sequential::Make({MakeInputLayer({kNone, 4}),
                                 std::make_shared<Dense>(3, DenseOptions().Activation("relu")),
                                 std::make_shared<Dense>(2)});
  EXPECT_TRUE(model.ok()) << model.status();
  const std::vector<Weight> w = (*model)->weights();
  for (size_t i = 0; i < w.size(); ++i) {
    Tensor t = w[i]->component(0).Peek();
    std::vector<float> values(t.NumElements());
    for (size_t k = 0; k < values.size(); ++k) values[k] = 0.05f * ((k * 7 + i * 3) % 13) - 0.3f;
    absl::Status assigned = w[i]->AssignAll(tfd::test::AsTensor<float>(values, t.shape()));
    EXPECT_TRUE(assigned.ok()) << assigned;
  }
  AdamOptions adam;
  adam.learning_rate = 0.05f;
  SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  absl::Status compiled = (*model)->Compile({std::shared_ptr<Optimizer>(*Adam::Create(adam)),
                                             std::make_shared<SparseCategoricalCrossentropy>(loss)});
  EXPECT_TRUE(compiled.ok()) << compiled;
  return *model;
}

std::vector<std::vector<float>> Weights(const Model& model) {
  std::vector<std::vector<float>> out;
  for (const Weight& w : model.weights()) {
    // Through a host copy: the weights live on the default device.
    Tensor t = tfd::test::ToHost(w->component(0).Peek());
    out.emplace_back(t.data<float>(), t.data<float>() + t.NumElements());
  }
  return out;
}

// Fails the Fit after step `step` of epoch `epoch`, as a crash would end it.
class FailAt : public Callback {
 public:
  FailAt(int epoch, int64_t step) : epoch_(epoch), step_(step) {}
  absl::Status OnEpochBegin(int epoch, const Logs&) override {
    epoch_now_ = epoch;
    return absl::OkStatus();
  }
  absl::Status OnTrainBatchEnd(int64_t batch, Logs&) override {
    if (epoch_now_ == epoch_ && batch == step_) return absl::AbortedError("simulated crash");
    return absl::OkStatus();
  }

 private:
  const int epoch_;
  const int64_t step_;
  int epoch_now_ = 0;
};

// The (epoch, step) of every step trained.
class StepRecorder : public Callback {
 public:
  absl::Status OnEpochBegin(int epoch, const Logs&) override {
    epoch_ = epoch;
    return absl::OkStatus();
  }
  absl::Status OnTrainBatchEnd(int64_t batch, Logs&) override {
    steps.push_back({epoch_, batch});
    return absl::OkStatus();
  }
  std::vector<std::pair<int, int64_t>> steps;

 private:
  int epoch_ = 0;
};

FitOptions Options(std::vector<std::shared_ptr<Callback>> callbacks) {
  FitOptions options;
  options.epochs = kEpochs;
  options.verbose = 0;
  options.callbacks = std::move(callbacks);
  return options;
}

struct Case {
  std::optional<int64_t> save_freq;
  int fail_epoch;
  int64_t fail_step;
  // Where the restarted Fit must begin.
  int resume_epoch;
  int64_t resume_step;
};

TEST(BackupAndRestoreTest, InterruptedAndRestartedFitEqualsUninterrupted) {
  std::vector<std::vector<float>> expected;
  {
    auto model = CompiledModel();
    ASSERT_OK(model->Fit(MakeDataset(), Options({})).status());
    expected = Weights(*model);
  }
  const std::vector<Case> cases = {
      // Backups at each epoch's end: the crash loses the rest of epoch 1.
      {std::nullopt, 1, 5, 1, 0},
      // Every 3 steps (counted across epochs): the last backup before the
      // crash is after step 3 of epoch 1.
      {3, 1, 5, 1, 4},
      // Every 4 steps: the backup after epoch 0's last step resumes at epoch 1.
      {4, 1, 2, 1, 0},
      // A backup every step, the crash in the last epoch just after the
      // backup of the same step: only the steps after it are left.
      {1, 2, 6, 2, 7},
  };
  int index = 0;
  for (const Case& c : cases) {
    SCOPED_TRACE(testing::Message() << "case " << index);
    BackupAndRestoreOptions backup_options;
    backup_options.backup_dir = TempDir("case" + std::to_string(index++));
    backup_options.save_freq_steps = c.save_freq;
    {
      auto model = CompiledModel();
      ASSERT_OK_AND_ASSIGN(auto backup, BackupAndRestore::Create(backup_options));
      absl::Status crashed =
          model->Fit(MakeDataset(), Options({backup, std::make_shared<FailAt>(c.fail_epoch,
                                                                              c.fail_step)}))
              .status();
      ASSERT_EQ(crashed.code(), absl::StatusCode::kAborted) << crashed;
      EXPECT_FALSE(backup->restored().has_value());
      EXPECT_TRUE(Exists(backup->chief_dir() + "/training_state"));
    }
    auto model = CompiledModel();
    ASSERT_OK_AND_ASSIGN(auto backup, BackupAndRestore::Create(backup_options));
    auto recorder = std::make_shared<StepRecorder>();
    ASSERT_OK(model->Fit(MakeDataset(), Options({backup, recorder})).status());
    ASSERT_TRUE(backup->restored().has_value());
    ASSERT_FALSE(recorder->steps.empty());
    EXPECT_EQ(recorder->steps.front(), std::make_pair(c.resume_epoch, c.resume_step));
    const int64_t trained = static_cast<int64_t>(recorder->steps.size());
    EXPECT_EQ(trained, (kEpochs - c.resume_epoch) * 8 - c.resume_step);
    // Bit-identical: same batches, same restored optimizer state.
    EXPECT_EQ(Weights(*model), expected);
    // delete_checkpoint: nothing is left once Fit has finished.
    EXPECT_FALSE(Exists(backup->chief_dir()));
  }
}

TEST(BackupAndRestoreTest, KeepsOnlyTheNewestCheckpointAndCanKeepItAfterFit) {
  BackupAndRestoreOptions backup_options;
  backup_options.backup_dir = TempDir("keep");
  backup_options.save_freq_steps = 2;
  backup_options.delete_checkpoint = false;
  auto model = CompiledModel();
  ASSERT_OK_AND_ASSIGN(auto backup, BackupAndRestore::Create(backup_options));
  ASSERT_OK(model->Fit(MakeDataset(), Options({backup})).status());
  // 24 steps, a backup every 2: ckpt-12 is the last, the others are gone.
  const std::string dir = backup->chief_dir();
  EXPECT_TRUE(Exists(dir + "/ckpt-12.index"));
  EXPECT_FALSE(Exists(dir + "/ckpt-11.index"));
  EXPECT_FALSE(Exists(dir + "/ckpt-1.index"));
  std::ifstream in(dir + "/training_state");
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_EQ(text.str(), "epoch 2\nstep 7\ncheckpoint ckpt-12\n");
  // A further Fit restores it: the last step was the end of the last
  // epoch, so nothing is left to train and the weights stay.
  const auto trained = Weights(*model);
  auto again = CompiledModel();
  auto recorder = std::make_shared<StepRecorder>();
  ASSERT_OK_AND_ASSIGN(auto restore, BackupAndRestore::Create(backup_options));
  ASSERT_OK(again->Fit(MakeDataset(), Options({restore, recorder})).status());
  EXPECT_TRUE(recorder->steps.empty());
  EXPECT_EQ(Weights(*again), trained);
}

TEST(BackupAndRestoreTest, RefusesBadOptions) {
  EXPECT_EQ(BackupAndRestore::Create({}).status().code(), absl::StatusCode::kInvalidArgument);
  BackupAndRestoreOptions options;
  options.backup_dir = TempDir("bad");
  options.save_freq_steps = 0;
  EXPECT_EQ(BackupAndRestore::Create(options).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(BackupAndRestoreTest, ProgressRoundTripsAndDamageIsDataLoss) {
  const BackupProgress progress{4, 17, "ckpt-9"};
  ASSERT_OK_AND_ASSIGN(BackupProgress parsed,
                       ParseBackupProgress(FormatBackupProgress(progress), "state"));
  EXPECT_EQ(parsed.epoch, 4);
  EXPECT_EQ(parsed.step, 17);
  EXPECT_EQ(parsed.checkpoint, "ckpt-9");
  for (const char* bad : {"", "epoch 1\nstep 2\n", "epoch x\nstep 2\ncheckpoint c\n",
                          "epoch 1\nstep -2\ncheckpoint c\n", "epoch 1\nstep 2\ncheckpoint a/b\n",
                          "epoch 1\nstop 2\ncheckpoint c\n"}) {
    EXPECT_EQ(ParseBackupProgress(bad, "state").status().code(), absl::StatusCode::kDataLoss)
        << bad;
  }
}

TEST(BackupAndRestoreTest, DamagedOrMissingBackupFailsFitClearly) {
  BackupAndRestoreOptions options;
  options.backup_dir = TempDir("damaged");
  auto model = CompiledModel();
  ASSERT_OK_AND_ASSIGN(auto backup, BackupAndRestore::Create(options));
  ASSERT_EQ(model->Fit(MakeDataset(), Options({backup, std::make_shared<FailAt>(1, 0)}))
                .status()
                .code(),
            absl::StatusCode::kAborted);
  const std::string state = backup->chief_dir() + "/training_state";
  {
    std::ofstream out(state, std::ios::trunc);
    out << "epoch 0\nstep";
  }
  EXPECT_EQ(model->Fit(MakeDataset(), Options({backup})).status().code(),
            absl::StatusCode::kDataLoss);
  {
    std::ofstream out(state, std::ios::trunc);
    out << "epoch 0\nstep -1\ncheckpoint ckpt-77\n";
  }
  EXPECT_EQ(model->Fit(MakeDataset(), Options({backup})).status().code(),
            absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
