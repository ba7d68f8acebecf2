// A task's view of the parameter servers of its job: variables by name,
// each placed on one ps or split across several by a Partitioner, read,
// assigned and updated (the optimizer runs on the ps) over gRPC.
//
// A variable with k shards is stored as "<name>/part_0" .. "<name>/part_<k-1>"
// (TensorFlow's shard names), rows split as ShardRows() says, on ps tasks
// chosen round-robin: shard j of the i-th created variable goes to ps
// (first + j) % num_ps, where `first` advances by one per variable. Every
// task that creates the same variables in the same order agrees on where
// they live.
//
// The shards of one call are sent concurrently. Every call carries a
// deadline (rpc_timeout). A ps that is down or does
// not answer makes the call fail with UNAVAILABLE naming its task and
// address ("/job:ps/replica:0/task:1 at localhost:2223").
//
// Thread safety: all methods are thread-safe.
//
//   TFD_ASSIGN_OR_RETURN(auto ps, PsClient::Connect(info.cluster_spec.JobAddresses("ps"), {}));
//   TFD_RETURN_IF_ERROR(ps->CreateVariable("dense/kernel", init, sgd));
//   TFD_RETURN_IF_ERROR(ps->ApplyGradient("dense/kernel", grad));
#ifndef TFD_CORE_DISTRIBUTE_PS_PS_CLIENT_H_
#define TFD_CORE_DISTRIBUTE_PS_PS_CLIENT_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/distribute/ps/partitioner.h"
#include "core/distribute/ps/ps_service.pb.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace ps {

struct PsClientOptions {
  // How long Connect waits for every ps to come up.
  absl::Duration connect_timeout = absl::Seconds(30);
  // The deadline of each call.
  absl::Duration rpc_timeout = absl::Seconds(30);
  // Splits variables; null keeps each variable whole on one ps.
  Partitioner partitioner;
};

class PsClient {
 public:
  // A variable with its optimizer's state (VariableStore::State), whole:
  // the slots' shards concatenated as the value's.
  struct State {
    Tensor value;
    OptimizerConfig optimizer;
    std::vector<Tensor> slots;  // Each of the value's shape.
    int64_t step = 0;
  };

  // Connects to the ps tasks at `addresses` (task i at addresses[i]).
  // DEADLINE_EXCEEDED naming the first ps that did not come up within
  // connect_timeout; INVALID_ARGUMENT for no addresses.
  static absl::StatusOr<std::unique_ptr<PsClient>> Connect(std::vector<std::string> addresses,
                                                           PsClientOptions options = {});
  ~PsClient();

  int num_ps() const { return static_cast<int>(addresses_.size()); }

  // Creates `name` from `initial_value` (float32), updated by `optimizer`.
  // Creating it again (another worker) keeps the ps's value.
  absl::Status CreateVariable(const std::string& name, const Tensor& initial_value,
                              const OptimizerConfig& optimizer);
  // The whole value, shards concatenated, and with a non-null `step` the
  // updates applied so far (the first shard's count). NOT_FOUND for a
  // variable this client did not create.
  absl::StatusOr<Tensor> Read(const std::string& name, int64_t* step = nullptr);
  absl::Status Assign(const std::string& name, const Tensor& value);
  // The value with the optimizer's rule, slots and update count (a
  // checkpoint of the ps's state); NOT_FOUND as Read.
  absl::StatusOr<State> ReadState(const std::string& name);
  // Replaces all of it on every shard (restoring a checkpoint);
  // INVALID_ARGUMENT for shapes other than the variable's or a slot count
  // other than the rule keeps.
  absl::Status AssignState(const std::string& name, const State& state);
  // Sends each shard its rows of `gradient` (the variable's shape). A
  // non-null `optimizer` replaces the variable's update rule from this
  // step on (VariableStore::ApplyGradient).
  absl::Status ApplyGradient(const std::string& name, const Tensor& gradient,
                             const OptimizerConfig* optimizer = nullptr);
  // Sends each shard its rows of `delta` (the variable's shape) to
  // subtract from its value (VariableStore::AssignSub).
  absl::Status AssignSub(const std::string& name, const Tensor& delta);
  // How many shards `name` has (0 for an unknown name).
  int NumShards(const std::string& name) const;

 private:
  struct Shard {
    std::string name;
    int ps = 0;
    int64_t begin_row = 0, end_row = 0;
  };
  struct Placement {
    TensorShape shape;
    std::vector<Shard> shards;
  };
  class Stubs;
  PsClient(std::vector<std::string> addresses, PsClientOptions options);
  absl::StatusOr<Placement> Find(const std::string& name) const;
  absl::StatusOr<State> ReadShards(const std::string& name, bool with_optimizer_state);
  absl::Status AssignShards(const std::string& name, const State& state,
                            bool with_optimizer_state);
  // Runs `call` for every shard, concurrently when there are several (each
  // shard's call waits on its own ps), and returns the first shard's error.
  absl::Status ForEachShard(const Placement& placement,
                            const std::function<absl::Status(const Shard&)>& call) const;
  // Rows [begin, end) of `t` (all of a scalar).
  static absl::StatusOr<Tensor> Rows(const Tensor& t, const Shard& shard, const Placement& p);
  std::string PsName(int ps) const;

  const std::vector<std::string> addresses_;
  const PsClientOptions options_;
  std::unique_ptr<Stubs> stubs_;

  mutable absl::Mutex mu_;
  std::map<std::string, Placement> placements_ ABSL_GUARDED_BY(mu_);
  int next_first_ps_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace ps
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PS_PS_CLIENT_H_
