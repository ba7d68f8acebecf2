#include "tools/tfd/multi_worker_train.h"

#include <algorithm>
#include <memory>
#include <string>

#include "absl/strings/str_cat.h"
#include "core/distribute/default_resolver.h"
#include "core/framework/status.h"
#include "tools/tfd/sidecar_evaluator.h"
#include "tools/tfd/train_devices.h"
#include "tools/tfd/training_run.h"

namespace tfd {
namespace cli {
namespace {

constexpr char kPsJob[] = "ps";

// "worker 1 (rank 1 of 2)".
std::string DescribeTask(const distribute::ClusterInfo& info) {
  return absl::StrCat(distribute::TaskTypeName(info.task_type), " ", info.task_index, " (rank ",
                      info.rank, " of ", info.num_workers, info.is_chief ? ", the chief" : "", ")");
}

absl::Status TrainAsWorker(const TrainFlags& flags, const distribute::ClusterInfo& info,
                           std::FILE* out) {
  if (!info.local()) {
    std::fprintf(out, "Task %s of the cluster %s\n", DescribeTask(info).c_str(),
                 info.cluster_spec.DebugString().c_str());
    std::fflush(out);
  }
  distribute::MultiWorkerMirroredStrategyOptions options = MultiWorkerOptions(flags);
  // This worker's GPUs, one local replica each (collectives then pick
  // NCCL), or --replicas CPU replicas.
  TFD_ASSIGN_OR_RETURN(options.devices, TrainGpus(flags));
  PrintTrainDevices(options.devices, out);
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::MultiWorkerMirroredStrategy> strategy,
                       distribute::MultiWorkerMirroredStrategy::Create(info, options));
  TFD_RETURN_IF_ERROR(TrainUnderStrategy(flags, *strategy, strategy->cluster_info(), out));
  // The chief's coordination service must outlive every worker's use.
  return strategy->Shutdown();
}

}  // namespace

distribute::MultiWorkerMirroredStrategyOptions MultiWorkerOptions(const TrainFlags& flags) {
  distribute::MultiWorkerMirroredStrategyOptions options;
  options.local_replicas = flags.replicas;
  options.startup_timeout = absl::Seconds(flags.startup_timeout_s);
  options.shutdown_timeout = absl::Seconds(flags.startup_timeout_s);
  options.heartbeat_timeout = absl::Seconds(flags.heartbeat_timeout_s);
  // Several heartbeats fit in the timeout, so one late beat is not a death.
  options.heartbeat_interval = std::min(absl::Seconds(1), options.heartbeat_timeout / 4);
  options.communication.timeout = absl::Seconds(flags.collective_timeout_s);
  return options;
}

absl::Status RunMultiWorkerTrain(const TrainFlags& flags, std::FILE* out,
                                 const distribute::EnvLookup& env) {
  TFD_ASSIGN_OR_RETURN(distribute::ClusterInfo info,
                       distribute::DefaultClusterResolver(/*gpus_per_node=*/0, env)->Resolve());
  if (info.cluster_spec.HasJob(kPsJob)) {
    // Every task says the same, whichever fails first: the coordination
    // service would wait for the ps tasks at its start-up barrier, which
    // they never reach.
    return InvalidArgument("the cluster ", info.cluster_spec.DebugString(),
                           " has a ps job, which MultiWorkerMirroredStrategy does not use; "
                           "list only chief, worker (and evaluator) tasks, or train with "
                           "--strategy=parameter_server");
  }
  switch (info.task_type) {
    case distribute::TaskType::kChief:
    case distribute::TaskType::kWorker:
      return TrainAsWorker(flags, info, out);
    case distribute::TaskType::kEvaluator:
      std::fprintf(out, "Task evaluator %d: the side-car evaluator\n", info.task_index);
      return RunSidecarEvaluator(flags, out);
    case distribute::TaskType::kPs:
      break;  // Refused above: a ps task means a ps job.
  }
  return Internal("ps task ", info.task_index, " in a cluster without a ps job");
}

}  // namespace cli
}  // namespace tfd
