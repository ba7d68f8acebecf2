#include "core/distribute/coordination/task_name.h"

#include "absl/strings/str_cat.h"

namespace tfd {
namespace coordination {

std::string TaskName(const std::string& job, int index) {
  return absl::StrCat("/job:", job, "/replica:0/task:", index);
}

std::string TaskName(const distribute::ClusterInfo& info) {
  return TaskName(distribute::TaskTypeName(info.task_type), info.task_index);
}

std::vector<std::string> CoordinatedTasks(const distribute::ClusterSpec& spec) {
  std::vector<std::string> tasks;
  for (const auto& [job, indices] : spec.as_map()) {
    if (job == distribute::TaskTypeName(distribute::TaskType::kEvaluator)) continue;
    for (const auto& [index, address] : indices) tasks.push_back(TaskName(job, index));
  }
  return tasks;
}

}  // namespace coordination
}  // namespace tfd
