#include "tools/tfd/strategy_factory.h"

#include "core/distribute/central_storage_strategy.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/status.h"

namespace tfd {
namespace cli {

namespace {

absl::StatusOr<std::unique_ptr<distribute::Strategy>> MakeGpuStrategy(
    const std::string& name, const std::vector<Device*>& gpus) {
  if (name == "one_device") return distribute::OneDeviceStrategy::Create(gpus.front());
  if (name == "mirrored") return distribute::MirroredStrategy::Create(gpus);
  if (name == "central_storage") return distribute::CentralStorageStrategy::Create(gpus);
  return InvalidArgument("unknown strategy '", name,
                         "' (one_device, mirrored or central_storage)");
}

}  // namespace

absl::StatusOr<std::unique_ptr<distribute::Strategy>> MakeStrategy(
    const std::string& name, int replicas, const std::vector<Device*>& gpus) {
  if (replicas < 1) return InvalidArgument("replicas must be >= 1, got ", replicas);
  if (!gpus.empty()) {
    if (replicas != 1) {
      return InvalidArgument("each GPU is one replica; ", replicas,
                             " replicas are CPU replicas and cannot go with GPUs");
    }
    return MakeGpuStrategy(name, gpus);
  }
  if (name == "one_device") {
    if (replicas != 1) {
      return InvalidArgument("one_device runs one replica, got ", replicas, " replicas");
    }
    return distribute::OneDeviceStrategy::Create(HostDevice());
  }
  if (name == "mirrored") return distribute::MirroredStrategy::WithCpuReplicas(replicas);
  if (name == "central_storage") {
    return distribute::CentralStorageStrategy::WithCpuReplicas(replicas);
  }
  return InvalidArgument("unknown strategy '", name,
                         "' (one_device, mirrored or central_storage)");
}

}  // namespace cli
}  // namespace tfd
