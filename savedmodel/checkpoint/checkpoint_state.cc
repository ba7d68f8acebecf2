#include "savedmodel/checkpoint/checkpoint_state.h"

#include <charconv>

#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/io/file.h"
#include "google/protobuf/text_format.h"
#include "savedmodel/bundle/tensor_bundle.h"

namespace tfd {
namespace savedmodel {
namespace {

std::string StatePath(const std::string& dir) {
  return JoinCheckpointPath(dir, kCheckpointStateFilename);
}

// `path` relative to `dir` when it lies inside it.
std::string RelativeTo(const std::string& dir, const std::string& path) {
  std::string base = dir;
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  const std::string prefix = base + "/";
  if (!base.empty() && absl::StartsWith(path, prefix)) return path.substr(prefix.size());
  return path;
}

// Python's repr of a float: the shortest text that reads back exactly.
std::string ShortestDouble(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  std::string text(buffer, result.ptr);
  if (text.find_first_of(".eEn") == std::string::npos) text += ".0";
  return text;
}

std::string Quoted(const std::string& s) { return absl::StrCat("\"", absl::CEscape(s), "\""); }

}  // namespace

std::string JoinCheckpointPath(const std::string& dir, const std::string& path) {
  if (absl::StartsWith(path, "/") || dir.empty()) return path;
  if (absl::EndsWith(dir, "/")) return dir + path;
  return absl::StrCat(dir, "/", path);
}

absl::StatusOr<tensorflow::CheckpointState> ReadCheckpointState(const std::string& dir) {
  const std::string path = StatePath(dir);
  TFD_ASSIGN_OR_RETURN(std::string text, io::ReadFileToString(path));
  tensorflow::CheckpointState state;
  if (!google::protobuf::TextFormat::ParseFromString(text, &state)) {
    return absl::DataLossError(absl::StrCat(path, ": not a text-format CheckpointState"));
  }
  if (state.model_checkpoint_path().empty()) {
    return absl::DataLossError(
        absl::StrCat(path, ": invalid checkpoint state, model_checkpoint_path is empty"));
  }
  state.set_model_checkpoint_path(JoinCheckpointPath(dir, state.model_checkpoint_path()));
  for (std::string& p : *state.mutable_all_model_checkpoint_paths()) {
    p = JoinCheckpointPath(dir, p);
  }
  return state;
}

std::string FormatCheckpointState(const std::string& dir,
                                  const tensorflow::CheckpointState& state) {
  std::string text =
      absl::StrCat("model_checkpoint_path: ", Quoted(RelativeTo(dir, state.model_checkpoint_path())),
                   "\n");
  for (const std::string& p : state.all_model_checkpoint_paths()) {
    absl::StrAppend(&text, "all_model_checkpoint_paths: ", Quoted(RelativeTo(dir, p)), "\n");
  }
  for (double t : state.all_model_checkpoint_timestamps()) {
    absl::StrAppend(&text, "all_model_checkpoint_timestamps: ", ShortestDouble(t), "\n");
  }
  if (state.last_preserved_timestamp() != 0) {
    absl::StrAppend(&text, "last_preserved_timestamp: ",
                    ShortestDouble(state.last_preserved_timestamp()), "\n");
  }
  return text;
}

absl::Status WriteCheckpointState(const std::string& dir,
                                  const tensorflow::CheckpointState& state) {
  if (state.model_checkpoint_path().empty()) {
    return InvalidArgument("checkpoint state for ", dir, ": model_checkpoint_path is empty");
  }
  return io::WriteStringToFileAtomically(StatePath(dir), FormatCheckpointState(dir, state));
}

absl::StatusOr<std::string> LatestCheckpoint(const std::string& dir) {
  absl::StatusOr<tensorflow::CheckpointState> state = ReadCheckpointState(dir);
  if (!state.ok()) return state.status();
  const std::string& prefix = state->model_checkpoint_path();
  if (!io::FileExists(MetaFilename(prefix))) {
    return NotFound("the latest checkpoint of ", dir, " (", prefix, ") has no ",
                    MetaFilename(prefix));
  }
  return prefix;
}

}  // namespace savedmodel
}  // namespace tfd
