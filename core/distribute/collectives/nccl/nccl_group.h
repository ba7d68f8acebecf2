// The state the ranks of one NCCL group share, and the stream and event
// plumbing of Note [Streams and events] (nccl_communicator.h). Internal to
// nccl_communicator.cc, split out to keep that file about the collectives.
//
// A group holds its local ranks (every GPU of this process for an
// in-process group; one rank for a multi-worker group), each with its
// NCCL communicator and NCCL stream, and the watchdog (collective_watchdog.h)
// that watches the collectives the ranks no longer wait for and holds the
// status that ended the group, if any. Rank r's thread issues the NCCL
// calls on rank r's communicator; the watchdog's thread queries its
// asynchronous error and may abort it. Each rank's mutex makes those one
// at a time (NCCL calls on one communicator must not overlap, and an
// aborted communicator is freed).
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_GROUP_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_GROUP_H_

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/device/cuda/cuda_device.h"
#include "core/distribute/collectives/nccl/collective_watchdog.h"
#include "core/framework/types.h"

namespace tfd {
namespace distribute {
namespace nccl_internal {

inline constexpr char kName[] = "NcclAllReduce";

// The NCCL element type of `dtype`; INVALID_ARGUMENT for dtypes NCCL cannot
// reduce.
absl::StatusOr<ncclDataType_t> NcclReduceType(DataType dtype);

struct LocalRank {
  int rank = 0;  // In the whole group.
  CudaDevice* gpu = nullptr;
  ncclComm_t comm = nullptr;  // Freed by the abort: used only under `mu`.
  cudaStream_t stream = nullptr;
  std::unique_ptr<absl::Mutex> mu = std::make_unique<absl::Mutex>();
  bool aborted = false;  // Guarded by `mu` once the group exists.
};

class NcclGroup {
 public:
  // Takes ownership of the ranks' communicators and streams.
  NcclGroup(int size, std::vector<LocalRank> ranks);
  // Waits for the collectives still running (each bounded by its
  // deadline), then aborts every communicator not aborted yet (Note
  // [Teardown] in the .cc) and destroys the streams.
  ~NcclGroup();
  NcclGroup(const NcclGroup&) = delete;
  NcclGroup& operator=(const NcclGroup&) = delete;

  int size() const { return size_; }
  int num_local() const { return static_cast<int>(ranks_.size()); }
  LocalRank& local(int i) { return ranks_[i]; }

  // OK, or the status that ended the group.
  absl::Status poison() const { return watchdog_->status(); }
  // Ends the group with `status` (the first one wins) and aborts every
  // local communicator. Returns the group's status once the abort is done.
  absl::Status Fail(absl::Status status) { return watchdog_->Fail(std::move(status)); }

  // Makes `self`'s NCCL stream wait for the work queued so far on its
  // device's compute stream.
  absl::Status OrderAfterCompute(LocalRank& self);
  // Runs `call` (NCCL calls on self.comm, returning the last result)
  // under self's mutex, then Settle()s its result. The group's status
  // once the communicator was aborted.
  template <typename Call>
  absl::Status Enqueue(LocalRank& self, const char* what, absl::Time deadline, Call call) {
    ncclResult_t result = ncclSuccess;
    bool aborted = false;
    {
      absl::MutexLock lock(self.mu.get());
      aborted = self.aborted;
      if (!aborted) result = call(self.comm);
    }
    // Only a failed group aborts: this returns its status.
    if (aborted) return Fail(absl::AbortedError("NCCL communicator aborted"));
    return Settle(self, result, what, deadline);
  }
  // Turns the result of an NCCL call into a status; on a non-blocking
  // communicator an ncclInProgress call is waited for (until `deadline`).
  // Fails the group on an error.
  absl::Status Settle(LocalRank& self, ncclResult_t result, const char* call, absl::Time deadline);
  // Hands what is queued on `self`'s NCCL stream to the watchdog, after
  // making the compute stream wait for it: consumers queued afterwards see
  // the results, and memory let go afterwards is reused only after NCCL
  // is done with it. Does not wait for the device. The group's status
  // (what failed it, on any rank) or OK.
  absl::Status Finish(LocalRank& self, const std::string& what, absl::Time deadline,
                      absl::Duration timeout);
  // Blocks until everything Finish() handed over for `self` is done on the
  // device, the group fails, or `deadline` passes (DEADLINE_EXCEEDED, the
  // group is left alone).
  absl::Status Synchronize(LocalRank& self, absl::Time deadline) {
    return watchdog_->WaitAll(self.rank, deadline);
  }
  // NCCL's asynchronous error of `self`'s communicator (ncclCommGetAsyncError);
  // OK while there is none or an operation is still in progress.
  absl::Status AsyncError(LocalRank& self);

 private:
  // The watchdog's abort: every local communicator, then their streams.
  void AbortAll();

  const int size_;
  std::vector<LocalRank> ranks_;
  std::unique_ptr<CollectiveWatchdog> watchdog_;
};

}  // namespace nccl_internal
}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_NCCL_NCCL_GROUP_H_
