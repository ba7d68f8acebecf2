// The strategies `tfd train` runs under, by their flag names:
//   one_device       OneDeviceStrategy on the host (every core)
//   mirrored         MirroredStrategy over `replicas` CPU logical devices
//   central_storage  CentralStorageStrategy computing on `replicas` CPU
//                    logical devices, variables on the host
// The CPU logical devices split the cores between the replicas, as
// TensorFlow's logical device configuration does.
//
//   TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::Strategy> s, MakeStrategy("mirrored", 2));
#ifndef TFD_TOOLS_TFD_STRATEGY_FACTORY_H_
#define TFD_TOOLS_TFD_STRATEGY_FACTORY_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/distribute/strategy.h"

namespace tfd {
namespace cli {

// INVALID_ARGUMENT for an unknown name, replicas < 1, or one_device with
// more than one replica; the strategy's own errors otherwise.
absl::StatusOr<std::unique_ptr<distribute::Strategy>> MakeStrategy(const std::string& name,
                                                                   int replicas);

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_STRATEGY_FACTORY_H_
