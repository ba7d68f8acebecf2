// The `checkpoint` state file: TensorFlow's text, relative paths, latest
// checkpoint lookup and damaged files.
#include "savedmodel/checkpoint/checkpoint_state.h"

#include "core/io/file.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace savedmodel {
namespace {

using nn::test::ExpectError;

TEST(CheckpointStateTest, FormatsAsTensorFlowWritesIt) {
  const std::string dir = "/ckpts";
  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path("/ckpts/ckpt-3");
  state.add_all_model_checkpoint_paths("/ckpts/ckpt-2");
  state.add_all_model_checkpoint_paths("/ckpts/ckpt-3");
  state.add_all_model_checkpoint_timestamps(1795441507.229117);
  state.add_all_model_checkpoint_timestamps(1795441507.2532506);
  state.set_last_preserved_timestamp(1795441505.95709);
  // Written by tf.train.CheckpointManager(max_to_keep=2) in TensorFlow 2.21.
  EXPECT_EQ(FormatCheckpointState(dir, state),
            "model_checkpoint_path: \"ckpt-3\"\n"
            "all_model_checkpoint_paths: \"ckpt-2\"\n"
            "all_model_checkpoint_paths: \"ckpt-3\"\n"
            "all_model_checkpoint_timestamps: 1795441507.229117\n"
            "all_model_checkpoint_timestamps: 1795441507.2532506\n"
            "last_preserved_timestamp: 1795441505.95709\n");
  // tf.train.Checkpoint.save writes no timestamps; paths outside the
  // directory stay absolute; quotes are escaped.
  tensorflow::CheckpointState plain;
  plain.set_model_checkpoint_path("/elsewhere/x\"-5");
  plain.add_all_model_checkpoint_paths("/ckpts/x-5");
  EXPECT_EQ(FormatCheckpointState(dir + "/", plain),
            "model_checkpoint_path: \"/elsewhere/x\\\"-5\"\n"
            "all_model_checkpoint_paths: \"x-5\"\n");
}

TEST(CheckpointStateTest, RoundTripAndLatestCheckpoint) {
  const std::string dir = test::TempDir("state");
  ExpectError(LatestCheckpoint(dir).status(), absl::StatusCode::kNotFound, {"checkpoint"});
  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path(dir + "/ckpt-2");
  state.add_all_model_checkpoint_paths(dir + "/ckpt-1");
  state.add_all_model_checkpoint_paths(dir + "/ckpt-2");
  state.add_all_model_checkpoint_timestamps(10.5);
  state.add_all_model_checkpoint_timestamps(12.0);
  ASSERT_OK(WriteCheckpointState(dir, state));
  ASSERT_OK_AND_ASSIGN(std::string text, io::ReadFileToString(dir + "/checkpoint"));
  EXPECT_NE(text.find("model_checkpoint_path: \"ckpt-2\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("all_model_checkpoint_timestamps: 12.0\n"), std::string::npos) << text;

  ASSERT_OK_AND_ASSIGN(tensorflow::CheckpointState read, ReadCheckpointState(dir));
  EXPECT_EQ(read.model_checkpoint_path(), dir + "/ckpt-2");
  ASSERT_EQ(read.all_model_checkpoint_paths_size(), 2);
  EXPECT_EQ(read.all_model_checkpoint_paths(0), dir + "/ckpt-1");
  EXPECT_EQ(read.all_model_checkpoint_timestamps(0), 10.5);

  // The state names ckpt-2, whose .index does not exist yet.
  ExpectError(LatestCheckpoint(dir).status(), absl::StatusCode::kNotFound, {"ckpt-2.index"});
  ASSERT_OK(io::WriteStringToFileAtomically(MetaFilename(dir + "/ckpt-2"), ""));
  ASSERT_OK_AND_ASSIGN(std::string latest, LatestCheckpoint(dir));
  EXPECT_EQ(latest, dir + "/ckpt-2");
}

TEST(CheckpointStateTest, DamagedStateFile) {
  const std::string dir = test::TempDir("bad_state");
  ASSERT_OK(io::WriteStringToFileAtomically(dir + "/checkpoint", "model_checkpoint_path: ckpt-1 {"));
  ExpectError(ReadCheckpointState(dir).status(), absl::StatusCode::kDataLoss,
              {dir + "/checkpoint", "CheckpointState"});
  ASSERT_OK(io::WriteStringToFileAtomically(dir + "/checkpoint", "all_model_checkpoint_paths: \"a\""));
  ExpectError(LatestCheckpoint(dir).status(), absl::StatusCode::kDataLoss,
              {"model_checkpoint_path is empty"});
  tensorflow::CheckpointState empty;
  ExpectError(WriteCheckpointState(dir, empty), absl::StatusCode::kInvalidArgument,
              {"model_checkpoint_path"});
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
