#include "c_api/internal/cluster_options.h"

#include <algorithm>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/device/device_registry.h"
#include "core/distribute/default_resolver.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/framework/status.h"

namespace tfd {
namespace capi {
namespace {

using distribute::CommunicationImplementation;

// A duration in seconds; `current` when the key is missing.
absl::StatusOr<absl::Duration> Seconds(nn::KerasConfig& config, const char* key,
                                       absl::Duration current) {
  TFD_ASSIGN_OR_RETURN(double seconds, config.Double(key, absl::ToDoubleSeconds(current)));
  if (!(seconds > 0)) {
    return config.Error(absl::StatusCode::kInvalidArgument,
                        absl::StrCat("\"", key, "\" must be > 0 seconds, got ", seconds));
  }
  return absl::Seconds(seconds);
}

absl::StatusOr<CommunicationImplementation> Implementation(nn::KerasConfig& config) {
  TFD_ASSIGN_OR_RETURN(std::string name, config.String("implementation", "AUTO"));
  for (CommunicationImplementation candidate :
       {CommunicationImplementation::kAuto, CommunicationImplementation::kRing,
        CommunicationImplementation::kNccl}) {
    if (absl::AsciiStrToUpper(name) == distribute::CommunicationImplementationName(candidate)) {
      return candidate;
    }
  }
  return config.Error(absl::StatusCode::kInvalidArgument,
                      absl::StrCat("\"implementation\" must be \"AUTO\", \"RING\" or \"NCCL\", "
                                   "got \"", name, "\""));
}

// "local_devices": "cpu" leaves options.devices empty (local_replicas CPU
// replicas, one by default); "gpu" puts every GPU of this process there,
// one replica each, as TensorFlow's MultiWorkerMirroredStrategy does on a
// worker with GPUs. Checked before joining the job, so a worker without
// GPUs fails alone and at once instead of stalling the others' start-up.
absl::Status ReadLocalDevices(nn::KerasConfig& config,
                              distribute::MultiWorkerMirroredStrategyOptions& options) {
  TFD_ASSIGN_OR_RETURN(std::string name, config.String("local_devices", "cpu"));
  const std::string lower = absl::AsciiStrToLower(name);
  if (lower == "cpu") return absl::OkStatus();
  if (lower != "gpu") {
    return config.Error(absl::StatusCode::kInvalidArgument,
                        absl::StrCat("\"local_devices\" must be \"cpu\" or \"gpu\", got \"",
                                     name, "\""));
  }
  const int count = DeviceCount(DeviceType::kGPU);
  if (count == 0) {
    return config.Error(
        absl::StatusCode::kFailedPrecondition,
        "\"local_devices\" is \"gpu\" but this process has no GPU (no CUDA device is "
        "visible, or the library was built without GPU support); use \"cpu\"");
  }
  for (int i = 0; i < count; ++i) {
    TFD_ASSIGN_OR_RETURN(Device* gpu, GetDevice(DeviceType::kGPU, i));
    options.devices.push_back(gpu);
  }
  options.local_replicas = count;
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::unique_ptr<distribute::ClusterResolver>> ReadClusterResolver(
    nn::KerasConfig& config) {
  TFD_ASSIGN_OR_RETURN(std::string tf_config, config.String("tf_config", ""));
  if (tf_config.empty()) return distribute::DefaultClusterResolver();
  return std::unique_ptr<distribute::ClusterResolver>(
      std::make_unique<distribute::TfConfigClusterResolver>(
          distribute::TfConfigOptions(), distribute::EnvFromMap({{"TF_CONFIG", tf_config}})));
}

absl::StatusOr<distribute::MultiWorkerMirroredStrategyOptions> ReadMultiWorkerOptions(
    nn::KerasConfig& config) {
  distribute::MultiWorkerMirroredStrategyOptions options;
  TFD_RETURN_IF_ERROR(ReadLocalDevices(config, options));
  distribute::CommunicationOptions& communication = options.communication;
  TFD_ASSIGN_OR_RETURN(communication.implementation, Implementation(config));
  TFD_ASSIGN_OR_RETURN(communication.timeout,
                       Seconds(config, "timeout_seconds", communication.timeout));
  TFD_ASSIGN_OR_RETURN(communication.bytes_per_pack, config.Int("bytes_per_pack", 0));
  if (communication.bytes_per_pack < 0) {
    return config.Error(absl::StatusCode::kInvalidArgument,
                        absl::StrCat("\"bytes_per_pack\" must be >= 0, got ",
                                     communication.bytes_per_pack));
  }
  TFD_ASSIGN_OR_RETURN(options.startup_timeout,
                       Seconds(config, "startup_timeout_seconds", options.startup_timeout));
  TFD_ASSIGN_OR_RETURN(options.heartbeat_timeout,
                       Seconds(config, "heartbeat_timeout_seconds", options.heartbeat_timeout));
  // Four heartbeats per timeout, so one lost packet never kills a worker.
  options.heartbeat_interval = std::min(options.heartbeat_interval, options.heartbeat_timeout / 4);
  TFD_ASSIGN_OR_RETURN(options.shutdown_timeout,
                       Seconds(config, "shutdown_timeout_seconds", options.shutdown_timeout));
  return options;
}

absl::StatusOr<distribute::ParameterServerStrategyOptions> ReadParameterServerOptions(
    nn::KerasConfig& config) {
  distribute::ParameterServerStrategyOptions options;
  TFD_ASSIGN_OR_RETURN(options.ps.connect_timeout,
                       Seconds(config, "connect_timeout_seconds", options.ps.connect_timeout));
  TFD_ASSIGN_OR_RETURN(options.ps.rpc_timeout,
                       Seconds(config, "rpc_timeout_seconds", options.ps.rpc_timeout));
  TFD_ASSIGN_OR_RETURN(options.coordinator.step_timeout,
                       Seconds(config, "step_timeout_seconds", options.coordinator.step_timeout));
  return options;
}

}  // namespace capi
}  // namespace tfd
