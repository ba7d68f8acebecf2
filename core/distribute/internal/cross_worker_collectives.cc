#include "core/distribute/internal/cross_worker_collectives.h"

#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace internal {
namespace {

constexpr char kWho[] = "MultiWorkerMirroredStrategy";
constexpr char kErrorTag[] = "ERROR";

// What a worker publishes: "<ENGINE> <local replicas>", or
// "ERROR <status code> <message>" when it cannot take part.
std::string Encode(const absl::StatusOr<CrossWorkerEngine>& choice, int local_replicas) {
  if (!choice.ok()) {
    return absl::StrCat(kErrorTag, " ", static_cast<int>(choice.status().code()), " ",
                        choice.status().message());
  }
  return absl::StrCat(CrossWorkerEngineName(*choice), " ", local_replicas);
}

// A published choice read back; `text` for messages ("NCCL 2").
struct Published {
  absl::Status error;
  std::string text;
};

absl::StatusOr<Published> Decode(const std::string& value, int worker) {
  std::vector<std::string> parts = absl::StrSplit(value, absl::MaxSplits(' ', 2));
  int number = 0;
  if (parts.size() >= 2 && absl::SimpleAtoi(parts[1], &number)) {
    if (parts[0] == kErrorTag) {
      return Published{absl::Status(static_cast<absl::StatusCode>(number),
                                    parts.size() == 3 ? parts[2] : ""),
                       ""};
    }
    if (parts.size() == 2) {
      return Published{absl::OkStatus(),
                       absl::StrCat(parts[0], " with ", number, " local replica(s)")};
    }
  }
  return absl::DataLossError(absl::StrCat(
      kWho, ": worker ", worker, " published an unreadable collectives choice \"", value, "\""));
}

// Note [Leaving after the agreement]. Worker 0 serves the store in a job
// (the chief's coordination service), which stops when its strategy
// fails to start. A worker still reading the choices then gets CANCELLED
// or UNAVAILABLE instead of the reason the job cannot start. So a worker
// that fails the agreement marks that it is done reading, and worker 0,
// before it returns such an error, waits (within the timeout) for the
// others' marks. Only the failing paths need this: when one worker fails
// the agreement, every worker that reads the choices fails it too. A
// worker that never published is not waited for twice: a store read has
// timed out already.
std::string ReadMarkKey(const std::string& prefix, int rank) {
  return absl::StrCat(prefix, "read/", rank);
}

// Marks this worker as done reading and returns `error`, worker 0 only once
// every other worker has marked or the timeout has passed. Best effort: a
// store that fails here must not hide `error`, the reason.
absl::Status AfterTheOthersRead(NcclIdStore& store, const std::string& prefix, int rank,
                                int num_workers, absl::Duration timeout, absl::Status error) {
  static_cast<void>(store.Set(ReadMarkKey(prefix, rank), "1"));
  if (rank != 0) return error;
  const absl::Time deadline = absl::Now() + timeout;
  for (int w = 1; w < num_workers; ++w) {
    const absl::Duration left = deadline - absl::Now();
    if (left <= absl::ZeroDuration()) break;
    // A worker that never marks only costs the wait.
    static_cast<void>(store.Get(ReadMarkKey(prefix, w), left));
  }
  return error;
}

}  // namespace

const char* CrossWorkerEngineName(CrossWorkerEngine engine) {
  return engine == CrossWorkerEngine::kNccl ? "NCCL" : "RING";
}

absl::StatusOr<CrossWorkerEngine> ChooseCrossWorkerEngine(
    CommunicationImplementation implementation, const LocalReplicas& replicas) {
  const std::string nccl_reason =
      replicas.in_host_memory
          ? absl::StrCat(replicas.nccl.fallback_reason, " (this worker has no GPU replicas)")
          : replicas.nccl.fallback_reason;
  switch (implementation) {
    case CommunicationImplementation::kRing:
      if (replicas.in_host_memory) return CrossWorkerEngine::kRing;
      return Unimplemented(kWho, ": implementation RING carries tensors through Gloo, in host "
                           "memory, and the local replicas are not CPU devices; use NCCL or "
                           "AUTO for GPU replicas");
    case CommunicationImplementation::kNccl:
      if (!replicas.nccl_built) {
        return Unimplemented(kWho, ": implementation NCCL needs a build of tfd with NCCL "
                             "(--config=cuda); use RING or AUTO");
      }
      if (replicas.nccl.use_nccl) return CrossWorkerEngine::kNccl;
      return FailedPrecondition(kWho, ": implementation NCCL needs every local replica on its "
                                "own GPU: ", nccl_reason);
    case CommunicationImplementation::kAuto:
      if (replicas.nccl.use_nccl) return CrossWorkerEngine::kNccl;
      if (replicas.in_host_memory) return CrossWorkerEngine::kRing;
      return FailedPrecondition(kWho, ": implementation AUTO found GPU replicas that NCCL "
                                "cannot serve (", nccl_reason, ") and RING cannot carry");
  }
  return Internal(kWho, ": unknown communication implementation");
}

absl::StatusOr<CrossWorkerEngine> AgreeOnCrossWorkerEngine(
    NcclIdStore& store, const std::string& prefix, int rank, int num_workers,
    int local_replicas, const absl::StatusOr<CrossWorkerEngine>& mine, absl::Duration timeout) {
  TFD_RETURN_IF_ERROR(store.Set(absl::StrCat(prefix, rank), Encode(mine, local_replicas)));
  // Published before failing, so that the others learn why.
  if (!mine.ok()) {
    return AfterTheOthersRead(store, prefix, rank, num_workers, timeout, mine.status());
  }
  std::vector<std::string> choices;
  bool differ = false;
  std::string first;
  for (int w = 0; w < num_workers; ++w) {
    absl::StatusOr<std::string> value = store.Get(absl::StrCat(prefix, w), timeout);
    if (!value.ok()) {
      return absl::Status(value.status().code(),
                          absl::StrCat(kWho, ": worker ", w, " did not say which collectives it "
                                       "uses: ", value.status().message()));
    }
    TFD_ASSIGN_OR_RETURN(Published theirs, Decode(*value, w));
    if (!theirs.error.ok()) {
      return AfterTheOthersRead(
          store, prefix, rank, num_workers, timeout,
          absl::Status(theirs.error.code(), absl::StrCat(kWho, ": worker ", w, " cannot take part: ",
                                                         theirs.error.message())));
    }
    if (w == 0) first = theirs.text;
    differ = differ || theirs.text != first;
    choices.push_back(absl::StrCat("worker ", w, ": ", theirs.text));
  }
  if (differ) {
    return AfterTheOthersRead(
        store, prefix, rank, num_workers, timeout,
        FailedPrecondition(kWho, ": the workers must use the same collectives and the same "
                           "number of local replicas (AUTO picks NCCL only where every local "
                           "replica is a GPU): ", absl::StrJoin(choices, "; ")));
  }
  return *mine;
}

NcclRanks NcclRanksOfWorker(int worker, int num_workers, int local_replicas) {
  return NcclRanks{worker * local_replicas, num_workers * local_replicas};
}

}  // namespace internal
}  // namespace distribute
}  // namespace tfd
