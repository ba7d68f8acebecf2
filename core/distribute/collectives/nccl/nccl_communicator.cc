#include "core/distribute/collectives/nccl/nccl_communicator.h"

#include <algorithm>
#include <cstring>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/device/cuda/cuda_status.h"
#include "core/distribute/collectives/bucketing.h"
#include "core/distribute/collectives/nccl/nccl_backend.h"
#include "core/distribute/collectives/nccl/nccl_group.h"
#include "core/distribute/collectives/nccl/nccl_version.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace {

using nccl_internal::kName;
using nccl_internal::LocalRank;
using nccl_internal::NcclGroup;

// The shape every rank's all-gather input must share past dimension 0,
// exchanged as a fixed header of int64: dtype, rank, then the dims.
constexpr int kMaxGatherRank = 8;
constexpr int kGatherHeader = 2 + kMaxGatherRank;

char* Bytes(const Tensor& t) { return static_cast<char*>(t.raw_data()); }

// Collectives hold every tensor they touch until Finish has ordered the
// compute stream after them (Note [Streams and events]); a handle that is
// dropped unwaited still finishes them.
class NcclHandle : public PendingAllReduce {
 public:
  NcclHandle(std::shared_ptr<NcclGroup> group, LocalRank* self, std::string what,
             absl::Duration timeout)
      : group_(std::move(group)),
        self_(self),
        what_(std::move(what)),
        timeout_(timeout),
        deadline_(absl::Now() + timeout) {}
  ~NcclHandle() override {
    if (!waited_ && launched_) group_->Finish(*self_, what_, deadline_, timeout_).IgnoreError();
  }

  absl::Status Put(int index, const Tensor&) override {
    return Fail(
        InvalidArgument(kName, ": ", what_, " takes no inputs after it starts; got input ", index));
  }
  absl::StatusOr<std::vector<Tensor>> Wait() override {
    if (waited_) return FailedPrecondition(kName, ": ", what_, ": Wait() called twice");
    waited_ = true;
    TFD_RETURN_IF_ERROR(BeforeWait());
    if (launched_) TFD_RETURN_IF_ERROR(group_->Finish(*self_, what_, deadline_, timeout_));
    // Nothing launched (no elements) still fails in a failed group.
    TFD_RETURN_IF_ERROR(group_->poison());
    kept_.clear();
    return results_;
  }

  // Holds `t` until the collective is done.
  void Keep(Tensor t) { kept_.push_back(std::move(t)); }
  void set_results(std::vector<Tensor> results) { results_ = std::move(results); }
  void set_launched() { launched_ = true; }
  absl::Time deadline() const { return deadline_; }
  const std::string& what() const { return what_; }
  absl::Status Fail(absl::Status s) { return group_->Fail(std::move(s)); }

 protected:
  // Checks that must pass before waiting (all-reduce: every input in).
  virtual absl::Status BeforeWait() { return absl::OkStatus(); }

  const std::shared_ptr<NcclGroup> group_;
  LocalRank* const self_;
  std::vector<Tensor> results_;

 private:
  const std::string what_;
  const absl::Duration timeout_;
  const absl::Time deadline_;
  std::vector<Tensor> kept_;
  bool launched_ = false;
  bool waited_ = false;
};

// Note [Bucket order] in the header.
class NcclAllReduce : public NcclHandle {
 public:
  NcclAllReduce(std::shared_ptr<NcclGroup> group, LocalRank* self, std::string what,
                absl::Duration timeout, std::vector<TensorSpec> specs, std::vector<Bucket> buckets,
                ncclRedOp_t op)
      : NcclHandle(std::move(group), self, std::move(what), timeout),
        specs_(std::move(specs)),
        buckets_(std::move(buckets)),
        op_(op),
        inputs_(specs_.size()),
        bucket_missing_(buckets_.size(), 0),
        tensor_buckets_(specs_.size()) {
    for (size_t b = 0; b < buckets_.size(); ++b) {
      for (int t : buckets_[b].tensors) {
        tensor_buckets_[t].push_back(static_cast<int>(b));
        ++bucket_missing_[b];
      }
    }
  }

  absl::Status Allocate() {
    std::vector<Tensor> outputs;
    for (const TensorSpec& s : specs_) {
      absl::StatusOr<Tensor> out = Tensor::Allocate(s.dtype, s.shape, self_->gpu);
      if (!out.ok()) return Fail(out.status());
      outputs.push_back(*std::move(out));
    }
    set_results(std::move(outputs));
    return absl::OkStatus();
  }

  absl::Status Put(int index, const Tensor& value) override {
    TFD_RETURN_IF_ERROR(group_->poison());
    if (index < 0 || index >= static_cast<int>(specs_.size())) {
      return Fail(InvalidArgument(kName, ": ", what(), " has ", specs_.size(), " input(s); rank ",
                                  self_->rank, " handed in input ", index));
    }
    if (inputs_[index].defined()) {
      return Fail(InvalidArgument(kName, ": ", what(), ": rank ", self_->rank, " handed in input ",
                                  index, " twice"));
    }
    if (!value.defined() || value.dtype() != specs_[index].dtype ||
        value.shape() != specs_[index].shape) {
      return Fail(InvalidArgument(
          kName, ": ", what(), ": input ", index, " of rank ", self_->rank, " was declared ",
          TensorSpecString(specs_[index]), ", got ",
          value.defined() ? TensorSpecString({value.dtype(), value.shape()}) : "undefined"));
    }
    Tensor on_device = value;
    if (value.device() != self_->gpu) {
      absl::StatusOr<Tensor> copied = value.CopyTo(self_->gpu);
      if (!copied.ok()) return Fail(copied.status());
      on_device = *std::move(copied);
    }
    inputs_[index] = on_device;
    for (int b : tensor_buckets_[index]) --bucket_missing_[b];
    while (next_bucket_ < buckets_.size() && bucket_missing_[next_bucket_] == 0) {
      TFD_RETURN_IF_ERROR(Launch(buckets_[next_bucket_++]));
    }
    return absl::OkStatus();
  }

 private:
  absl::Status BeforeWait() override {
    std::string missing;
    for (size_t i = 0; i < inputs_.size(); ++i) {
      if (!inputs_[i].defined()) absl::StrAppend(&missing, missing.empty() ? "" : ", ", i);
    }
    if (missing.empty()) return absl::OkStatus();
    // No other thread can hand them in: fail now instead of timing out.
    return Fail(
        absl::DeadlineExceededError(absl::StrCat(kName, ": ", what(), ": rank ", self_->rank,
                                                 " waits without handing in input(s) ", missing)));
  }

  // Reduces one bucket on the NCCL stream (Note [Bucket order]).
  absl::Status Launch(const Bucket& bucket) {
    TFD_ASSIGN_OR_RETURN(ncclDataType_t type, nccl_internal::NcclReduceType(bucket.dtype));
    const size_t element = DataTypeSize(bucket.dtype);
    // One segment is contiguous in both its input and its output: reduced
    // in place of the output, with no staging copies.
    const bool contiguous = bucket.segments.size() == 1;
    Tensor staging;
    if (!contiguous) {
      absl::StatusOr<Tensor> buffer =
          Tensor::Allocate(bucket.dtype, TensorShape({bucket.num_elements}), self_->gpu);
      if (!buffer.ok()) return Fail(buffer.status());
      staging = *std::move(buffer);
      Keep(staging);
    }
    // After the allocations, so that their memory's earlier users are done.
    absl::Status s = group_->OrderAfterCompute(*self_);
    if (!s.ok()) return Fail(s);
    set_launched();
    auto all_reduce = [&](const char* in, char* out) {
      return group_->Enqueue(*self_, "ncclAllReduce", deadline(), [&](ncclComm_t comm) {
        return ncclAllReduce(in, out, bucket.num_elements, type, op_, comm, self_->stream);
      });
    };
    if (contiguous) {
      const BucketSegment& seg = bucket.segments.front();
      const size_t offset = seg.offset * element;
      return all_reduce(Bytes(inputs_[seg.tensor]) + offset, Bytes(results_[seg.tensor]) + offset);
    }
    size_t offset = 0;
    for (const BucketSegment& seg : bucket.segments) {
      TFD_RETURN_IF_ERROR(Copy(Bytes(staging) + offset,
                               Bytes(inputs_[seg.tensor]) + seg.offset * element,
                               seg.count * element));
      offset += seg.count * element;
    }
    TFD_RETURN_IF_ERROR(all_reduce(Bytes(staging), Bytes(staging)));
    offset = 0;
    for (const BucketSegment& seg : bucket.segments) {
      TFD_RETURN_IF_ERROR(Copy(Bytes(results_[seg.tensor]) + seg.offset * element,
                               Bytes(staging) + offset, seg.count * element));
      offset += seg.count * element;
    }
    return absl::OkStatus();
  }

  absl::Status Copy(char* dst, const char* src, size_t n) {
    absl::Status s =
        TFD_CUDA_STATUS(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToDevice, self_->stream));
    return s.ok() ? s : Fail(s);
  }

  const std::vector<TensorSpec> specs_;
  const std::vector<Bucket> buckets_;
  const ncclRedOp_t op_;
  std::vector<Tensor> inputs_;
  std::vector<int> bucket_missing_;               // Inputs of each bucket not in yet.
  std::vector<std::vector<int>> tensor_buckets_;  // Input -> buckets it touches.
  size_t next_bucket_ = 0;
};

class NcclCommunicator : public Communicator {
 public:
  NcclCommunicator(std::shared_ptr<NcclGroup> group, int local)
      : Communicator(group->local(local).rank, group->size(), group->local(local).gpu),
        group_(std::move(group)),
        self_(&group_->local(local)) {}

  std::string implementation() const override { return kName; }

  absl::StatusOr<std::unique_ptr<PendingAllReduce>> StartAllReduce(
      std::vector<TensorSpec> specs, const AllReduceOptions& options) override {
    const std::string what = absl::StrCat("AllReduce #", next_seq_++);
    TFD_RETURN_IF_ERROR(Check(what, options.communication));
    for (size_t i = 0; i < specs.size(); ++i) {
      absl::Status ok = nccl_internal::NcclReduceType(specs[i].dtype).status();
      if (!ok.ok()) {
        return Fail(InvalidArgument(kName, ": ", what, " on rank ", rank(), ": input ", i, " (",
                                    TensorSpecString(specs[i]), "): ", ok.message()));
      }
    }
    std::vector<Bucket> buckets = MakeBuckets(specs, options.communication.bytes_per_pack);
    auto handle = std::make_unique<NcclAllReduce>(
        group_, self_, what, options.communication.timeout, std::move(specs), std::move(buckets),
        options.op == ReduceOp::kMean ? ncclAvg : ncclSum);
    TFD_RETURN_IF_ERROR(handle->Allocate());
    return std::unique_ptr<PendingAllReduce>(std::move(handle));
  }

  absl::StatusOr<std::unique_ptr<CollectiveHandle>> AllGather(
      const Tensor& value, const AllGatherOptions& options) override;

  absl::StatusOr<std::unique_ptr<CollectiveHandle>> Broadcast(
      const Tensor& value, const BroadcastOptions& options) override {
    const std::string what = absl::StrCat("Broadcast #", next_seq_++);
    TFD_RETURN_IF_ERROR(Check(what, options.communication));
    if (options.root < 0 || options.root >= group_size()) {
      return Fail(InvalidArgument(kName, ": ", what, " root ", options.root,
                                  " is not a rank of a group of ", group_size()));
    }
    TFD_ASSIGN_OR_RETURN(Tensor in, OnDevice(what, value));
    auto handle = std::make_unique<NcclHandle>(group_, self_, what, options.communication.timeout);
    absl::StatusOr<Tensor> out = Tensor::Allocate(in.dtype(), in.shape(), device());
    if (!out.ok()) return Fail(out.status());
    TFD_RETURN_IF_ERROR(Launch(*handle));
    TFD_RETURN_IF_ERROR(group_->Enqueue(
        *self_, "ncclBroadcast", handle->deadline(), [&](ncclComm_t comm) {
          return ncclBroadcast(Bytes(in), Bytes(*out), in.TotalBytes(), ncclUint8, options.root,
                               comm, self_->stream);
        }));
    handle->Keep(in);
    handle->set_results({*std::move(out)});
    return std::unique_ptr<CollectiveHandle>(std::move(handle));
  }

  // Blocks until this rank's collectives are done on the device.
  absl::Status Synchronize(absl::Duration timeout) override {
    return group_->Synchronize(*self_, absl::Now() + timeout);
  }

  void Abort(const absl::Status& cause) override {
    group_
        ->Fail(absl::AbortedError(absl::StrCat(kName, ": rank ", rank(), " failed: ",
                                               cause.ok() ? "aborted" : cause.ToString())))
        .IgnoreError();
  }

 private:
  absl::Status Fail(absl::Status s) { return group_->Fail(std::move(s)); }

  // A call that is invalid on its own also ends the group: the ranks'
  // sequences of collectives no longer line up.
  absl::Status Check(const std::string& what, const CommunicationOptions& options) {
    TFD_RETURN_IF_ERROR(group_->poison());
    if (options.bytes_per_pack < 0) {
      return Fail(InvalidArgument(kName, ": ", what, ": bytes_per_pack must be >= 0, got ",
                                  options.bytes_per_pack));
    }
    if (options.timeout <= absl::ZeroDuration()) {
      return Fail(InvalidArgument(kName, ": ", what, ": the timeout must be positive, got ",
                                  absl::FormatDuration(options.timeout)));
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Tensor> OnDevice(const std::string& what, const Tensor& value) {
    if (!value.defined() || DataTypeSize(value.dtype()) == 0) {
      return Fail(InvalidArgument(
          kName, ": ", what, " on rank ", rank(), ": ",
          value.defined() ? absl::StrCat("dtype ", DataTypeName(value.dtype()), " is not supported")
                          : std::string("the value is undefined")));
    }
    if (value.device() == device()) return value;
    absl::StatusOr<Tensor> copied = value.CopyTo(device());
    if (!copied.ok()) return Fail(copied.status());
    return copied;
  }

  // Orders the NCCL stream after the compute stream for `handle`'s work.
  absl::Status Launch(NcclHandle& handle) {
    absl::Status s = group_->OrderAfterCompute(*self_);
    if (!s.ok()) return Fail(s);
    handle.set_launched();
    return absl::OkStatus();
  }

  const std::shared_ptr<NcclGroup> group_;
  LocalRank* const self_;
  int64_t next_seq_ = 0;
};

// The release whose ncclConfig_t layout NCCL_CONFIG_INITIALIZER fills:
// nccl.h versions the struct by minor release (ncclConfig_v22800 in 2.28).
constexpr int kNcclConfigVersion = NCCL_VERSION(NCCL_MAJOR, NCCL_MINOR, 0);

// The library loaded at run time may be older than the headers (Note in
// nccl_version.h): refuse one that cannot read the config we fill.
absl::Status CheckLoadedNcclReadsOurConfig() {
  int loaded = 0;
  TFD_RETURN_IF_ERROR(TFD_NCCL_STATUS(ncclGetVersion(&loaded)));
  return CheckNcclLibraryVersion(loaded, kNcclConfigVersion, NCCL_VERSION_CODE);
}

// Ranks may differ in dimension 0 only: first every rank's header (dtype,
// rank, dims) is gathered, checked and turned into row offsets; then each
// rank broadcasts its rows into every rank's output at its offset.
absl::StatusOr<std::unique_ptr<CollectiveHandle>> NcclCommunicator::AllGather(
    const Tensor& value, const AllGatherOptions& options) {
  const std::string what = absl::StrCat("AllGather #", next_seq_++);
  TFD_RETURN_IF_ERROR(Check(what, options.communication));
  TFD_ASSIGN_OR_RETURN(Tensor in, OnDevice(what, value));
  const int dims = in.shape().rank();
  if (dims < 1 || dims > kMaxGatherRank) {
    return Fail(InvalidArgument(kName, ": ", what, " on rank ", rank(),
                                ": needs a tensor of rank 1 to ", kMaxGatherRank, ", got ",
                                TensorSpecString({in.dtype(), in.shape()})));
  }
  const absl::Duration timeout = options.communication.timeout;
  // 1. The headers.
  TFD_ASSIGN_OR_RETURN(Tensor header, Tensor::Allocate(DT_INT64, TensorShape({kGatherHeader})));
  int64_t* h = header.data<int64_t>();
  std::fill_n(h, kGatherHeader, 0);
  h[0] = in.dtype();
  h[1] = dims;
  for (int d = 0; d < dims; ++d) h[2 + d] = in.shape().dim(d);
  absl::StatusOr<Tensor> header_on_gpu = header.CopyTo(device());
  absl::StatusOr<Tensor> headers =
      Tensor::Allocate(DT_INT64, TensorShape({group_size() * kGatherHeader}), device());
  if (!header_on_gpu.ok()) return Fail(header_on_gpu.status());
  if (!headers.ok()) return Fail(headers.status());
  {
    NcclHandle exchange(group_, self_, what + " (shapes)", timeout);
    TFD_RETURN_IF_ERROR(Launch(exchange));
    TFD_RETURN_IF_ERROR(group_->Enqueue(
        *self_, "ncclAllGather", exchange.deadline(), [&](ncclComm_t comm) {
          return ncclAllGather(Bytes(*header_on_gpu), Bytes(*headers), kGatherHeader, ncclInt64,
                               comm, self_->stream);
        }));
    exchange.Keep(*header_on_gpu);
    exchange.Keep(*headers);
    TFD_RETURN_IF_ERROR(exchange.Wait().status());
    // The headers are read on the host: wait until the device is done
    // (or the group failed, and the headers are not real).
    absl::Status synced = group_->Synchronize(*self_, exchange.deadline());
    if (!synced.ok()) return Fail(synced);
  }
  absl::StatusOr<Tensor> all = headers->CopyTo(HostDevice());
  if (!all.ok()) return Fail(all.status());
  std::vector<int64_t> rows(group_size());
  int64_t total_rows = 0;
  for (int r = 0; r < group_size(); ++r) {
    const int64_t* theirs = all->data<int64_t>() + r * kGatherHeader;
    bool same = theirs[0] == h[0] && theirs[1] == h[1];
    for (int d = 1; same && d < dims; ++d) same = theirs[2 + d] == h[2 + d];
    if (!same) {
      return Fail(InvalidArgument(kName, ": ", what, ": ranks ", rank(), " and ", r,
                                  " gather tensors that differ in dtype or past dimension 0 (rank ",
                                  rank(), ": ", TensorSpecString({in.dtype(), in.shape()}), ")"));
    }
    rows[r] = theirs[2];
    total_rows += rows[r];
  }
  // 2. The rows.
  TensorShape shape = in.shape();
  shape.set_dim(0, total_rows);
  absl::StatusOr<Tensor> out = Tensor::Allocate(in.dtype(), shape, device());
  if (!out.ok()) return Fail(out.status());
  size_t row_size = DataTypeSize(in.dtype());
  for (int d = 1; d < dims; ++d) row_size *= in.shape().dim(d);
  auto handle = std::make_unique<NcclHandle>(group_, self_, what, timeout);
  TFD_RETURN_IF_ERROR(Launch(*handle));
  absl::Status s;
  TFD_RETURN_IF_ERROR(
      group_->Enqueue(*self_, "ncclGroupEnd", handle->deadline(), [&](ncclComm_t comm) {
        s = TFD_NCCL_STATUS(ncclGroupStart());
        size_t offset = 0;
        for (int r = 0; r < group_size() && s.ok(); ++r) {
          char* dst = Bytes(*out) + offset;
          const size_t n = rows[r] * row_size;
          s = TFD_NCCL_STATUS(ncclBroadcast(r == rank() ? Bytes(in) : dst, dst, n, ncclUint8, r,
                                            comm, self_->stream));
          offset += n;
        }
        return ncclGroupEnd();
      }));
  if (!s.ok()) return Fail(s);
  handle->Keep(in);
  handle->set_results({*std::move(out)});
  return std::unique_ptr<CollectiveHandle>(std::move(handle));
}

std::vector<std::unique_ptr<Communicator>> Communicators(std::shared_ptr<NcclGroup> group) {
  std::vector<std::unique_ptr<Communicator>> comms;
  for (int i = 0; i < group->num_local(); ++i) {
    comms.push_back(std::make_unique<NcclCommunicator>(group, i));
  }
  return comms;
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> CreateNcclCommunicators(
    const std::vector<Device*>& devices) {
  if (devices.empty()) return InvalidArgument(kName, ": a group needs at least one GPU");
  std::vector<LocalRank> ranks(devices.size());
  std::vector<int> ordinals;
  for (size_t i = 0; i < devices.size(); ++i) {
    absl::StatusOr<CudaDevice*> gpu = AsCudaDevice(devices[i]);
    if (!gpu.ok()) return InvalidArgument(kName, ": replica ", i, ": ", gpu.status().message());
    for (size_t j = 0; j < i; ++j) {
      if (ranks[j].gpu->ordinal() == (*gpu)->ordinal()) {
        return InvalidArgument(kName, ": ", devices[j]->name(), " and ", devices[i]->name(),
                               " are on the same physical GPU ", (*gpu)->ordinal(),
                               "; NCCL takes one rank per GPU (use ReductionToOneDevice)");
      }
    }
    ranks[i].rank = static_cast<int>(i);
    ranks[i].gpu = *gpu;
    ordinals.push_back((*gpu)->ordinal());
  }
  std::vector<ncclComm_t> comms(devices.size(), nullptr);
  TFD_RETURN_IF_ERROR(TFD_NCCL_STATUS(
      ncclCommInitAll(comms.data(), static_cast<int>(comms.size()), ordinals.data())));
  for (size_t i = 0; i < comms.size(); ++i) ranks[i].comm = comms[i];
  // From here on the group owns the communicators, even if streams fail.
  auto group = std::make_shared<NcclGroup>(static_cast<int>(devices.size()), std::move(ranks));
  for (int i = 0; i < group->num_local(); ++i) {
    LocalRank& r = group->local(i);
    TFD_RETURN_IF_ERROR(r.gpu->Activate());
    TFD_RETURN_IF_ERROR(
        TFD_CUDA_STATUS(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking)));
  }
  return Communicators(std::move(group));
}

absl::StatusOr<std::string> NewNcclUniqueId() {
  ncclUniqueId id;
  TFD_RETURN_IF_ERROR(TFD_NCCL_STATUS(ncclGetUniqueId(&id)));
  return std::string(id.internal, sizeof(id.internal));
}

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> CreateNcclRankCommunicators(
    int first_rank, int size, const std::vector<Device*>& devices, const std::string& unique_id,
    absl::Duration timeout) {
  const int n = static_cast<int>(devices.size());
  if (n < 1 || first_rank < 0 || first_rank + n > size) {
    return InvalidArgument(kName, ": ranks ", first_rank, "..", first_rank + n - 1,
                           " are not in a group of ", size);
  }
  ncclUniqueId id;
  if (unique_id.size() != sizeof(id.internal)) {
    return InvalidArgument(kName, ": an NCCL unique id has ", sizeof(id.internal), " bytes, got ",
                           unique_id.size());
  }
  if (timeout <= absl::ZeroDuration()) {
    return InvalidArgument(kName, ": the timeout must be positive, got ",
                           absl::FormatDuration(timeout));
  }
  std::memcpy(id.internal, unique_id.data(), sizeof(id.internal));
  TFD_RETURN_IF_ERROR(CheckLoadedNcclReadsOurConfig());
  std::vector<LocalRank> ranks(n);
  for (int i = 0; i < n; ++i) {
    const int rank = first_rank + i;
    absl::StatusOr<CudaDevice*> gpu = AsCudaDevice(devices[i]);
    if (!gpu.ok()) return InvalidArgument(kName, ": rank ", rank, ": ", gpu.status().message());
    for (int j = 0; j < i; ++j) {
      if (ranks[j].gpu->ordinal() == (*gpu)->ordinal()) {
        return InvalidArgument(kName, ": ranks ", ranks[j].rank, " and ", rank,
                               " are on the same physical GPU ", (*gpu)->ordinal(),
                               "; NCCL takes one rank per GPU");
      }
    }
    ranks[i].rank = rank;
    ranks[i].gpu = *gpu;
  }
  // One thread starting several ranks: NCCL wants their initializations in
  // one group call. Non-blocking, so that a peer that never joins is a
  // timeout, not a hang.
  ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
  config.blocking = 0;
  absl::Status started = TFD_NCCL_STATUS(ncclGroupStart());
  for (int i = 0; i < n && started.ok(); ++i) {
    started = ranks[i].gpu->Activate();
    if (!started.ok()) break;
    const ncclResult_t result =
        ncclCommInitRankConfig(&ranks[i].comm, size, id, ranks[i].rank, &config);
    if (result != ncclSuccess && result != ncclInProgress) {
      started = cuda_internal::NcclStatus(result, "ncclCommInitRankConfig", __FILE__, __LINE__);
    }
  }
  const ncclResult_t ended = ncclGroupEnd();
  // From here on the group owns the communicators, even if a start failed.
  auto group = std::make_shared<NcclGroup>(size, std::move(ranks));
  TFD_RETURN_IF_ERROR(started);
  if (ended != ncclSuccess && ended != ncclInProgress) {
    return cuda_internal::NcclStatus(ended, "ncclGroupEnd", __FILE__, __LINE__);
  }
  const absl::Time deadline = absl::Now() + timeout;
  for (int i = 0; i < n; ++i) {
    LocalRank& r = group->local(i);
    // Each communicator reports its own completion once the group is done.
    TFD_RETURN_IF_ERROR(group->Settle(r, ncclInProgress, "ncclCommInitRankConfig", deadline));
    TFD_RETURN_IF_ERROR(r.gpu->Activate());
    TFD_RETURN_IF_ERROR(
        TFD_CUDA_STATUS(cudaStreamCreateWithFlags(&r.stream, cudaStreamNonBlocking)));
  }
  return Communicators(std::move(group));
}

namespace {

int PhysicalGpu(const Device* device) {
  auto* gpu = dynamic_cast<const CudaDevice*>(device);
  return gpu != nullptr ? gpu->ordinal() : -1;
}

}  // namespace

// cross_device_ops.cc and nccl_connect.cc find NCCL through this
// (nccl_backend.h).
const NcclBackendRegistrar kNcclBackend(NcclBackend{
    &PhysicalGpu, &CreateNcclCommunicators, &NewNcclUniqueId, &CreateNcclRankCommunicators});

}  // namespace distribute
}  // namespace tfd
