// Collectives between GPUs over NCCL, behind the Communicator interface
// (collectives.h): cross_device_ops "NcclAllReduce".
//
// One NCCL communicator per GPU of a group: CreateNcclCommunicators makes
// them together for the GPUs of this process (ncclCommInitAll), one rank
// per device; CreateNcclRankCommunicators joins this process's ranks of
// a job-wide group whose NCCL unique id the ranks shared beforehand
// (multi-worker, nccl_unique_id_exchange.h).
//
// Note [Streams and events]
// Each rank has its own NCCL stream next to its device's compute stream.
// A collective first makes the NCCL stream wait for an event recorded on
// the compute stream after its tensors and outputs were allocated, so
// NCCL reads inputs only once the kernels that produce them are done and
// writes memory only once its previous users are done. Wait() records an
// event on the NCCL stream, makes the compute stream wait for it (so
// consumers queued afterwards see the results) and returns without
// waiting for the GPU: the host goes on queuing the optimizer update, and
// the rest of the step, while NCCL runs. The event then belongs to the
// group's watchdog (collective_watchdog.h), a thread that polls it, NCCL's
// asynchronous error (ncclCommGetAsyncError) and the deadline; on an error
// or a timeout it fails the group and aborts its communicators
// (ncclCommAbort), which ends the NCCL kernels so that no stream waits
// forever. Every tensor a collective touches is held until the compute
// stream is ordered after it, so memory let go afterwards is reused only
// behind NCCL (the device's one-stream allocator). Communicator::
// Synchronize() blocks until this rank's collectives are done on the GPU
// and returns the group's error if one failed; a strategy calls it at the
// end of each step, and all-gather calls it for the shapes it reads on
// the host.
//
// Note [Bucket order]
// An all-reduce's tensors are packed into buckets as the CPU path packs
// them (bucketing.h). A bucket is launched as soon as this rank has
// handed in every tensor it touches, so reductions overlap the caller's
// remaining work (the rest of the backward pass), but strictly in bucket
// order: NCCL needs every rank to issue its collectives in the same order,
// and a bucket-ordered sequence is the same on every rank whatever order
// the tensors arrive in. A bucket that is one contiguous run of one
// tensor (a whole tensor, or a slice of a large one) is reduced in place
// of its output; others are gathered into one buffer first.
//
// Errors follow collectives.h: a rank that fails or times out poisons the
// group (ABORTED / DEADLINE_EXCEEDED naming the rank and the collective)
// and every later call, wait and Synchronize() fails with that status;
// the strategy then makes a new group. A failure the watchdog finds after
// Wait() returned shows there, not in that Wait(). NCCL's own errors
// arrive as TFD_NCCL_STATUS messages.
//
// Thread safety: as collectives.h; each rank's NCCL communicator is used
// by its own thread, and by the group's watchdog thread for error queries
// and the abort, one at a time (a mutex per rank).
//
//   TFD_ASSIGN_OR_RETURN(auto comms, CreateNcclCommunicators({gpu0, gpu1}));
//   // on replica i's thread:
//   TFD_ASSIGN_OR_RETURN(auto sums, AllReduceAndWait(*comms[i], grads, {}));
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_COMMUNICATOR_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_COMMUNICATOR_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/distribute/collectives/collectives.h"
#include "core/framework/device.h"

namespace tfd {
namespace distribute {

// One communicator per device (rank i on devices[i]). INVALID_ARGUMENT for
// an empty list, a device that is not a CUDA GPU, or two devices on one
// physical GPU (NCCL refuses two ranks on one GPU); NCCL's error when
// ncclCommInitAll fails.
absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> CreateNcclCommunicators(
    const std::vector<Device*>& devices);

// Ranks first_rank, first_rank + 1, ... of a group of `size` ranks spread
// over processes, rank first_rank + i on devices[i] (distinct physical
// GPUs), joined through `unique_id` (the bytes of an ncclUniqueId, the same
// on every rank). Initialization is non-blocking and bounded by `timeout`:
// DEADLINE_EXCEEDED when the other ranks do not join in time.
// INVALID_ARGUMENT for bad ranks or size, a device that is not a GPU, two
// devices on one GPU, or a bad id.
absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> CreateNcclRankCommunicators(
    int first_rank, int size, const std::vector<Device*>& devices, const std::string& unique_id,
    absl::Duration timeout);

// A fresh ncclUniqueId's bytes (what rank 0 publishes). NCCL's error, e.g.
// when no network interface is usable.
absl::StatusOr<std::string> NewNcclUniqueId();

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_COMMUNICATOR_H_
