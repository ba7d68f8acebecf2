#include "tools/tfd/train_command.h"

#include <memory>
#include <vector>

#include "core/framework/status.h"
#include "tools/tfd/multi_worker_train.h"
#include "tools/tfd/parameter_server_train.h"
#include "tools/tfd/strategy_factory.h"
#include "tools/tfd/train_devices.h"
#include "tools/tfd/training_run.h"

namespace tfd {
namespace cli {

absl::Status RunTrain(const TrainFlags& flags, std::FILE* out) {
  if (flags.strategy == "multi_worker_mirrored") return RunMultiWorkerTrain(flags, out);
  if (flags.strategy == "parameter_server") return RunParameterServerTrain(flags, out);
  TFD_ASSIGN_OR_RETURN(std::vector<Device*> gpus, TrainGpus(flags));
  PrintTrainDevices(gpus, out);
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::Strategy> strategy,
                       MakeStrategy(flags.strategy, flags.replicas, gpus));
  // One process: the chief of a job of its own.
  return TrainUnderStrategy(flags, *strategy, distribute::ClusterInfo(), out);
}

}  // namespace cli
}  // namespace tfd
