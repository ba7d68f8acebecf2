// The strategies `tfd train` runs under, by their flag names:
//   one_device       OneDeviceStrategy on the host (every core)
//   mirrored         MirroredStrategy over `replicas` CPU logical devices
//   central_storage  CentralStorageStrategy computing on `replicas` CPU
//                    logical devices, variables on the host
// The CPU logical devices split the cores between the replicas, as
// TensorFlow's logical device configuration does. Given GPUs
// (train_devices.h), the replicas are those GPUs instead, one each:
// one_device on the first, mirrored and central_storage on all of them
// (central_storage keeps variables on the host for several GPUs, on the
// GPU for one, as TensorFlow does).
//
//   TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::Strategy> s, MakeStrategy("mirrored", 2));
#ifndef TFD_TOOLS_TFD_STRATEGY_FACTORY_H_
#define TFD_TOOLS_TFD_STRATEGY_FACTORY_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/distribute/strategy.h"
#include "core/framework/device.h"

namespace tfd {
namespace cli {

// INVALID_ARGUMENT for an unknown name, replicas < 1, one_device with
// more than one replica, or GPUs with replicas other than 1 (each GPU is a
// replica); the strategy's own errors otherwise. `gpus` are not owned and
// outlive the strategy.
absl::StatusOr<std::unique_ptr<distribute::Strategy>> MakeStrategy(
    const std::string& name, int replicas, const std::vector<Device*>& gpus = {});

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_STRATEGY_FACTORY_H_
