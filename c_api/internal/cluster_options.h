// The TFD_Options of the multi-process strategies and servers
// (TFD_NewStrategy, TFD_StartParameterServer).
//
// Every one of them takes "tf_config" (string): the job's TF_CONFIG JSON,
// used instead of the environment (several tasks of one job may then share
// a process, as in tests).
//
// "multi_worker_mirrored": MultiWorkerMirroredStrategyOptions, with the
// names of tf.distribute.experimental.CommunicationOptions where
// TensorFlow has them:
//   "local_devices"              "cpu" (default: one replica on the host
//                                CPU) or "gpu" (one replica per GPU of
//                                this process; FAILED_PRECONDITION when it
//                                has none), case-insensitive;
//   "implementation"             "AUTO" (default), "RING" or "NCCL"
//                                (case-insensitive; NCCL needs GPUs);
//   "timeout_seconds"            every collective's longest wait (300);
//   "bytes_per_pack"             all-reduce bucket size, 0 for tfd's
//                                default (4 MiB);
//   "startup_timeout_seconds"    registering and the start-up barrier (60);
//   "heartbeat_timeout_seconds"  silence after which a worker is declared
//                                lost (10);
//   "shutdown_timeout_seconds"   how long leaving waits for the others (60).
// "parameter_server": ParameterServerStrategyOptions:
//   "connect_timeout_seconds"    how long to wait for the ps tasks (30);
//   "rpc_timeout_seconds"        the deadline of each call to a ps (30);
//   "step_timeout_seconds"       a step's deadline on a worker, past which
//                                the worker counts as lost (60).
// INVALID_ARGUMENT for a value of the wrong type, a non-positive timeout,
// a negative bytes_per_pack, an unknown implementation or local_devices.
#ifndef TFD_C_API_INTERNAL_CLUSTER_OPTIONS_H_
#define TFD_C_API_INTERNAL_CLUSTER_OPTIONS_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/distribute/cluster_resolver.h"
#include "core/distribute/multi_worker_mirrored_strategy.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/nn/keras_config.h"

namespace tfd {
namespace capi {

// Each consumes its keys from `config`; the caller calls Finish().
// The resolver of "tf_config" when given, else DefaultClusterResolver()
// (TF_CONFIG, Open MPI or SLURM from the environment).
absl::StatusOr<std::unique_ptr<distribute::ClusterResolver>> ReadClusterResolver(
    nn::KerasConfig& config);
absl::StatusOr<distribute::MultiWorkerMirroredStrategyOptions> ReadMultiWorkerOptions(
    nn::KerasConfig& config);
absl::StatusOr<distribute::ParameterServerStrategyOptions> ReadParameterServerOptions(
    nn::KerasConfig& config);

}  // namespace capi
}  // namespace tfd

#endif  // TFD_C_API_INTERNAL_CLUSTER_OPTIONS_H_
