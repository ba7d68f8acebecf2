#include "savedmodel/checkpoint/list_variables.h"

#include <filesystem>
#include <system_error>

#include "core/framework/status.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint_state.h"

namespace tfd {
namespace savedmodel {

absl::StatusOr<std::vector<CheckpointVariable>> ListVariables(const std::string& path) {
  std::string prefix = path;
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    TFD_ASSIGN_OR_RETURN(prefix, LatestCheckpoint(path));
  }
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(prefix));
  TFD_ASSIGN_OR_RETURN(std::vector<BundleReader::EntryInfo> entries, reader->ListEntries());
  std::vector<CheckpointVariable> out;
  out.reserve(entries.size());
  for (BundleReader::EntryInfo& entry : entries) {
    out.push_back({std::move(entry.key), entry.dtype, std::move(entry.shape)});
  }
  return out;
}

}  // namespace savedmodel
}  // namespace tfd
