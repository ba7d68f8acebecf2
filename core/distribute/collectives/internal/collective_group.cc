#include "core/distribute/collectives/internal/collective_group.h"

#include <cstring>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "core/distribute/collectives/internal/collective_state.h"
#include "core/framework/device_access.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace internal {
namespace {

// The state every rank of a group shares: the collectives being formed,
// and the error that ended the group, if any.
class Group {
 public:
  Group(std::shared_ptr<const AllReduceAlgorithm> algorithm, std::vector<Device*> devices)
      : algorithm_(std::move(algorithm)), devices_(std::move(devices)) {}

  const AllReduceAlgorithm& algorithm() const { return *algorithm_; }
  int size() const { return static_cast<int>(devices_.size()); }
  Device* device(int rank) const { return devices_[rank]; }

  // Rank `rank` joins its `seq`-th collective. The first rank to join
  // creates it; the others must ask for the same collective.
  absl::StatusOr<std::shared_ptr<Collective>> Join(int rank, int64_t seq, Request request,
                                                   std::vector<Tensor> outputs);
  // Records input `index` of `rank` and runs the rank's ready tasks.
  absl::Status Put(Collective& c, int rank, int index, const Tensor& value);
  // Works on and waits for `c` until it is complete, failed or timed out.
  absl::StatusOr<std::vector<Tensor>> Wait(Collective& c, int rank, absl::Duration timeout);
  // Ends the group because `rank` failed with `cause`.
  void Abort(int rank, const absl::Status& cause);

 private:
  // Claims one ready task (rank's own first; others' too unless
  // `own_only`), runs it without the lock, and records the outcome (a
  // failure poisons the group). False when there was nothing to claim.
  bool RunReadyTask(Collective& c, int rank, bool own_only) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Status RunTask(Collective& c, int bucket, int task, int rank);
  absl::Status Gather(Collective& c, int rank);
  void Poison(absl::Status status) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const std::shared_ptr<const AllReduceAlgorithm> algorithm_;
  const std::vector<Device*> devices_;
  absl::Mutex mu_;
  absl::CondVar cv_;  // Signalled on every join, input, finished task and error.
  absl::Status poison_ ABSL_GUARDED_BY(mu_);
  // Collectives some but not all ranks have joined, by sequence number.
  std::map<int64_t, std::shared_ptr<Collective>> forming_ ABSL_GUARDED_BY(mu_);
};

void Group::Poison(absl::Status status) {
  if (poison_.ok()) poison_ = std::move(status);
  cv_.SignalAll();
}

absl::StatusOr<std::shared_ptr<Collective>> Group::Join(int rank, int64_t seq, Request request,
                                                        std::vector<Tensor> outputs) {
  absl::MutexLock lock(&mu_);
  if (!poison_.ok()) return poison_;
  std::shared_ptr<Collective>& slot = forming_[seq];
  if (slot == nullptr) {
    slot = NewCollective(request, seq, rank, size(), algorithm_->TasksPerBucket(size()));
  } else if (!SameCollective(slot->request, request)) {
    Poison(InvalidArgument(algorithm_->name(), ": collective #", seq,
                           " differs between replicas: replica ", slot->first_rank, " called ",
                           Describe(slot->request), ", replica ", rank, " called ",
                           Describe(request)));
    return poison_;
  }
  std::shared_ptr<Collective> c = slot;
  c->joined[rank] = true;
  c->rank_specs[rank] = std::move(request.specs);
  c->outputs[rank] = std::move(outputs);
  if (++c->num_joined == size()) forming_.erase(seq);
  cv_.SignalAll();
  return c;
}

absl::Status Group::Put(Collective& c, int rank, int index, const Tensor& value) {
  TFD_RETURN_IF_ERROR(algorithm_->CheckInput(value));
  absl::MutexLock lock(&mu_);
  if (!poison_.ok()) return poison_;
  const std::vector<TensorSpec>& specs = c.rank_specs[rank];
  if (index < 0 || index >= static_cast<int>(specs.size())) {
    return InvalidArgument(algorithm_->name(), ": ", c.what, " has ", specs.size(),
                           " input(s); replica ", rank, " handed in input ", index);
  }
  if (c.inputs[rank][index].defined()) {
    return InvalidArgument(algorithm_->name(), ": ", c.what, ": replica ", rank,
                           " handed in input ", index, " twice");
  }
  if (value.dtype() != specs[index].dtype || value.shape() != specs[index].shape) {
    return InvalidArgument(algorithm_->name(), ": ", c.what, ": input ", index, " of replica ",
                           rank, " was declared ", TensorSpecString(specs[index]), ", got ",
                           TensorSpecString({value.dtype(), value.shape()}));
  }
  c.inputs[rank][index] = value;
  --c.inputs_missing[rank];
  --c.total_missing;
  InputArrived(c, index);
  cv_.SignalAll();
  // Note [Cooperative progress]: start this rank's share right away.
  while (RunReadyTask(c, rank, /*own_only=*/true)) {
  }
  return poison_;
}

absl::StatusOr<std::vector<Tensor>> Group::Wait(Collective& c, int rank, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::MutexLock lock(&mu_);
  while (!c.Complete()) {
    if (!poison_.ok()) return poison_;
    if (RunReadyTask(c, rank, /*own_only=*/false)) continue;
    if (cv_.WaitWithDeadline(&mu_, deadline) && absl::Now() >= deadline && !c.Complete() &&
        poison_.ok()) {
      Poison(absl::DeadlineExceededError(absl::StrCat(
          algorithm_->name(), ": ", c.what, " timed out after ", absl::FormatDuration(timeout),
          " on replica ", rank, " waiting for ", DescribeMissing(c))));
    }
  }
  return c.outputs[rank];
}

void Group::Abort(int rank, const absl::Status& cause) {
  absl::MutexLock lock(&mu_);
  Poison(absl::AbortedError(absl::StrCat(algorithm_->name(), ": replica ", rank,
                                         " failed: ", cause.ok() ? "aborted" : cause.ToString())));
}

bool Group::RunReadyTask(Collective& c, int rank, bool own_only) {
  if (!poison_.ok()) return false;
  const int n = size();
  int bucket = -1, task = -1;
  // This rank's own offers first, then (unless own_only) the others'.
  for (int i = 0; i < (own_only ? 1 : n) && bucket < 0; ++i) {
    std::deque<std::pair<int, int>>& queue = c.offered[(rank + i) % n];
    while (!queue.empty() && bucket < 0) {
      const auto [b, t] = queue.front();
      queue.pop_front();
      if (c.tasks[b][t] == TaskState::kPending) {
        bucket = b;
        task = t;
      }
    }
  }
  if (bucket < 0) return false;
  c.tasks[bucket][task] = TaskState::kRunning;
  c.task_runner[bucket][task] = rank;
  mu_.Unlock();
  absl::Status status = RunTask(c, bucket, task, rank);
  mu_.Lock();
  if (!status.ok()) {
    Poison(std::move(status));
    return true;  // Work was done (and failed): callers look at poison_ next.
  }
  c.tasks[bucket][task] = TaskState::kDone;
  if (--c.bucket_tasks_left[bucket] == 0) --c.buckets_left;
  cv_.SignalAll();
  return true;
}

absl::Status Group::RunTask(Collective& c, int bucket, int task, int rank) {
  switch (c.request.kind) {
    case Kind::kAllReduce: {
      AllReduceWork work;
      work.op = c.request.op;
      work.bucket = &c.buckets[bucket];
      work.bucket_index = bucket;
      work.task = task;
      work.num_tasks = c.tasks_per_bucket;
      work.inputs = &c.inputs;
      work.outputs = &c.outputs;
      work.worker = devices_[rank];
      return algorithm_->Run(work);
    }
    case Kind::kAllGather:
      return Gather(c, task);
    case Kind::kBroadcast: {
      // Task t fills rank t's output.
      const Tensor& from = c.inputs[c.request.root][0];
      return CopyBytes(from, 0, c.outputs[task][0], 0, from.TotalBytes());
    }
  }
  return Internal("unknown collective kind");
}

// Builds rank `rank`'s all-gather output: every rank's input, in rank order,
// along dimension 0.
absl::Status Group::Gather(Collective& c, int rank) {
  TensorShape shape = c.rank_specs[0][0].shape;
  int64_t rows = 0;
  for (int r = 0; r < size(); ++r) rows += c.rank_specs[r][0].shape.dim(0);
  shape.set_dim(0, rows);
  TFD_ASSIGN_OR_RETURN(Tensor out,
                       Tensor::Allocate(c.request.specs[0].dtype, shape, devices_[rank]));
  size_t offset = 0;
  for (int r = 0; r < size(); ++r) {
    const Tensor& in = c.inputs[r][0];
    TFD_RETURN_IF_ERROR(CopyBytes(in, 0, out, offset, in.TotalBytes()));
    offset += in.TotalBytes();
  }
  c.outputs[rank][0] = std::move(out);
  return absl::OkStatus();
}

// One rank's endpoint: numbers its calls and turns them into requests.
class GroupCommunicator : public Communicator {
 public:
  GroupCommunicator(std::shared_ptr<Group> group, int rank)
      : Communicator(rank, group->size(), group->device(rank)), group_(std::move(group)) {}

  std::string implementation() const override { return group_->algorithm().name(); }

  absl::StatusOr<std::unique_ptr<PendingAllReduce>> StartAllReduce(
      std::vector<TensorSpec> specs, const AllReduceOptions& options) override;
  absl::StatusOr<std::unique_ptr<CollectiveHandle>> AllGather(
      const Tensor& value, const AllGatherOptions& options) override;
  absl::StatusOr<std::unique_ptr<CollectiveHandle>> Broadcast(
      const Tensor& value, const BroadcastOptions& options) override;
  void Abort(const absl::Status& cause) override { group_->Abort(rank(), cause); }

 private:
  // A handle on one joined collective.
  class Handle : public PendingAllReduce {
   public:
    Handle(std::shared_ptr<Group> group, std::shared_ptr<Collective> c, int rank,
           absl::Duration timeout)
        : group_(std::move(group)), c_(std::move(c)), rank_(rank), timeout_(timeout) {}
    absl::Status Put(int index, const Tensor& value) override {
      absl::Status s = group_->Put(*c_, rank_, index, value);
      // A bad input leaves the collective unfinishable: fail the group now
      // rather than let the other replicas time out.
      if (!s.ok()) group_->Abort(rank_, s);
      return s;
    }
    absl::StatusOr<std::vector<Tensor>> Wait() override {
      if (waited_) return FailedPrecondition(c_->what, ": Wait() called twice");
      waited_ = true;
      return group_->Wait(*c_, rank_, timeout_);
    }

   private:
    const std::shared_ptr<Group> group_;
    const std::shared_ptr<Collective> c_;
    const int rank_;
    const absl::Duration timeout_;
    bool waited_ = false;
  };

  // Validates the call's options and tensors; an invalid call also fails
  // the group, since the replicas' sequences of collectives now differ.
  absl::Status Check(const CommunicationOptions& options, const std::vector<TensorSpec>& specs,
                     Kind kind);
  absl::StatusOr<std::unique_ptr<Handle>> Join(Request request, std::vector<Tensor> outputs,
                                               absl::Duration timeout);
  absl::Status Fail(absl::Status s) {
    group_->Abort(rank(), s);
    return s;
  }

  const std::shared_ptr<Group> group_;
  int64_t next_seq_ = 0;
};

absl::Status GroupCommunicator::Check(const CommunicationOptions& options,
                                      const std::vector<TensorSpec>& specs, Kind kind) {
  const std::string prefix =
      absl::StrCat(implementation(), ": ", KindName(kind), " on replica ", rank(), ": ");
  if (options.bytes_per_pack < 0) {
    return Fail(
        InvalidArgument(prefix, "bytes_per_pack must be >= 0, got ", options.bytes_per_pack));
  }
  if (options.timeout <= absl::ZeroDuration()) {
    return Fail(InvalidArgument(prefix, "the timeout must be positive, got ",
                                absl::FormatDuration(options.timeout)));
  }
  for (size_t i = 0; i < specs.size(); ++i) {
    const TensorSpec& s = specs[i];
    absl::Status dtype_ok =
        kind == Kind::kAllReduce ? group_->algorithm().CheckDtype(s.dtype)
        : DataTypeSize(s.dtype) > 0
            ? absl::OkStatus()
            : InvalidArgument("dtype ", DataTypeName(s.dtype), " is not supported");
    if (!dtype_ok.ok()) {
      return Fail(InvalidArgument(prefix, "input ", i, " (", TensorSpecString(s),
                                  "): ", dtype_ok.message()));
    }
    if (kind == Kind::kAllGather && s.shape.rank() == 0) {
      return Fail(InvalidArgument(prefix,
                                  "needs a tensor of rank >= 1 to concatenate along "
                                  "dimension 0, got ",
                                  TensorSpecString(s)));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<GroupCommunicator::Handle>> GroupCommunicator::Join(
    Request request, std::vector<Tensor> outputs, absl::Duration timeout) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Collective> c,
                       group_->Join(rank(), next_seq_++, std::move(request), std::move(outputs)));
  return std::make_unique<Handle>(group_, std::move(c), rank(), timeout);
}

absl::StatusOr<std::unique_ptr<PendingAllReduce>> GroupCommunicator::StartAllReduce(
    std::vector<TensorSpec> specs, const AllReduceOptions& options) {
  TFD_RETURN_IF_ERROR(Check(options.communication, specs, Kind::kAllReduce));
  std::vector<Tensor> outputs;
  for (const TensorSpec& s : specs) {
    absl::StatusOr<Tensor> out = Tensor::Allocate(s.dtype, s.shape, device());
    if (!out.ok()) return Fail(out.status());
    outputs.push_back(*std::move(out));
  }
  Request request;
  request.kind = Kind::kAllReduce;
  request.specs = std::move(specs);
  request.op = options.op;
  request.bytes_per_pack = options.communication.bytes_per_pack > 0
                               ? options.communication.bytes_per_pack
                               : kDefaultBytesPerPack;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<Handle> handle,
                       Join(std::move(request), std::move(outputs), options.communication.timeout));
  return std::unique_ptr<PendingAllReduce>(std::move(handle));
}

absl::StatusOr<std::unique_ptr<CollectiveHandle>> GroupCommunicator::AllGather(
    const Tensor& value, const AllGatherOptions& options) {
  if (!value.defined())
    return Fail(InvalidArgument(implementation(), ": AllGather on replica ", rank(),
                                ": the value is undefined"));
  std::vector<TensorSpec> specs = {{value.dtype(), value.shape()}};
  TFD_RETURN_IF_ERROR(Check(options.communication, specs, Kind::kAllGather));
  Request request;
  request.kind = Kind::kAllGather;
  request.specs = std::move(specs);
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<Handle> handle,
                       Join(std::move(request), {Tensor()}, options.communication.timeout));
  TFD_RETURN_IF_ERROR(handle->Put(0, value));
  return std::unique_ptr<CollectiveHandle>(std::move(handle));
}

absl::StatusOr<std::unique_ptr<CollectiveHandle>> GroupCommunicator::Broadcast(
    const Tensor& value, const BroadcastOptions& options) {
  if (!value.defined())
    return Fail(InvalidArgument(implementation(), ": Broadcast on replica ", rank(),
                                ": the value is undefined"));
  if (options.root < 0 || options.root >= group_size()) {
    return Fail(InvalidArgument(implementation(), ": Broadcast root ", options.root,
                                " is not a replica of a group of ", group_size()));
  }
  std::vector<TensorSpec> specs = {{value.dtype(), value.shape()}};
  TFD_RETURN_IF_ERROR(Check(options.communication, specs, Kind::kBroadcast));
  absl::StatusOr<Tensor> out = Tensor::Allocate(value.dtype(), value.shape(), device());
  if (!out.ok()) return Fail(out.status());
  Request request;
  request.kind = Kind::kBroadcast;
  request.specs = std::move(specs);
  request.root = options.root;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<Handle> handle,
                       Join(std::move(request), {*std::move(out)}, options.communication.timeout));
  TFD_RETURN_IF_ERROR(handle->Put(0, value));
  return std::unique_ptr<CollectiveHandle>(std::move(handle));
}

bool InHostMemory(const Tensor& t) { return t.device() == nullptr || t.device()->host_memory(); }

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> CreateCommunicatorGroup(
    std::shared_ptr<const AllReduceAlgorithm> algorithm, const std::vector<Device*>& devices) {
  if (devices.empty()) {
    return InvalidArgument(algorithm->name(), ": a group needs at least one device");
  }
  for (Device* d : devices) {
    if (d == nullptr) return InvalidArgument(algorithm->name(), ": a device is null");
  }
  TFD_RETURN_IF_ERROR(algorithm->CheckDevices(devices));
  auto group = std::make_shared<Group>(std::move(algorithm), devices);
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int r = 0; r < group->size(); ++r) {
    comms.push_back(std::make_unique<GroupCommunicator>(group, r));
  }
  return comms;
}

absl::Status CopyBytes(const Tensor& src, size_t src_offset, const Tensor& dst, size_t dst_offset,
                       size_t n) {
  if (n == 0) return absl::OkStatus();
  TFD_DEVICE_COPY_SCOPE();  // Pointers for Device::Copy* (Note [Device reads]).
  const char* from = static_cast<const char*>(src.raw_data()) + src_offset;
  char* to = static_cast<char*>(dst.raw_data()) + dst_offset;
  const bool src_host = InHostMemory(src);
  const bool dst_host = InHostMemory(dst);
  if (src_host && dst_host) {
    std::memcpy(to, from, n);
    return absl::OkStatus();
  }
  if (src_host) return dst.device()->CopyHostToDevice(from, to, n);
  if (dst_host) return src.device()->CopyDeviceToHost(from, to, n);
  if (src.device() == dst.device()) return dst.device()->CopyDeviceToDevice(from, to, n);
  std::vector<char> staging(n);
  TFD_RETURN_IF_ERROR(src.device()->CopyDeviceToHost(from, staging.data(), n));
  return dst.device()->CopyHostToDevice(staging.data(), to, n);
}

absl::StatusOr<Tensor> SegmentView(const Tensor& t, const BucketSegment& s) {
  TFD_ASSIGN_OR_RETURN(Tensor flat, t.Reshaped(TensorShape({t.NumElements()})));
  return flat.Slice(s.offset, s.offset + s.count);
}

absl::StatusOr<Tensor> DivideByCount(const Tensor& sum, int n, Device* device) {
  TFD_ASSIGN_OR_RETURN(Tensor count, Execute1("Cast", {Tensor::Scalar<int32_t>(n)},
                                              AttrMap().Set("DstT", sum.dtype()), HostDevice()));
  return Execute1("RealDiv", {sum, count}, AttrMap(), device);
}

}  // namespace internal
}  // namespace distribute
}  // namespace tfd
