// Which engine carries MultiWorkerMirroredStrategy's replica collectives
// between workers, and how the workers agree on it. Plain C++ over
// descriptions of the devices and a key-value store, so that every rule
// and error is tested without GPUs or a cluster.
//
// Note [Cross-worker engine]
// CommunicationOptions::implementation decides, with the local replicas:
//   RING  Gloo over TCP. Gloo reduces tensors in host memory, so the
//         replicas must be CPU devices (UNIMPLEMENTED for GPU replicas:
//         use NCCL or AUTO).
//   NCCL  one NCCL rank per GPU replica across all workers. UNIMPLEMENTED
//         in a build without NCCL (no --config=cuda); FAILED_PRECONDITION
//         when a local replica is not a GPU (a worker without GPUs) or two
//         share one physical GPU, naming the device.
//   AUTO  NCCL when it can serve every local replica (each on its own
//         GPU), as TensorFlow picks NCCL for GPUs; RING for CPU replicas;
//         FAILED_PRECONDITION otherwise (GPU replicas NCCL cannot serve).
// Each worker decides from its own devices, so the workers then agree
// (AgreeOnCrossWorkerEngine): a worker that cannot take part, or one that
// chose differently or runs a different number of local replicas, fails
// every worker with its reason instead of leaving the others to time out
// in a rendezvous it will never join.
//
// Note [NCCL rank layout]
// With W workers of L local replicas each, worker w's local replica l is
// NCCL rank w * L + l of a group of W * L: the strategy's global replica
// id, and the hierarchical collectives' global rank.
#ifndef TFD_CORE_DISTRIBUTE_INTERNAL_CROSS_WORKER_COLLECTIVES_H_
#define TFD_CORE_DISTRIBUTE_INTERNAL_CROSS_WORKER_COLLECTIVES_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/distribute/collectives/collectives.h"
#include "core/distribute/collectives/nccl/nccl_device_choice.h"
#include "core/distribute/collectives/nccl/nccl_unique_id_exchange.h"

namespace tfd {
namespace distribute {
namespace internal {

enum class CrossWorkerEngine { kRing, kNccl };
const char* CrossWorkerEngineName(CrossWorkerEngine engine);  // "RING", "NCCL"

// What the choice needs to know of this worker's local replicas.
struct LocalReplicas {
  // Whether every replica computes in host memory (CPU devices).
  bool in_host_memory = true;
  // Whether NCCL can serve the replicas' devices (ChooseNccl, which also
  // knows whether this build has NCCL).
  NcclChoice nccl;
  bool nccl_built = false;
};

// Note [Cross-worker engine].
absl::StatusOr<CrossWorkerEngine> ChooseCrossWorkerEngine(
    CommunicationImplementation implementation, const LocalReplicas& replicas);

// Publishes this worker's choice (or its error) under prefix + rank, reads
// every worker's within `timeout`, and returns the engine they all chose.
// Errors: this worker's own choice error; the first other worker's error,
// with its code, naming that worker; FAILED_PRECONDITION listing every
// worker's choice when they differ in engine or local replica count; the
// store's DEADLINE_EXCEEDED for a worker that never published. Worker 0,
// which serves the store in a job, returns an error only once the others
// have read the choices or `timeout` has passed (Note [Leaving after the
// agreement] in the .cc).
absl::StatusOr<CrossWorkerEngine> AgreeOnCrossWorkerEngine(
    NcclIdStore& store, const std::string& prefix, int rank, int num_workers,
    int local_replicas, const absl::StatusOr<CrossWorkerEngine>& mine, absl::Duration timeout);

// This worker's NCCL ranks (Note [NCCL rank layout]).
struct NcclRanks {
  int first = 0;  // Local replica l is rank first + l.
  int size = 1;   // Ranks in the job.
};
NcclRanks NcclRanksOfWorker(int worker, int num_workers, int local_replicas);

}  // namespace internal
}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_INTERNAL_CROSS_WORKER_COLLECTIVES_H_
