// Collectives: the one interface through which replicas exchange tensors
// (all-reduce, all-gather, broadcast), whatever carries the bytes.
//
// A group of N ranks (replicas) is created together; each rank gets its own
// Communicator and calls it from its own thread. Every rank issues the same
// collectives in the same order with matching dtypes and shapes: the k-th
// call of each rank forms the group's k-th collective. A call returns a
// handle at once; Wait() blocks until this rank's results are ready to
// use: complete on the host, or (for device tensors) ordered before
// everything queued afterwards on the device's stream. Synchronize()
// waits for the device too.
//
// Implementations (chosen by name in core/distribute/cross_device_ops.h):
//   - "ShmAllReduce" (collectives/shm): replica threads of one process
//     exchange host buffers directly; reduce-scatter + all-gather.
//   - "ReductionToOneDevice": every value is summed with AddN on one device
//     and copied back; works for any device type.
//
// Errors. Every wait is bounded by CommunicationOptions::timeout: a rank
// that does not arrive in time makes the collective fail with
// DEADLINE_EXCEEDED naming the missing rank(s). A rank that fails calls
// Abort(); every pending and later collective of the group then fails with
// ABORTED naming it. Both poison the group: it cannot be used again (the
// sequence of collectives is lost), so a strategy makes a new one.
// INVALID_ARGUMENT for mismatched calls (different ops, dtypes, shapes) on
// every rank involved; a call that is invalid on its own (bad options, an
// unsupported dtype, a bad input) fails on its rank and also ends the
// group, since the ranks' sequences of collectives no longer line up.
//
// Thread safety: a Communicator belongs to its rank's thread (one call at a
// time); handles may be waited on from that thread only. Groups are shared.
//
//   auto comms = CreateShmCommunicators(devices);          // one per replica
//   // on replica i's thread:
//   TFD_ASSIGN_OR_RETURN(auto handle, comms[i]->AllReduce(grads, {}));
//   TFD_ASSIGN_OR_RETURN(std::vector<Tensor> summed, handle->Wait());
#ifndef TFD_CORE_DISTRIBUTE_COLLECTIVES_COLLECTIVES_H_
#define TFD_CORE_DISTRIBUTE_COLLECTIVES_COLLECTIVES_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/distribute/reduce_op.h"
#include "core/framework/device.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace distribute {

// tf.distribute.experimental.CommunicationImplementation: which engine
// carries a multi-worker collective. AUTO lets the runtime choose; RING is
// Gloo's ring over TCP (CPU tensors); NCCL needs GPU tensors and a CUDA
// build. Collectives within one process ignore it.
enum class CommunicationImplementation { kAuto, kRing, kNccl };
// "AUTO", "RING", "NCCL".
const char* CommunicationImplementationName(CommunicationImplementation implementation);

// tf.distribute.experimental.CommunicationOptions.
struct CommunicationOptions {
  CommunicationImplementation implementation = CommunicationImplementation::kAuto;
  // The tensors of one all-reduce are packed into buckets of at most this
  // many bytes (one dtype per bucket; a large tensor spans several), and
  // each bucket is reduced as soon as every rank has handed it in. 0 picks
  // kDefaultBytesPerPack.
  int64_t bytes_per_pack = 0;
  // The longest any wait of the collective may last.
  absl::Duration timeout = absl::Minutes(5);
  // Whether the optimizer's gradient all-reduce starts during the backward
  // pass (Optimizer::Minimize): each bucket is reduced as soon as its
  // gradients are final, while the rest of the backward pass runs, as
  // PyTorch DDP's bucketed hooks do. Results are the same bits either
  // way; only the replicated strategies read it.
  bool overlap_backward_pass = true;
};
constexpr int64_t kDefaultBytesPerPack = 4 << 20;

struct AllReduceOptions {
  ReduceOp op = ReduceOp::kSum;
  CommunicationOptions communication;
};

// Concatenates every rank's tensor along dimension 0, in rank order. The
// ranks' tensors may differ in dimension 0 only.
struct AllGatherOptions {
  CommunicationOptions communication;
};

// Every rank receives `root`'s tensor. All ranks pass a tensor of the
// root's dtype and shape (the non-roots' contents are ignored).
struct BroadcastOptions {
  int root = 0;
  CommunicationOptions communication;
};

// The dtype and shape of one tensor of a collective.
struct TensorSpec {
  DataType dtype = DT_INVALID;
  TensorShape shape;
};
std::string TensorSpecString(const TensorSpec& spec);  // "float32[2,3]"

// A collective in flight on one rank.
class CollectiveHandle {
 public:
  virtual ~CollectiveHandle() = default;
  // Blocks until this rank's results are ready to use (or the collective
  // failed) and returns them, on this rank's device: one tensor per input
  // for all-reduce, one for all-gather and broadcast. Call once. On a GPU
  // the device may still be computing them; an error it meets then fails
  // the group, and the next call or Communicator::Synchronize() says so.
  // Errors: DEADLINE_EXCEEDED, ABORTED, INVALID_ARGUMENT (see above).
  virtual absl::StatusOr<std::vector<Tensor>> Wait() = 0;
};

// An all-reduce whose inputs are handed in one by one, so that a caller can
// pass gradients as backprop produces them while earlier buckets are
// already being reduced.
class PendingAllReduce : public CollectiveHandle {
 public:
  // Hands in input `index` (its dtype and shape as declared at the start).
  // The tensor must not be written until Wait() returns. INVALID_ARGUMENT
  // for a bad index, a tensor handed in twice, or a dtype/shape/device the
  // implementation cannot take; the group's error once it failed.
  virtual absl::Status Put(int index, const Tensor& value) = 0;
};

// One rank's endpoint in a group.
class Communicator {
 public:
  virtual ~Communicator() = default;

  int rank() const { return rank_; }
  int group_size() const { return group_size_; }
  // Where this rank's results are placed.
  Device* device() const { return device_; }
  // The implementation's name, as cross_device_ops.h knows it.
  virtual std::string implementation() const = 0;

  // Starts an all-reduce of tensors with these specs; hand them in with
  // Put(). Wait() fails with DEADLINE_EXCEEDED if some are never handed in.
  virtual absl::StatusOr<std::unique_ptr<PendingAllReduce>> StartAllReduce(
      std::vector<TensorSpec> specs, const AllReduceOptions& options) = 0;

  // StartAllReduce with every input handed in at once.
  absl::StatusOr<std::unique_ptr<CollectiveHandle>> AllReduce(const std::vector<Tensor>& values,
                                                              const AllReduceOptions& options);

  virtual absl::StatusOr<std::unique_ptr<CollectiveHandle>> AllGather(
      const Tensor& value, const AllGatherOptions& options) = 0;

  virtual absl::StatusOr<std::unique_ptr<CollectiveHandle>> Broadcast(
      const Tensor& value, const BroadcastOptions& options) = 0;

  // Blocks until every collective this rank has waited for is complete on
  // its device, or `timeout` passes (DEADLINE_EXCEEDED). Implementations
  // whose Wait() returns before the device is done (NCCL, Note [Streams
  // and events] in nccl/nccl_communicator.h) report here the errors that
  // came after it: the group's status once it failed. Others are complete
  // when Wait() returns; for them this default returns OK. For callers
  // that need the results on the host, or a step that must end with its
  // collectives checked.
  virtual absl::Status Synchronize(absl::Duration timeout) {
    (void)timeout;
    return absl::OkStatus();
  }

  // Declares this rank failed with `cause`: the whole group fails with
  // ABORTED naming this rank and the cause. Idempotent; the first cause of
  // any rank wins.
  virtual void Abort(const absl::Status& cause) = 0;

 protected:
  Communicator(int rank, int group_size, Device* device)
      : rank_(rank), group_size_(group_size), device_(device) {}

 private:
  const int rank_;
  const int group_size_;
  Device* const device_;
};

// A handle whose work runs in Wait(), on the waiting thread: for
// implementations that make progress only while a rank waits (Gloo, the
// hierarchical collectives). A second Wait() is FAILED_PRECONDITION.
class DeferredCollectiveHandle : public CollectiveHandle {
 public:
  using Work = std::function<absl::StatusOr<std::vector<Tensor>>()>;
  explicit DeferredCollectiveHandle(Work work) : work_(std::move(work)) {}
  absl::StatusOr<std::vector<Tensor>> Wait() override;

 private:
  Work work_;
};

// Runs a blocking all-reduce on `comm`: start, hand everything in, wait.
absl::StatusOr<std::vector<Tensor>> AllReduceAndWait(Communicator& comm,
                                                     const std::vector<Tensor>& values,
                                                     const AllReduceOptions& options);

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COLLECTIVES_COLLECTIVES_H_
