#include "savedmodel/checkpoint/checkpoint_manager.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/framework/status.h"
#include "core/io/file.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint_state.h"

namespace tfd {
namespace savedmodel {

absl::Status DeleteCheckpointFiles(const std::string& prefix) {
  namespace fs = std::filesystem;
  const fs::path path(prefix);
  const std::string data_prefix = path.filename().string() + ".data-";
  std::vector<fs::path> files = {fs::path(MetaFilename(prefix))};
  std::error_code error;
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  for (fs::directory_iterator it(dir, error), end; !error && it != end; it.increment(error)) {
    if (absl::StartsWith(it->path().filename().string(), data_prefix)) files.push_back(it->path());
  }
  int deleted = 0;
  for (const fs::path& file : files) {
    if (fs::remove(file, error)) ++deleted;
    if (error) return Internal("cannot delete ", file.string(), ": ", error.message());
  }
  if (deleted == 0) return NotFound("checkpoint ", prefix, " has no files to delete");
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<CheckpointManager>> CheckpointManager::Create(
    Checkpoint* checkpoint, std::string directory, Options options) {
  if (checkpoint == nullptr) return InvalidArgument("CheckpointManager: checkpoint is null");
  if (directory.empty()) return InvalidArgument("CheckpointManager: directory is empty");
  if (options.max_to_keep.has_value() && *options.max_to_keep < 0) {
    return InvalidArgument("CheckpointManager: max_to_keep must be >= 0, got ",
                           *options.max_to_keep);
  }
  if (!options.clock) {
    options.clock = [] { return absl::ToDoubleSeconds(absl::Now() - absl::UnixEpoch()); };
  }
  TFD_RETURN_IF_ERROR(io::CreateDirs(directory));
  std::unique_ptr<CheckpointManager> manager(
      new CheckpointManager(checkpoint, std::move(directory), std::move(options)));
  const double now = manager->options_.clock();
  absl::StatusOr<tensorflow::CheckpointState> state = ReadCheckpointState(manager->directory_);
  if (absl::IsNotFound(state.status())) {
    manager->last_preserved_timestamp_ = now - 1;
    return manager;
  }
  TFD_RETURN_IF_ERROR(state.status());
  // As TensorFlow: take over the listed checkpoints newer than the last
  // preserved one; timestamps from the future are clamped to now.
  manager->latest_ = state->model_checkpoint_path();
  manager->last_preserved_timestamp_ = std::min(state->last_preserved_timestamp(), now);
  for (int i = 0; i < state->all_model_checkpoint_paths_size(); ++i) {
    double timestamp = i < state->all_model_checkpoint_timestamps_size()
                           ? state->all_model_checkpoint_timestamps(i)
                           : manager->last_preserved_timestamp_;
    timestamp = std::min(timestamp, now);
    if (timestamp > manager->last_preserved_timestamp_) {
      manager->managed_.emplace_back(state->all_model_checkpoint_paths(i), timestamp);
    }
  }
  return manager;
}

std::vector<std::string> CheckpointManager::checkpoints() const {
  std::vector<std::string> out;
  for (const auto& entry : managed_) out.push_back(entry.first);
  return out;
}

absl::Status CheckpointManager::RecordState() const {
  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path(*latest_);
  for (const auto& [prefix, timestamp] : managed_) {
    state.add_all_model_checkpoint_paths(prefix);
    state.add_all_model_checkpoint_timestamps(timestamp);
  }
  state.set_last_preserved_timestamp(last_preserved_timestamp_);
  return WriteCheckpointState(directory_, state);
}

absl::Status CheckpointManager::Sweep() {
  if (!options_.max_to_keep.has_value() || *options_.max_to_keep == 0) return absl::OkStatus();
  while (static_cast<int>(managed_.size()) > *options_.max_to_keep) {
    const auto [prefix, timestamp] = managed_.front();
    managed_.erase(managed_.begin());
    if (options_.keep_checkpoint_every_n_hours.has_value() &&
        timestamp - *options_.keep_checkpoint_every_n_hours * 3600.0 >=
            last_preserved_timestamp_) {
      last_preserved_timestamp_ = timestamp;
      continue;
    }
    absl::Status deleted = DeleteCheckpointFiles(prefix);
    // Files already gone are what a sweep wants.
    if (!deleted.ok() && !absl::IsNotFound(deleted)) return deleted;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> CheckpointManager::Save() {
  const int64_t number = checkpoint_->IncrementSaveCounter();
  const std::string prefix =
      JoinCheckpointPath(directory_, absl::StrCat(options_.checkpoint_name, "-", number));
  TFD_RETURN_IF_ERROR(checkpoint_->Write(prefix));
  const double timestamp = options_.clock();
  managed_.erase(std::remove_if(managed_.begin(), managed_.end(),
                                [&](const auto& entry) { return entry.first == prefix; }),
                 managed_.end());
  managed_.emplace_back(prefix, timestamp);
  latest_ = prefix;
  TFD_RETURN_IF_ERROR(RecordState());
  const size_t before = managed_.size();
  TFD_RETURN_IF_ERROR(Sweep());
  if (managed_.size() != before) TFD_RETURN_IF_ERROR(RecordState());
  return prefix;
}

}  // namespace savedmodel
}  // namespace tfd
