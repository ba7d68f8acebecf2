#include "tools/tfd/train_devices.h"

#include <string>
#include <utility>

#include "absl/strings/str_join.h"
#include "core/device/device_registry.h"
#include "core/framework/status.h"

namespace tfd {
namespace cli {

absl::StatusOr<TrainDeviceKind> ChooseTrainDevices(const TrainFlags& flags, int gpu_count) {
  if (flags.devices == "cpu") return TrainDeviceKind::kCpu;
  if (flags.devices == "gpu") {
    if (gpu_count == 0) {
      return FailedPrecondition(
          "--devices=gpu, but no GPU is visible (no device or driver, "
          "CUDA_VISIBLE_DEVICES, or a build without --config=cuda)");
    }
    return TrainDeviceKind::kGpu;
  }
  if (flags.devices != "auto") {
    return InvalidArgument("--devices must be auto, cpu or gpu, got '", flags.devices, "'");
  }
  if (gpu_count == 0 || flags.strategy == "parameter_server") return TrainDeviceKind::kCpu;
  // Training CPU replicas while GPUs sit idle is rarely what was meant,
  // and silently dropping --replicas would be worse: ask.
  if (flags.replicas != 1) {
    return InvalidArgument("--replicas=", flags.replicas, " sets CPU replicas, but this machine has ",
                           gpu_count, " GPU", gpu_count == 1 ? "" : "s",
                           " that --devices=auto trains on (one replica each); give "
                           "--devices=cpu to train on CPU replicas");
  }
  return TrainDeviceKind::kGpu;
}

absl::StatusOr<std::vector<Device*>> TrainGpus(const TrainFlags& flags) {
  const int gpu_count = DeviceCount(DeviceType::kGPU);
  absl::StatusOr<TrainDeviceKind> chosen = ChooseTrainDevices(flags, gpu_count);
  if (gpu_count == 0 && absl::IsFailedPrecondition(chosen.status())) {
    // The registry says why: a build without GPU support, or none visible.
    return FailedPrecondition(chosen.status().message(), ": ",
                              GetDevice(DeviceType::kGPU, 0).status().message());
  }
  TFD_ASSIGN_OR_RETURN(TrainDeviceKind kind, std::move(chosen));
  std::vector<Device*> gpus;
  if (kind == TrainDeviceKind::kCpu) return gpus;
  for (int i = 0; i < gpu_count; ++i) {
    TFD_ASSIGN_OR_RETURN(Device * gpu, GetDevice(DeviceType::kGPU, i));
    gpus.push_back(gpu);
  }
  return gpus;
}

void PrintTrainDevices(const std::vector<Device*>& gpus, std::FILE* out) {
  if (gpus.empty()) return;
  std::vector<std::string> names;
  for (const Device* gpu : gpus) names.push_back(gpu->name());
  std::fprintf(out, "Training on %s\n", absl::StrJoin(names, ", ").c_str());
  std::fflush(out);
}

}  // namespace cli
}  // namespace tfd
