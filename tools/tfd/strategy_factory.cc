#include "tools/tfd/strategy_factory.h"

#include <map>

#include "absl/synchronization/mutex.h"
#include "core/device/cpu/cpu_device.h"
#include "core/distribute/central_storage_strategy.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/status.h"

namespace tfd {
namespace cli {
namespace {

// `n` CPU logical devices for central storage's compute replicas, made once
// per n: tensors keep raw device pointers, so the devices live for the
// process.
absl::StatusOr<std::vector<Device*>> ComputeDevices(int n) {
  static absl::Mutex mu(absl::kConstInit);
  static auto* sets = new std::map<int, std::vector<std::unique_ptr<CpuDevice>>>();
  absl::MutexLock lock(&mu);
  auto it = sets->find(n);
  if (it == sets->end()) {
    TFD_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<CpuDevice>> devices,
                         CreateCpuLogicalDevices(n));
    it = sets->emplace(n, std::move(devices)).first;
  }
  std::vector<Device*> out;
  for (const auto& d : it->second) out.push_back(d.get());
  return out;
}

}  // namespace

absl::StatusOr<std::unique_ptr<distribute::Strategy>> MakeStrategy(const std::string& name,
                                                                   int replicas) {
  if (replicas < 1) return InvalidArgument("replicas must be >= 1, got ", replicas);
  if (name == "one_device") {
    if (replicas != 1) {
      return InvalidArgument("one_device runs one replica, got ", replicas, " replicas");
    }
    return distribute::OneDeviceStrategy::Create(HostDevice());
  }
  if (name == "mirrored") return distribute::MirroredStrategy::WithCpuReplicas(replicas);
  if (name == "central_storage") {
    TFD_ASSIGN_OR_RETURN(std::vector<Device*> devices, ComputeDevices(replicas));
    return distribute::CentralStorageStrategy::Create(devices, HostDevice());
  }
  return InvalidArgument("unknown strategy '", name,
                         "' (one_device, mirrored or central_storage)");
}

}  // namespace cli
}  // namespace tfd
