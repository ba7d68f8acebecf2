// The `checkpoint` state file that TensorFlow keeps in a checkpoint
// directory (tf.train.get_checkpoint_state, tf.train.latest_checkpoint):
// a text-format CheckpointState naming the newest checkpoint prefix and
// every prefix still kept, with their timestamps.
//
// Paths inside the directory are written relative to it, as TensorFlow's
// CheckpointManager does, and read back joined to it. Writes go to a
// temporary file renamed over the old one, so readers see the old state or
// the new one, never a mix.
//
//   TFD_ASSIGN_OR_RETURN(std::string prefix, LatestCheckpoint("/ckpts"));
//   // "/ckpts/ckpt-3"
#ifndef TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_STATE_H_
#define TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_STATE_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "savedmodel/checkpoint/checkpoint_state.pb.h"

namespace tfd {
namespace savedmodel {

// The state file's name inside a directory.
inline constexpr char kCheckpointStateFilename[] = "checkpoint";

// Reads `<dir>/checkpoint`, with relative paths joined to `dir`. NOT_FOUND
// when the file does not exist; DATA_LOSS naming the file when it does not
// parse or names no checkpoint.
absl::StatusOr<tensorflow::CheckpointState> ReadCheckpointState(const std::string& dir);

// The text TensorFlow writes for `state` (fields in number order, doubles
// in their shortest round-trip form), paths inside `dir` made relative.
std::string FormatCheckpointState(const std::string& dir,
                                  const tensorflow::CheckpointState& state);

// Writes FormatCheckpointState(dir, state) to `<dir>/checkpoint`
// atomically. INVALID_ARGUMENT when model_checkpoint_path is empty.
absl::Status WriteCheckpointState(const std::string& dir,
                                  const tensorflow::CheckpointState& state);

// The prefix of the newest checkpoint in `dir` (tf.train.latest_checkpoint).
// NOT_FOUND when there is no state file or its checkpoint's .index is gone.
absl::StatusOr<std::string> LatestCheckpoint(const std::string& dir);

// `path` joined to `dir` unless it is absolute.
std::string JoinCheckpointPath(const std::string& dir, const std::string& path);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_STATE_H_
