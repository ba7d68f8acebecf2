#include "core/distribute/collectives/hierarchical_communicator.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace {

using Tensors = std::vector<Tensor>;

// Local replica `local->rank()` of worker `cross->rank()`; see
// Note [Hierarchical collectives].
class HierarchicalCommunicator : public Communicator {
 public:
  HierarchicalCommunicator(std::unique_ptr<Communicator> local, std::shared_ptr<Communicator> cross)
      : Communicator(cross->rank() * local->group_size() + local->rank(),
                     cross->group_size() * local->group_size(), local->device()),
        local_(std::move(local)),
        cross_(std::move(cross)) {}

  std::string implementation() const override {
    return absl::StrCat(local_->implementation(), "+", cross_->implementation());
  }

  absl::StatusOr<std::unique_ptr<PendingAllReduce>> StartAllReduce(
      std::vector<TensorSpec> specs, const AllReduceOptions& options) override;
  absl::StatusOr<std::unique_ptr<CollectiveHandle>> AllGather(
      const Tensor& value, const AllGatherOptions& options) override;
  absl::StatusOr<std::unique_ptr<CollectiveHandle>> Broadcast(
      const Tensor& value, const BroadcastOptions& options) override;

  // The cross-worker collectives run in the leader's Wait(), on the host:
  // only the local group's may still be running on the device.
  absl::Status Synchronize(absl::Duration timeout) override {
    return local_->Synchronize(timeout);
  }

  void Abort(const absl::Status& cause) override {
    local_->Abort(cause);
    cross_->Abort(cause);
  }

 private:
  class PendingHierarchicalAllReduce;

  bool leader() const { return local_->rank() == 0; }
  int local_size() const { return local_->group_size(); }

  // The leader's cross-worker step. Its failure aborts the local group, so
  // that the other local replicas stop waiting for the leader.
  absl::StatusOr<Tensors> CrossWorker(const std::function<absl::StatusOr<Tensors>()>& step) {
    absl::StatusOr<Tensors> result = step();
    if (!result.ok()) local_->Abort(result.status());
    return result;
  }

  // Every local replica gets local replica `root`'s `values` (the others
  // pass tensors of the same dtypes and shapes, whose contents are ignored).
  absl::StatusOr<Tensors> ShareLocally(const Tensors& values, int root,
                                       const CommunicationOptions& communication) {
    BroadcastOptions options;
    options.root = root;
    options.communication = communication;
    std::vector<std::unique_ptr<CollectiveHandle>> handles;
    // Issued together so that the broadcasts' rendezvous overlap.
    for (const Tensor& value : values) {
      TFD_ASSIGN_OR_RETURN(std::unique_ptr<CollectiveHandle> handle,
                           local_->Broadcast(value, options));
      handles.push_back(std::move(handle));
    }
    Tensors shared;
    for (auto& handle : handles) {
      TFD_ASSIGN_OR_RETURN(Tensors out, handle->Wait());
      shared.push_back(std::move(out[0]));
    }
    return shared;
  }

  absl::StatusOr<Tensors> FinishAllGather(Tensor gathered, const AllGatherOptions& options);
  absl::StatusOr<Tensors> FinishBroadcast(Tensor value, CollectiveHandle* from_root_replica,
                                          const BroadcastOptions& options);

  const std::unique_ptr<Communicator> local_;
  const std::shared_ptr<Communicator> cross_;
};

// Consecutive whole tensors of about `bytes_per_pack` bytes each (a
// larger tensor alone): the units in which the local reduction hands its
// results to the cross-worker all-reduce (Note [Pipelined all-reduce]).
std::vector<std::vector<int>> PipelineGroups(const std::vector<TensorSpec>& specs,
                                             int64_t bytes_per_pack) {
  if (bytes_per_pack <= 0) bytes_per_pack = kDefaultBytesPerPack;
  std::vector<std::vector<int>> groups;
  int64_t group_bytes = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    const int64_t bytes = specs[i].shape.num_elements() * DataTypeSize(specs[i].dtype);
    if (groups.empty() || (group_bytes > 0 && group_bytes + bytes > bytes_per_pack)) {
      groups.emplace_back();
      group_bytes = 0;
    }
    groups.back().push_back(static_cast<int>(i));
    group_bytes += bytes;
  }
  return groups;
}

class HierarchicalCommunicator::PendingHierarchicalAllReduce : public PendingAllReduce {
 public:
  PendingHierarchicalAllReduce(HierarchicalCommunicator* comm, std::vector<std::vector<int>> groups,
                               std::vector<std::unique_ptr<PendingAllReduce>> local,
                               std::unique_ptr<PendingAllReduce> cross, AllReduceOptions options)
      : comm_(comm),
        groups_(std::move(groups)),
        local_(std::move(local)),
        cross_(std::move(cross)),
        options_(std::move(options)) {
    for (size_t g = 0; g < groups_.size(); ++g) {
      for (size_t k = 0; k < groups_[g].size(); ++k) {
        place_.push_back({static_cast<int>(g), static_cast<int>(k)});
      }
    }
  }

  absl::Status Put(int index, const Tensor& value) override {
    if (index < 0 || index >= static_cast<int>(place_.size())) {
      absl::Status invalid = InvalidArgument(comm_->implementation(), ": AllReduce input index ",
                                             index, " is out of range [0, ", place_.size(), ")");
      comm_->Abort(invalid);
      return invalid;
    }
    return local_[place_[index].group]->Put(place_[index].position, value);
  }

  absl::StatusOr<Tensors> Wait() override {
    Tensors results(place_.size());
    for (size_t g = 0; g < groups_.size(); ++g) {
      TFD_ASSIGN_OR_RETURN(Tensors reduced, local_[g]->Wait());
      for (size_t k = 0; k < groups_[g].size(); ++k) {
        const int index = groups_[g][k];
        if (cross_ == nullptr) {
          results[index] = std::move(reduced[k]);
        } else if (absl::Status s = cross_->Put(index, reduced[k]); !s.ok()) {
          comm_->local_->Abort(s);  // As CrossWorker: release the other local replicas.
          return s;
        }
      }
    }
    if (cross_ != nullptr) {
      TFD_ASSIGN_OR_RETURN(results, comm_->CrossWorker([&] { return cross_->Wait(); }));
    }
    if (comm_->local_size() == 1) return results;
    return comm_->ShareLocally(results, 0, options_.communication);
  }

 private:
  struct Place {
    int group;
    int position;  // Within the group's local all-reduce.
  };
  HierarchicalCommunicator* const comm_;
  const std::vector<std::vector<int>> groups_;
  std::vector<Place> place_;  // Input index -> where it goes.
  const std::vector<std::unique_ptr<PendingAllReduce>> local_;
  const std::unique_ptr<PendingAllReduce> cross_;  // The leader's only.
  const AllReduceOptions options_;
};

absl::StatusOr<std::unique_ptr<PendingAllReduce>> HierarchicalCommunicator::StartAllReduce(
    std::vector<TensorSpec> specs, const AllReduceOptions& options) {
  std::vector<std::vector<int>> groups =
      PipelineGroups(specs, options.communication.bytes_per_pack);
  std::vector<std::unique_ptr<PendingAllReduce>> local;
  for (const std::vector<int>& group : groups) {
    std::vector<TensorSpec> group_specs;
    for (int index : group) group_specs.push_back(specs[index]);
    TFD_ASSIGN_OR_RETURN(std::unique_ptr<PendingAllReduce> pending,
                         local_->StartAllReduce(std::move(group_specs), options));
    local.push_back(std::move(pending));
  }
  std::unique_ptr<PendingAllReduce> cross;
  if (leader()) {
    absl::StatusOr<std::unique_ptr<PendingAllReduce>> started =
        cross_->StartAllReduce(std::move(specs), options);
    if (!started.ok()) {
      local_->Abort(started.status());
      return started.status();
    }
    cross = *std::move(started);
  }
  return std::unique_ptr<PendingAllReduce>(new PendingHierarchicalAllReduce(
      this, std::move(groups), std::move(local), std::move(cross), options));
}

absl::StatusOr<std::unique_ptr<CollectiveHandle>> HierarchicalCommunicator::AllGather(
    const Tensor& value, const AllGatherOptions& options) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<CollectiveHandle> local, local_->AllGather(value, options));
  return std::unique_ptr<CollectiveHandle>(
      new DeferredCollectiveHandle([this, local, options]() -> absl::StatusOr<Tensors> {
        TFD_ASSIGN_OR_RETURN(Tensors gathered, local->Wait());
        return FinishAllGather(std::move(gathered[0]), options);
      }));
}

absl::StatusOr<Tensors> HierarchicalCommunicator::FinishAllGather(Tensor gathered,
                                                                  const AllGatherOptions& options) {
  if (leader()) {
    TFD_ASSIGN_OR_RETURN(Tensors all, CrossWorker([&]() -> absl::StatusOr<Tensors> {
                           TFD_ASSIGN_OR_RETURN(std::unique_ptr<CollectiveHandle> handle,
                                                cross_->AllGather(gathered, options));
                           return handle->Wait();
                         }));
    gathered = std::move(all[0]);
  }
  if (local_size() == 1) return Tensors{gathered};
  // Only the leader knows how many rows the other workers had.
  Tensor rows(DT_INT64, TensorShape({1}));
  rows.data<int64_t>()[0] = gathered.dim(0);
  TFD_ASSIGN_OR_RETURN(Tensors shared_rows, ShareLocally({rows}, 0, options.communication));
  if (!leader()) {
    TensorShape shape = gathered.shape();
    shape.set_dim(0, shared_rows[0].data<int64_t>()[0]);
    TFD_ASSIGN_OR_RETURN(gathered, Tensor::Allocate(gathered.dtype(), shape, device()));
  }
  return ShareLocally({gathered}, 0, options.communication);
}

absl::StatusOr<std::unique_ptr<CollectiveHandle>> HierarchicalCommunicator::Broadcast(
    const Tensor& value, const BroadcastOptions& options) {
  if (options.root < 0 || options.root >= group_size()) {
    absl::Status invalid = InvalidArgument(implementation(), ": Broadcast root ", options.root,
                                           " is not a replica of a group of ", group_size());
    // The replicas' sequences of collectives no longer line up.
    Abort(invalid);
    return invalid;
  }
  // On the root's worker, a root other than the leader first hands the
  // value to every local replica (the leader among them).
  std::shared_ptr<CollectiveHandle> from_root_replica;
  const int root_local = options.root % local_size();
  if (cross_->rank() == options.root / local_size() && root_local != 0) {
    BroadcastOptions local_options = options;
    local_options.root = root_local;
    TFD_ASSIGN_OR_RETURN(from_root_replica, local_->Broadcast(value, local_options));
  }
  return std::unique_ptr<CollectiveHandle>(new DeferredCollectiveHandle(
      [this, value, from_root_replica, options]() -> absl::StatusOr<Tensors> {
        return FinishBroadcast(value, from_root_replica.get(), options);
      }));
}

absl::StatusOr<Tensors> HierarchicalCommunicator::FinishBroadcast(
    Tensor value, CollectiveHandle* from_root_replica, const BroadcastOptions& options) {
  Tensors received;
  if (from_root_replica != nullptr) {
    TFD_ASSIGN_OR_RETURN(received, from_root_replica->Wait());
    value = received[0];
  }
  if (leader()) {
    BroadcastOptions cross_options = options;
    cross_options.root = options.root / local_size();
    TFD_ASSIGN_OR_RETURN(Tensors out, CrossWorker([&]() -> absl::StatusOr<Tensors> {
                           TFD_ASSIGN_OR_RETURN(std::unique_ptr<CollectiveHandle> handle,
                                                cross_->Broadcast(value, cross_options));
                           return handle->Wait();
                         }));
    value = std::move(out[0]);
  }
  // Every local replica of the root's worker already has the value.
  if (from_root_replica != nullptr) return received;
  if (local_size() == 1) return Tensors{value};
  return ShareLocally({value}, 0, options.communication);
}

}  // namespace

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> CreateHierarchicalCommunicators(
    std::vector<std::unique_ptr<Communicator>> local, std::shared_ptr<Communicator> cross) {
  if (cross == nullptr) {
    return InvalidArgument("hierarchical collectives need a cross-worker communicator");
  }
  if (local.empty()) {
    return InvalidArgument("hierarchical collectives need at least one local replica");
  }
  const int n = static_cast<int>(local.size());
  for (int l = 0; l < n; ++l) {
    if (local[l] == nullptr || local[l]->rank() != l || local[l]->group_size() != n) {
      return InvalidArgument("hierarchical collectives: local communicator ", l,
                             " must be rank ", l, " of a group of ", n);
    }
  }
  std::vector<std::unique_ptr<Communicator>> comms;
  for (auto& l : local) {
    comms.push_back(std::make_unique<HierarchicalCommunicator>(std::move(l), cross));
  }
  return comms;
}

}  // namespace distribute
}  // namespace tfd
