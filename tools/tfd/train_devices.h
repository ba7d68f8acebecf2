// Where `tfd train` runs its replicas (--devices), by TensorFlow's rule:
// a strategy made without devices uses every GPU of the machine, else the
// host CPU. GPUs are whatever //core/device:device_registry lists: the
// machine's GPUs in a --config=cuda build, none in a CPU-only build (so
// there --devices=auto is the CPU, exactly as before GPUs were linked).
//
//   TFD_ASSIGN_OR_RETURN(std::vector<Device*> gpus, TrainGpus(flags));
//   // empty: CPU replicas (--replicas of them); else one replica per GPU
//
// Thread-safe; devices returned live for the process.
#ifndef TFD_TOOLS_TFD_TRAIN_DEVICES_H_
#define TFD_TOOLS_TFD_TRAIN_DEVICES_H_

#include <cstdio>
#include <vector>

#include "absl/status/statusor.h"
#include "core/framework/device.h"
#include "tools/tfd/train_flags.h"

namespace tfd {
namespace cli {

enum class TrainDeviceKind { kCpu, kGpu };

// The decision alone, for a machine with `gpu_count` GPUs:
//   cpu  -> kCpu;
//   gpu  -> kGpu, FAILED_PRECONDITION when gpu_count is 0;
//   auto -> kCpu when gpu_count is 0 or the strategy is parameter_server
//           (its workers compute on the host); otherwise kGpu, and
//           INVALID_ARGUMENT when --replicas asks for several CPU replicas
//           (ambiguous on a GPU machine: the message says to give
//           --devices=cpu).
absl::StatusOr<TrainDeviceKind> ChooseTrainDevices(const TrainFlags& flags, int gpu_count);

// The GPUs the run trains on, GPU:0..n-1, or none for a CPU run. Errors of
// ChooseTrainDevices (--devices=gpu without a GPU also says whether the
// build has GPU support), and of making a GPU device.
absl::StatusOr<std::vector<Device*>> TrainGpus(const TrainFlags& flags);

// "Training on /device:GPU:0, /device:GPU:1" to `out` when `gpus`
// is not empty; nothing for a CPU run, whose output stays as it was.
void PrintTrainDevices(const std::vector<Device*>& gpus, std::FILE* out);

}  // namespace cli
}  // namespace tfd

#endif  // TFD_TOOLS_TFD_TRAIN_DEVICES_H_
