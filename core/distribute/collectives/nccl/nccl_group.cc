// Note [Teardown]
// A group's communicators are released with ncclCommAbort, never
// ncclCommDestroy. The group first waits (through its watchdog) for the
// collectives still running on the device, so nothing is left to flush;
// and destroying the communicators of one process's ranks one after
// another from one thread can wait on ranks that are not being destroyed
// yet, whereas abort is local to its communicator and cannot hang.
//
// Note [Aborting a group]
// The watchdog (or a rank that fails) first stores the group's status,
// then aborts every local communicator: the abort ends NCCL's kernels,
// which would otherwise wait forever for a peer, so the NCCL streams and
// the compute streams waiting on them go on. Because the status is stored
// before the abort, a rank that reads a collective's results on the host
// (which waits for the compute stream) and then finds the group healthy
// knows the results are real. The abort also synchronizes the NCCL
// streams, so a failed Fail() caller may let go of its tensors.
#include "core/distribute/collectives/nccl/nccl_group.h"

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/device/cuda/cuda_event.h"
#include "core/device/cuda/cuda_status.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace nccl_internal {
namespace {

// Between two looks at an NCCL call still in progress (non-blocking
// communicators): short enough not to add latency to a collective's
// launch, long enough not to spin a core.
constexpr absl::Duration kPollInterval = absl::Microseconds(20);

// One collective queued on a rank's NCCL stream, up to the event recorded
// after it.
class NcclWork : public OutstandingWork {
 public:
  NcclWork(NcclGroup* group, LocalRank* self, CudaEvent done)
      : group_(group), self_(self), done_(std::move(done)) {}
  absl::StatusOr<bool> IsDone() override { return done_.IsDone(); }
  absl::Status AsyncError() override { return group_->AsyncError(*self_); }

 private:
  // Not owned: the group outlives its watchdog, which owns this.
  NcclGroup* const group_;
  LocalRank* const self_;
  const CudaEvent done_;
};

}  // namespace

absl::StatusOr<ncclDataType_t> NcclReduceType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return ncclFloat32;
    case DT_DOUBLE:
      return ncclFloat64;
    case DT_HALF:
      return ncclFloat16;
    case DT_BFLOAT16:
      return ncclBfloat16;
    case DT_INT32:
      return ncclInt32;
    case DT_INT64:
      return ncclInt64;
    case DT_INT8:
      return ncclInt8;
    case DT_UINT8:
      return ncclUint8;
    case DT_UINT32:
      return ncclUint32;
    case DT_UINT64:
      return ncclUint64;
    default:
      return InvalidArgument("dtype ", DataTypeName(dtype), " cannot be all-reduced by NCCL");
  }
}

NcclGroup::NcclGroup(int size, std::vector<LocalRank> ranks)
    : size_(size), ranks_(std::move(ranks)) {
  watchdog_ =
      std::make_unique<CollectiveWatchdog>(kName, [this](const absl::Status&) { AbortAll(); });
}

NcclGroup::~NcclGroup() {
  watchdog_.reset();  // Note [Teardown]: lets the running collectives end.
  for (LocalRank& r : ranks_) {
    if (r.comm != nullptr && !r.aborted) ncclCommAbort(r.comm);
    if (r.stream != nullptr) {
      cudaSetDevice(r.gpu->ordinal());
      cudaStreamDestroy(r.stream);
    }
  }
}

void NcclGroup::AbortAll() {
  // Every communicator first, then the streams: a stream may wait for work
  // that another rank's abort ends.
  for (LocalRank& r : ranks_) {
    absl::MutexLock lock(r.mu.get());
    if (r.aborted || r.comm == nullptr) continue;
    r.aborted = true;
    r.gpu->Activate().IgnoreError();  // ncclCommAbort works on the current device.
    ncclCommAbort(r.comm);
  }
  for (LocalRank& r : ranks_) {
    if (r.stream == nullptr) continue;
    r.gpu->Activate().IgnoreError();
    cudaStreamSynchronize(r.stream);
  }
}

absl::Status NcclGroup::AsyncError(LocalRank& self) {
  ncclResult_t state = ncclSuccess;
  absl::Status queried;
  // The watchdog never waits for a rank's thread: a call that blocks in
  // NCCL (a blocking communicator connecting to a peer) would stall the
  // deadlines of every rank. Busy now means "ask again next look".
  if (!self.mu->TryLock()) return absl::OkStatus();
  // An aborted communicator is gone; the group's status says why.
  if (!self.aborted) queried = TFD_NCCL_STATUS(ncclCommGetAsyncError(self.comm, &state));
  self.mu->Unlock();
  if (!queried.ok()) return queried;
  if (state == ncclSuccess || state == ncclInProgress) return absl::OkStatus();
  return cuda_internal::NcclStatus(state, "ncclCommGetAsyncError", __FILE__, __LINE__);
}

absl::Status NcclGroup::OrderAfterCompute(LocalRank& self) {
  TFD_RETURN_IF_ERROR(self.gpu->Activate());
  TFD_ASSIGN_OR_RETURN(CudaEvent produced, CudaEvent::Create(self.gpu->ordinal()));
  TFD_RETURN_IF_ERROR(produced.Record(self.gpu->stream()));
  return produced.MakeStreamWait(self.stream);
}

absl::Status NcclGroup::Settle(LocalRank& self, ncclResult_t result, const char* call,
                               absl::Time deadline) {
  while (result == ncclInProgress) {
    if (absl::Now() >= deadline) {
      return Fail(absl::DeadlineExceededError(
          absl::StrCat(kName, ": ", call, " on rank ", self.rank, " did not complete in time")));
    }
    absl::SleepFor(kPollInterval);
    ncclResult_t state = ncclSuccess;
    absl::Status queried;
    {
      absl::MutexLock lock(self.mu.get());
      if (self.aborted) return Fail(absl::AbortedError("NCCL communicator aborted"));
      queried = TFD_NCCL_STATUS(ncclCommGetAsyncError(self.comm, &state));
    }
    if (!queried.ok()) return Fail(queried);
    result = state;
  }
  absl::Status s = cuda_internal::NcclStatus(result, call, __FILE__, __LINE__);
  if (!s.ok()) return Fail(s);
  return absl::OkStatus();
}

absl::Status NcclGroup::Finish(LocalRank& self, const std::string& what, absl::Time deadline,
                               absl::Duration timeout) {
  // Even in a failed group: the compute stream must still be ordered after
  // whatever was queued on the NCCL stream before the caller lets go of
  // the memory it uses.
  absl::Status s = self.gpu->Activate();
  absl::StatusOr<CudaEvent> done = CudaEvent::Create(self.gpu->ordinal());
  if (s.ok()) s = done.status();
  if (s.ok()) s = done->Record(self.stream);
  if (s.ok()) s = done->MakeStreamWait(self.gpu->stream());
  if (!s.ok()) return Fail(s);
  return watchdog_->Watch({self.rank, what, deadline, timeout},
                          std::make_unique<NcclWork>(this, &self, *std::move(done)));
}

}  // namespace nccl_internal
}  // namespace distribute
}  // namespace tfd
