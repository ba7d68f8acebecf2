// CheckpointManager: tf.train.CheckpointManager for a Checkpoint. Saves
// numbered checkpoints "<directory>/<checkpoint_name>-<save_counter>",
// keeps the newest max_to_keep of them (deleting older ones' files, except
// one every keep_checkpoint_every_n_hours when set) and records them in the
// directory's `checkpoint` state file with their timestamps, exactly as
// TensorFlow's manager does, so either can take over the other's directory.
//
// Created over a directory that already has a state file, the manager
// takes over the checkpoints listed there (latest_checkpoint() is the
// newest; they count towards max_to_keep). Not thread-safe.
//
//   CheckpointManager::Options options;
//   options.max_to_keep = 3;
//   TFD_ASSIGN_OR_RETURN(auto manager,
//                        CheckpointManager::Create(&checkpoint, "/ckpts", options));
//   if (manager->latest_checkpoint()) checkpoint.Restore(*manager->latest_checkpoint());
//   TFD_ASSIGN_OR_RETURN(std::string path, manager->Save());   // "/ckpts/ckpt-1"
#ifndef TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_MANAGER_H_
#define TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_MANAGER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "savedmodel/checkpoint/checkpoint.h"

namespace tfd {
namespace savedmodel {

class CheckpointManager {
 public:
  struct Options {
    // How many checkpoints to keep; unset or 0 keeps all of them.
    std::optional<int> max_to_keep = 5;
    std::string checkpoint_name = "ckpt";
    // When set, a checkpoint this many hours newer than the last one
    // preserved is kept forever instead of deleted.
    std::optional<double> keep_checkpoint_every_n_hours;
    // Seconds since the epoch; tests replace it.
    std::function<double()> clock;
  };

  // INVALID_ARGUMENT for a null checkpoint, an empty directory name or a
  // negative max_to_keep. Creates the directory. Errors of reading an
  // existing state file (DATA_LOSS when it does not parse).
  static absl::StatusOr<std::unique_ptr<CheckpointManager>> Create(Checkpoint* checkpoint,
                                                                   std::string directory,
                                                                   Options options);

  // Increments the checkpoint's save_counter, writes
  // "<directory>/<checkpoint_name>-<save_counter>", records it, deletes
  // the checkpoints beyond max_to_keep and records again. Returns the new
  // prefix. Errors of Checkpoint::Write and of the file system.
  absl::StatusOr<std::string> Save();

  const std::string& directory() const { return directory_; }
  // The newest checkpoint's prefix, if any.
  const std::optional<std::string>& latest_checkpoint() const { return latest_; }
  // The checkpoints kept and managed, oldest first.
  std::vector<std::string> checkpoints() const;

 private:
  CheckpointManager(Checkpoint* checkpoint, std::string directory, Options options)
      : checkpoint_(checkpoint), directory_(std::move(directory)), options_(std::move(options)) {}
  absl::Status RecordState() const;
  // Deletes (or preserves) the oldest checkpoints beyond max_to_keep.
  absl::Status Sweep();

  Checkpoint* const checkpoint_;
  const std::string directory_;
  const Options options_;
  std::optional<std::string> latest_;
  // (prefix, timestamp) of the managed checkpoints, oldest first.
  std::vector<std::pair<std::string, double>> managed_;
  double last_preserved_timestamp_ = 0;
};

// Deletes a checkpoint's .index and every .data shard. NOT_FOUND when it
// has no files at all.
absl::Status DeleteCheckpointFiles(const std::string& prefix);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_MANAGER_H_
