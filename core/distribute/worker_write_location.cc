#include "core/distribute/worker_write_location.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace {

namespace fs = std::filesystem;

constexpr char kTempDirPrefix[] = "workertemp_";

bool IsTempDir(const std::string& dirpath) {
  return absl::StartsWith(fs::path(dirpath).filename().string(), kTempDirPrefix);
}

}  // namespace

std::string WriteDirPath(const std::string& dirpath, const ClusterInfo& info) {
  if (info.is_chief || IsTempDir(dirpath)) return dirpath;
  return (fs::path(dirpath) / absl::StrCat(kTempDirPrefix, info.task_index)).string();
}

std::string WriteFilePath(const std::string& filepath, const ClusterInfo& info) {
  const fs::path path(filepath);
  return (fs::path(WriteDirPath(path.parent_path().string(), info)) / path.filename()).string();
}

absl::StatusOr<WorkerWriteLocation> WorkerWriteLocation::Create(const std::string& dirpath,
                                                                const ClusterInfo& info) {
  std::string dir = WriteDirPath(dirpath, info);
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) return Internal("cannot create the write directory ", dir, ": ", error.message());
  return WorkerWriteLocation(std::move(dir), info.is_chief);
}

WorkerWriteLocation::WorkerWriteLocation(WorkerWriteLocation&& other) noexcept
    : dir_(std::move(other.dir_)), chief_(other.chief_), cleaned_(other.cleaned_) {
  other.cleaned_ = true;  // The moved-from object owns nothing.
}

WorkerWriteLocation::~WorkerWriteLocation() { (void)CleanUp(); }

std::string WorkerWriteLocation::FilePath(const std::string& name) const {
  return (fs::path(dir_) / name).string();
}

absl::Status WorkerWriteLocation::CleanUp() {
  if (chief_ || cleaned_) return absl::OkStatus();
  cleaned_ = true;
  std::error_code error;
  fs::remove_all(dir_, error);
  if (error) return Internal("cannot remove the temporary directory ", dir_, ": ", error.message());
  return absl::OkStatus();
}

}  // namespace distribute
}  // namespace tfd
