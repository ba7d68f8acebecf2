#include "core/distribute/replicated_strategy.h"

#include <algorithm>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/time/clock.h"
#include "core/device/cpu/thread_pool.h"
#include "core/device/device_registry.h"
#include "core/distribute/cross_device_ops.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {

// Replica r's view of the strategy.
class ReplicatedStrategy::Context : public ReplicaContext {
 public:
  Context(ReplicatedStrategy* strategy, int replica) : s_(strategy), r_(replica) {}

  Strategy& strategy() const override { return *s_; }
  int replica_id_in_sync_group() const override { return s_->first_replica_id() + r_; }
  int num_replicas_in_sync() const override { return s_->num_replicas_in_sync(); }
  Device* device() const override { return s_->devices_[r_]; }

  absl::StatusOr<std::vector<Tensor>> AllReduce(ReduceOp op, std::vector<Tensor> values) override {
    TFD_RETURN_IF_ERROR(CheckThread("AllReduce"));
    AllReduceOptions options;
    options.op = op;
    options.communication = s_->options_.communication;
    return AllReduceAndWait(*s_->comms_[r_], values, options);
  }

  absl::StatusOr<std::unique_ptr<PendingAllReduce>> StartAllReduce(
      ReduceOp op, std::vector<TensorSpec> specs) override {
    TFD_RETURN_IF_ERROR(CheckThread("StartAllReduce"));
    AllReduceOptions options;
    options.op = op;
    options.communication = s_->options_.communication;
    return s_->comms_[r_]->StartAllReduce(std::move(specs), options);
  }

  bool overlap_backward_pass() const override {
    return s_->options_.communication.overlap_backward_pass;
  }

  absl::StatusOr<Tensor> AllGather(const Tensor& value) override {
    TFD_RETURN_IF_ERROR(CheckThread("AllGather"));
    AllGatherOptions options;
    options.communication = s_->options_.communication;
    TFD_ASSIGN_OR_RETURN(std::unique_ptr<CollectiveHandle> handle,
                         s_->comms_[r_]->AllGather(value, options));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> gathered, handle->Wait());
    return gathered[0];
  }

  absl::Status MergeCall(const std::function<absl::Status()>& fn) override {
    TFD_RETURN_IF_ERROR(CheckThread("MergeCall"));
    return s_->MergeCall(r_, fn);
  }

 private:
  // A replica's collectives belong to its thread (and its step).
  absl::Status CheckThread(const char* what) const {
    if (CurrentReplicaContext() == this) return absl::OkStatus();
    return FailedPrecondition(s_->name(), ": ReplicaContext::", what, " of replica ", r_,
                              " called outside that replica's step function");
  }

  ReplicatedStrategy* const s_;
  const int r_;
};

std::vector<Device*> DefaultReplicaDevices() {
  std::vector<Device*> gpus;
  const int count = DeviceCount(DeviceType::kGPU);
  for (int i = 0; i < count; ++i) {
    absl::StatusOr<Device*> gpu = GetDevice(DeviceType::kGPU, i);
    if (gpu.ok()) gpus.push_back(*gpu);
  }
  if (!gpus.empty()) return gpus;
  return {HostDevice()};
}

ReplicatedStrategy::ReplicatedStrategy() = default;
ReplicatedStrategy::~ReplicatedStrategy() { threads_.reset(); }

absl::Status ReplicatedStrategy::Init(std::vector<Device*> devices,
                                      ReplicatedStrategyOptions options) {
  if (devices.empty()) return InvalidArgument(name(), ": needs at least one device");
  for (size_t i = 0; i < devices.size(); ++i) {
    if (devices[i] == nullptr) return InvalidArgument(name(), ": device ", i, " is null");
    for (size_t j = 0; j < i; ++j) {
      if (devices[j] == devices[i]) {
        return InvalidArgument(name(), ": device ", devices[i]->name(),
                               " is listed twice (replicas ", j, " and ", i, ")");
      }
    }
  }
  if (options.communication.timeout <= absl::ZeroDuration() ||
      options.communication.bytes_per_pack < 0) {
    return InvalidArgument(name(),
                           ": communication options need a positive timeout and "
                           "bytes_per_pack >= 0, got ",
                           absl::FormatDuration(options.communication.timeout), " and ",
                           options.communication.bytes_per_pack);
  }
  devices_ = std::move(devices);
  options_ = std::move(options);
  cross_device_ops_ = options_.cross_device_ops.empty() ? SelectCrossDeviceOps(devices_)
                                                        : options_.cross_device_ops;
  TFD_ASSIGN_OR_RETURN(comms_, MakeCommunicators());
  std::vector<std::vector<int>> cpus;
  for (int r = 0; r < num_local_replicas(); ++r) {
    contexts_.push_back(std::make_unique<Context>(this, r));
    ThreadPool* pool = devices_[r]->thread_pool();
    cpus.push_back(pool != nullptr ? pool->cpus() : std::vector<int>());
  }
  absl::MutexLock lock(&mu_);
  phases_.assign(devices_.size(), Phase::kIdle);
  threads_ = std::make_unique<internal::ReplicaThreads>(std::move(cpus));
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> ReplicatedStrategy::MakeCommunicators() {
  return CreateCrossDeviceOps(cross_device_ops_, devices_);
}

absl::StatusOr<PerReplica> ReplicatedStrategy::Run(const ReplicaFn& fn) {
  const ReplicaContext* outer = CurrentReplicaContext();
  if (outer != nullptr && &outer->strategy() == this) {
    return FailedPrecondition(name(), ".Run: called from inside a replica function (replica ",
                              outer->replica_id_in_sync_group(), "); Run does not nest");
  }
  const int n = num_local_replicas();
  absl::MutexLock run_lock(&run_mu_);
  {
    absl::MutexLock lock(&mu_);
    phases_.assign(n, Phase::kRunning);
    results_.assign(n, absl::StatusOr<std::vector<Tensor>>(std::vector<Tensor>()));
    failures_.clear();
    merge_fns_.assign(n, nullptr);
  }
  threads_->Dispatch([this, &fn](int r) { RunReplica(r, fn); });
  PerReplica outputs;
  std::vector<std::pair<int, absl::Status>> failures;
  {
    absl::MutexLock lock(&mu_);
    Coordinate();
    failures = failures_;
    for (int r = 0; r < n; ++r) {
      if (results_[r].ok()) outputs.push_back(*std::move(results_[r]));
    }
    phases_.assign(n, Phase::kIdle);
    results_.clear();
  }
  if (failures.empty()) return outputs;
  // The failure aborted (or a timeout poisoned) the group of collectives:
  // later steps get a fresh one.
  absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> comms = MakeCommunicators();
  if (comms.ok()) comms_ = *std::move(comms);
  const auto& [replica, status] = failures[0];
  return absl::Status(status.code(),
                      absl::StrCat(name(), ": replica ", replica, " (", devices_[replica]->name(),
                                   "): ", status.message()));
}

// Note [A step ends with its collectives checked]
// An NCCL all-reduce's Wait() returns once its results are ordered on the
// GPU's stream, so a replica queues its optimizer update while the
// reduction still runs. Before the step returns, each replica waits for its
// collectives to be done on the device (not for the rest of its work), so
// a collective that failed or timed out fails the step that issued it, as
// TensorFlow's would, and the group is remade before the next one.
void ReplicatedStrategy::RunReplica(int r, const ReplicaFn& fn) {
  absl::StatusOr<std::vector<Tensor>> result;
  {
    DeviceScope device_scope(devices_[r]);
    ReplicaContextScope replica_scope(contexts_[r].get());
    result = fn(*contexts_[r]);
  }
  // Note [A step ends with its collectives checked].
  if (result.ok()) {
    absl::Status synced = comms_[r]->Synchronize(options_.communication.timeout);
    if (!synced.ok()) result = synced;
  }
  if (!result.ok()) {
    {
      absl::MutexLock lock(&mu_);
      failures_.emplace_back(r, result.status());
    }
    // Releases the replicas waiting for this one in a collective.
    comms_[r]->Abort(result.status());
  }
  absl::MutexLock lock(&mu_);
  results_[r] = std::move(result);
  phases_[r] = Phase::kDone;
}

std::string ReplicatedStrategy::ReplicasIn(Phase phase) const {
  std::vector<int> ids;
  for (int r = 0; r < static_cast<int>(phases_.size()); ++r) {
    if (phases_[r] == phase) ids.push_back(r);
  }
  return absl::StrJoin(ids, ", ");
}

void ReplicatedStrategy::ReleaseMerge(absl::Status status) {
  merge_status_ = std::move(status);
  for (size_t r = 0; r < phases_.size(); ++r) {
    if (phases_[r] == Phase::kMerging) phases_[r] = Phase::kRunning;
    merge_fns_[r] = nullptr;
  }
  ++merge_generation_;
}

void ReplicatedStrategy::Coordinate() {
  auto count = [this](Phase p) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return static_cast<int>(std::count(phases_.begin(), phases_.end(), p));
  };
  const int n = num_local_replicas();
  while (true) {
    // Wait until every replica is done or in MergeCall; once one is in
    // MergeCall, for at most the timeout.
    const bool merging = count(Phase::kMerging) > 0;
    const absl::Time deadline =
        merging ? first_merge_arrival_ + options_.communication.timeout : absl::InfiniteFuture();
    auto wake = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      const int merging_now = count(Phase::kMerging);
      return count(Phase::kDone) + merging_now == n || (!merging && merging_now > 0);
    };
    if (!mu_.AwaitWithDeadline(absl::Condition(&wake), deadline)) {
      ReleaseMerge(absl::DeadlineExceededError(
          absl::StrCat(name(), ": MergeCall timed out after ",
                       absl::FormatDuration(options_.communication.timeout), ": replica(s) ",
                       ReplicasIn(Phase::kMerging), " called it, replica(s) ",
                       ReplicasIn(Phase::kRunning), " did not")));
      continue;
    }
    const int done = count(Phase::kDone);
    if (done == n) return;
    if (done + count(Phase::kMerging) < n) continue;  // A first replica entered MergeCall.
    if (done > 0) {
      // Nobody is left to complete the merge call.
      ReleaseMerge(
          failures_.empty()
              ? FailedPrecondition(name(), ": MergeCall: replica(s) ", ReplicasIn(Phase::kMerging),
                                   " called it but replica(s) ", ReplicasIn(Phase::kDone),
                                   " returned without calling it; every replica must "
                                   "make the same merge calls")
              : absl::AbortedError(absl::StrCat(name(), ": MergeCall: replica ", failures_[0].first,
                                                " failed: ", failures_[0].second.ToString())));
      continue;
    }
    // Every replica is in MergeCall: run replica 0's function here, in
    // cross-replica context.
    const std::function<absl::Status()>* fn = merge_fns_[0];
    mu_.Unlock();
    absl::Status status;
    {
      StrategyScope scope(this);
      status = (*fn)();
    }
    mu_.Lock();
    ReleaseMerge(std::move(status));
  }
}

absl::Status ReplicatedStrategy::MergeCall(int r, const std::function<absl::Status()>& fn) {
  absl::MutexLock lock(&mu_);
  if (std::count(phases_.begin(), phases_.end(), Phase::kMerging) == 0) {
    first_merge_arrival_ = absl::Now();
  }
  merge_fns_[r] = &fn;
  phases_[r] = Phase::kMerging;
  const int64_t generation = merge_generation_;
  auto released = [this, generation]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return merge_generation_ != generation;
  };
  mu_.Await(absl::Condition(&released));
  return merge_status_;
}

absl::StatusOr<std::shared_ptr<DistributedVariable>> ReplicatedStrategy::CreateVariable(
    const VariableSpec& spec) {
  ReplicaContext* ctx = CurrentReplicaContext();
  if (ctx == nullptr || &ctx->strategy() != this) return CreateVariableInCrossReplica(spec);
  TFD_RETURN_IF_ERROR(ctx->MergeCall([this, &spec]() -> absl::Status {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<DistributedVariable> v,
                         CreateVariableInCrossReplica(spec));
    absl::MutexLock lock(&mu_);
    merged_variable_ = std::move(v);
    return absl::OkStatus();
  }));
  // The next merge call needs this replica too, so the variable is still
  // the one this call made.
  absl::MutexLock lock(&mu_);
  return merged_variable_;
}

}  // namespace distribute
}  // namespace tfd
