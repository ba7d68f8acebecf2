// CheckpointManager: numbering, max_to_keep, the state file, taking over a
// directory and keep_checkpoint_every_n_hours.
#include "savedmodel/checkpoint/checkpoint_manager.h"

#include "core/io/file.h"
#include "core/nn/layer_names.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint_state.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace savedmodel {
namespace {

using nn::test::ExpectError;

bool Exists(const std::string& prefix) {
  return io::FileExists(MetaFilename(prefix)) && io::FileExists(DataFilename(prefix, 0, 1));
}

class CheckpointManagerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    nn::ClearSession();
    model_ = test::MakeMlp().value();
    checkpoint_ = std::make_unique<Checkpoint>(model_, nullptr);
  }
  CheckpointManager::Options Options(int max_to_keep) {
    CheckpointManager::Options options;
    options.max_to_keep = max_to_keep;
    options.clock = [this] { return now_; };
    return options;
  }

  std::shared_ptr<nn::Model> model_;
  std::unique_ptr<Checkpoint> checkpoint_;
  double now_ = 1000.0;
};

TEST_F(CheckpointManagerTest, KeepsTheNewestAndRecordsThem) {
  const std::string dir = test::TempDir("manager");
  ASSERT_OK_AND_ASSIGN(auto manager, CheckpointManager::Create(checkpoint_.get(), dir, Options(2)));
  EXPECT_FALSE(manager->latest_checkpoint().has_value());
  for (int i = 1; i <= 3; ++i) {
    now_ += 1.5;
    ASSERT_OK_AND_ASSIGN(std::string path, manager->Save());
    EXPECT_EQ(path, dir + "/ckpt-" + std::to_string(i));
  }
  EXPECT_FALSE(io::FileExists(MetaFilename(dir + "/ckpt-1")));
  EXPECT_FALSE(io::FileExists(DataFilename(dir + "/ckpt-1", 0, 1)));
  EXPECT_TRUE(Exists(dir + "/ckpt-2"));
  EXPECT_TRUE(Exists(dir + "/ckpt-3"));
  EXPECT_EQ(manager->checkpoints(), (std::vector<std::string>{dir + "/ckpt-2", dir + "/ckpt-3"}));
  EXPECT_EQ(*manager->latest_checkpoint(), dir + "/ckpt-3");
  ASSERT_OK_AND_ASSIGN(std::string text, io::ReadFileToString(dir + "/checkpoint"));
  EXPECT_EQ(text,
            "model_checkpoint_path: \"ckpt-3\"\n"
            "all_model_checkpoint_paths: \"ckpt-2\"\n"
            "all_model_checkpoint_paths: \"ckpt-3\"\n"
            "all_model_checkpoint_timestamps: 1003.0\n"
            "all_model_checkpoint_timestamps: 1004.5\n"
            "last_preserved_timestamp: 999.0\n");
  ASSERT_OK_AND_ASSIGN(std::string latest, LatestCheckpoint(dir));
  EXPECT_EQ(latest, dir + "/ckpt-3");
}

TEST_F(CheckpointManagerTest, TakesOverAnExistingDirectory) {
  const std::string dir = test::TempDir("takeover");
  {
    ASSERT_OK_AND_ASSIGN(auto first, CheckpointManager::Create(checkpoint_.get(), dir, Options(2)));
    now_ += 1;
    ASSERT_OK(first->Save().status());
    now_ += 1;
    ASSERT_OK(first->Save().status());
  }
  // A restarted job: a new checkpoint restores the save counter.
  Checkpoint restarted(model_, nullptr);
  ASSERT_OK_AND_ASSIGN(auto manager, CheckpointManager::Create(&restarted, dir, Options(2)));
  ASSERT_TRUE(manager->latest_checkpoint().has_value());
  ASSERT_OK(restarted.Restore(*manager->latest_checkpoint()));
  EXPECT_EQ(restarted.save_counter(), 2);
  now_ += 1;
  ASSERT_OK_AND_ASSIGN(std::string path, manager->Save());
  EXPECT_EQ(path, dir + "/ckpt-3");
  // The inherited ckpt-1 counted towards max_to_keep and was deleted.
  EXPECT_FALSE(io::FileExists(MetaFilename(dir + "/ckpt-1")));
  EXPECT_EQ(manager->checkpoints(), (std::vector<std::string>{dir + "/ckpt-2", dir + "/ckpt-3"}));
}

TEST_F(CheckpointManagerTest, KeepsOneEveryNHours) {
  const std::string dir = test::TempDir("hours");
  CheckpointManager::Options options = Options(1);
  options.keep_checkpoint_every_n_hours = 1.0;
  ASSERT_OK_AND_ASSIGN(auto manager, CheckpointManager::Create(checkpoint_.get(), dir, options));
  now_ += 10;
  ASSERT_OK(manager->Save().status());  // ckpt-1 at 1010
  now_ += 3600;
  ASSERT_OK(manager->Save().status());  // ckpt-2: ckpt-1 is < 1 h after 999, deleted
  now_ += 10;
  ASSERT_OK(manager->Save().status());  // ckpt-3: ckpt-2 is > 1 h after 999, preserved
  EXPECT_FALSE(io::FileExists(MetaFilename(dir + "/ckpt-1")));
  EXPECT_TRUE(Exists(dir + "/ckpt-2"));
  EXPECT_TRUE(Exists(dir + "/ckpt-3"));
  EXPECT_EQ(manager->checkpoints(), (std::vector<std::string>{dir + "/ckpt-3"}));
}

TEST_F(CheckpointManagerTest, KeepsAllWithoutMaxToKeepAndRejectsBadOptions) {
  const std::string dir = test::TempDir("all");
  CheckpointManager::Options options = Options(0);
  options.checkpoint_name = "model";
  ASSERT_OK_AND_ASSIGN(auto manager, CheckpointManager::Create(checkpoint_.get(), dir, options));
  for (int i = 0; i < 3; ++i) ASSERT_OK(manager->Save().status());
  EXPECT_TRUE(Exists(dir + "/model-1"));
  EXPECT_TRUE(Exists(dir + "/model-3"));
  ExpectError(CheckpointManager::Create(checkpoint_.get(), dir, Options(-1)).status(),
              absl::StatusCode::kInvalidArgument, {"max_to_keep"});
  ExpectError(CheckpointManager::Create(nullptr, dir, Options(1)).status(),
              absl::StatusCode::kInvalidArgument, {"null"});
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
