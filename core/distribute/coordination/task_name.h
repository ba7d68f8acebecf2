// Task names of a multi-worker job, as TensorFlow writes them
// ("/job:worker/replica:0/task:1"), and the tasks that join the
// coordination service.
#ifndef TFD_CORE_DISTRIBUTE_COORDINATION_TASK_NAME_H_
#define TFD_CORE_DISTRIBUTE_COORDINATION_TASK_NAME_H_

#include <string>
#include <vector>

#include "core/distribute/cluster_resolver.h"

namespace tfd {
namespace coordination {

// "/job:<job>/replica:0/task:<index>".
std::string TaskName(const std::string& job, int index);

// This process's task name.
std::string TaskName(const distribute::ClusterInfo& info);

// Every task of `spec` that takes part in training and so must join the
// coordination service: chief, workers and parameter servers (an
// evaluator runs on its own, as in TensorFlow), in job then index order.
std::vector<std::string> CoordinatedTasks(const distribute::ClusterSpec& spec);

}  // namespace coordination
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COORDINATION_TASK_NAME_H_
