// Where a worker of a multi-worker job writes checkpoints, SavedModels and
// other files, as TensorFlow's distributed_file_utils decides it: the chief
// writes to the real location; every other worker writes the same files
// under `<dir>/workertemp_<task index>`, so that all workers run the same
// saving code without clobbering the chief's files, and removes them
// afterwards. A single-process run (no cluster) is the chief.
//
//   TFD_ASSIGN_OR_RETURN(WorkerWriteLocation where,
//                        WorkerWriteLocation::Create("/ckpt", strategy->cluster_info()));
//   TFD_RETURN_IF_ERROR(SaveCheckpoint(where.FilePath("ckpt-1")));
//   // ~WorkerWriteLocation removes a non-chief's temporary directory.
#ifndef TFD_CORE_DISTRIBUTE_WORKER_WRITE_LOCATION_H_
#define TFD_CORE_DISTRIBUTE_WORKER_WRITE_LOCATION_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/distribute/cluster_resolver.h"

namespace tfd {
namespace distribute {

// The directory this task writes `dirpath` to: `dirpath` itself on the
// chief, `dirpath/workertemp_<task_index>` elsewhere (a path already
// ending in a workertemp_ directory is kept).
std::string WriteDirPath(const std::string& dirpath, const ClusterInfo& info);
// WriteDirPath applied to the directory of `filepath`, same base name.
std::string WriteFilePath(const std::string& filepath, const ClusterInfo& info);

// A worker's write directory for the duration of a save.
class WorkerWriteLocation {
 public:
  // Creates the write directory (and its parents). INTERNAL naming the path
  // and the system's error when it cannot be made.
  static absl::StatusOr<WorkerWriteLocation> Create(const std::string& dirpath,
                                                    const ClusterInfo& info);
  WorkerWriteLocation(WorkerWriteLocation&& other) noexcept;
  WorkerWriteLocation& operator=(WorkerWriteLocation&&) = delete;
  // Removes a non-chief's temporary directory (errors are ignored: a
  // leftover temporary directory must not fail training).
  ~WorkerWriteLocation();

  bool is_chief() const { return chief_; }
  const std::string& dir() const { return dir_; }
  // `dir()/name`.
  std::string FilePath(const std::string& name) const;
  // Removes the temporary directory now (no-op on the chief). INTERNAL
  // naming the path on failure.
  absl::Status CleanUp();

 private:
  WorkerWriteLocation(std::string dir, bool chief) : dir_(std::move(dir)), chief_(chief) {}

  std::string dir_;
  bool chief_;
  bool cleaned_ = false;
};

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_WORKER_WRITE_LOCATION_H_
