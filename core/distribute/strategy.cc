#include "core/distribute/strategy.h"

#include <utility>

#include "absl/strings/str_cat.h"

#include "core/framework/execute.h"
#include "core/framework/placement.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace {

thread_local Strategy* current_strategy = nullptr;
thread_local ReplicaContext* current_replica_context = nullptr;
thread_local bool in_builtin_training_loop = false;

// The default strategy's device: the innermost DeviceScope, else the
// default device (TFD_DEFAULT_DEVICE), else the host. A default device
// that does not resolve fails variable creation (and every op that would
// use it); replica_devices() and device() cannot return an error, so they
// say the host.
Device* DefaultStrategyDeviceOrHost() {
  absl::StatusOr<Device*> device = CurrentDevice();
  return device.ok() ? *device : HostDevice();
}

// ReplicaContext::StartAllReduce's default: the inputs are kept until
// Wait(), which all-reduces them in one AllReduce call.
class GatheredAllReduce : public PendingAllReduce {
 public:
  GatheredAllReduce(ReplicaContext* ctx, ReduceOp op, std::vector<TensorSpec> specs)
      : ctx_(ctx), op_(op), specs_(std::move(specs)), values_(specs_.size()) {}

  absl::Status Put(int index, const Tensor& value) override {
    if (index < 0 || index >= static_cast<int>(specs_.size())) {
      return InvalidArgument("StartAllReduce: input ", index, " of ", specs_.size());
    }
    if (values_[index].defined()) {
      return InvalidArgument("StartAllReduce: input ", index, " was handed in twice");
    }
    const TensorSpec& spec = specs_[index];
    if (!value.defined() || value.dtype() != spec.dtype || value.shape() != spec.shape) {
      return InvalidArgument("StartAllReduce: input ", index, " must be ", TensorSpecString(spec),
                             ", got ",
                             value.defined() ? TensorSpecString({value.dtype(), value.shape()})
                                             : std::string("an undefined tensor"));
    }
    values_[index] = value;
    return absl::OkStatus();
  }

  absl::StatusOr<std::vector<Tensor>> Wait() override {
    for (size_t i = 0; i < values_.size(); ++i) {
      if (!values_[i].defined()) {
        return FailedPrecondition("StartAllReduce: Wait() before input ", i, " was handed in");
      }
    }
    return ctx_->AllReduce(op_, std::move(values_));
  }

 private:
  ReplicaContext* const ctx_;
  const ReduceOp op_;
  const std::vector<TensorSpec> specs_;
  std::vector<Tensor> values_;
};

// The default strategy's replica: the calling thread itself.
class DefaultReplicaContext : public ReplicaContext {
 public:
  explicit DefaultReplicaContext(Strategy* strategy) : strategy_(strategy) {}
  Strategy& strategy() const override { return *strategy_; }
  int replica_id_in_sync_group() const override { return 0; }
  int num_replicas_in_sync() const override { return 1; }
  Device* device() const override { return DefaultStrategyDeviceOrHost(); }
  // With one replica, SUM and MEAN are the identity.
  absl::StatusOr<std::vector<Tensor>> AllReduce(ReduceOp,
                                                std::vector<Tensor> values) override {
    return values;
  }
  absl::Status MergeCall(const std::function<absl::Status()>& fn) override { return fn(); }

 private:
  Strategy* strategy_;
};

// No distribution: one replica on the current device, as TensorFlow's
// default strategy.
class DefaultStrategyImpl : public Strategy {
 public:
  std::string name() const override { return "DefaultDistributionStrategy"; }
  int num_replicas_in_sync() const override { return 1; }
  std::vector<Device*> replica_devices() const override {
    return {DefaultStrategyDeviceOrHost()};
  }
  absl::StatusOr<std::shared_ptr<DistributedVariable>> CreateVariable(
      const VariableSpec& spec) override {
    TFD_ASSIGN_OR_RETURN(Device* device, CurrentDevice());
    return MakeReplicatedVariable(spec, {device});
  }
  absl::StatusOr<PerReplica> Run(const ReplicaFn& fn) override {
    DefaultReplicaContext context(this);
    ReplicaContextScope scope(&context);
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, fn(context));
    return PerReplica{std::move(outputs)};
  }
};

}  // namespace

absl::StatusOr<std::unique_ptr<PendingAllReduce>> ReplicaContext::StartAllReduce(
    ReduceOp op, std::vector<TensorSpec> specs) {
  return std::make_unique<GatheredAllReduce>(this, op, std::move(specs));
}

absl::StatusOr<Tensor> ReplicaContext::AllGather(const Tensor& value) {
  if (num_replicas_in_sync() == 1) return value;
  return Unimplemented(strategy().name(), ": this replica context has no AllGather");
}

absl::StatusOr<Tensor> Strategy::Reduce(ReduceOp op, absl::Span<const Tensor> per_replica) {
  if (static_cast<int>(per_replica.size()) != num_local_replicas()) {
    return InvalidArgument(name(), ".Reduce: expected one value per replica (",
                           num_local_replicas(), "), got ", per_replica.size());
  }
  std::vector<Tensor> host;
  for (const Tensor& t : per_replica) {
    TFD_ASSIGN_OR_RETURN(Tensor h, t.CopyTo(HostDevice()));
    host.push_back(std::move(h));
  }
  if (host.size() == 1) return host[0];
  TFD_ASSIGN_OR_RETURN(Tensor total, Execute1("AddN", host, AttrMap(), HostDevice()));
  if (op == ReduceOp::kSum) return total;
  TFD_ASSIGN_OR_RETURN(Tensor count,
                       Execute1("Cast", {Tensor::Scalar<int32_t>(static_cast<int32_t>(host.size()))},
                                AttrMap().Set("DstT", total.dtype()), HostDevice()));
  return Execute1("RealDiv", {total, count}, AttrMap(), HostDevice());
}

absl::StatusOr<std::vector<Tensor>> Strategy::ExperimentalLocalResults(const PerReplica& results,
                                                                         int output) const {
  if (static_cast<int>(results.size()) != num_local_replicas()) {
    return InvalidArgument(name(), ".ExperimentalLocalResults: expected the outputs of ",
                           num_local_replicas(), " replica(s), got ", results.size());
  }
  std::vector<Tensor> values;
  for (size_t r = 0; r < results.size(); ++r) {
    if (output < 0 || output >= static_cast<int>(results[r].size())) {
      return InvalidArgument(name(), ".ExperimentalLocalResults: replica ", r, " has ",
                             results[r].size(), " output(s), asked for output ", output);
    }
    values.push_back(results[r][output]);
  }
  return values;
}

std::vector<Tensor> Strategy::ExperimentalLocalResults(const DistributedVariable& variable) const {
  std::vector<Tensor> values;
  for (int i = 0; i < variable.num_components(); ++i) values.push_back(variable.component(i).Peek());
  return values;
}

Strategy& DefaultStrategy() {
  static DefaultStrategyImpl* strategy = new DefaultStrategyImpl();
  return *strategy;
}

Strategy& CurrentStrategy() {
  return current_strategy != nullptr ? *current_strategy : DefaultStrategy();
}

bool HasStrategy() { return current_strategy != nullptr; }

ReplicaContext* CurrentReplicaContext() { return current_replica_context; }

StrategyScope::StrategyScope(Strategy* strategy) : previous_(current_strategy) {
  current_strategy = strategy;
}
StrategyScope::~StrategyScope() { current_strategy = previous_; }

ReplicaContextScope::ReplicaContextScope(ReplicaContext* context)
    : previous_(current_replica_context), previous_strategy_(current_strategy) {
  current_replica_context = context;
  // The default strategy is never "current" by scope: HasStrategy() stays
  // false inside its Run().
  Strategy* s = &context->strategy();
  current_strategy = s == &DefaultStrategy() ? previous_strategy_ : s;
}
ReplicaContextScope::~ReplicaContextScope() {
  current_replica_context = previous_;
  current_strategy = previous_strategy_;
}

CrossReplicaScope::CrossReplicaScope() : previous_(current_replica_context) {
  current_replica_context = nullptr;
}
CrossReplicaScope::~CrossReplicaScope() { current_replica_context = previous_; }

BuiltinTrainingLoopScope::BuiltinTrainingLoopScope() : previous_(in_builtin_training_loop) {
  in_builtin_training_loop = true;
}
BuiltinTrainingLoopScope::~BuiltinTrainingLoopScope() {
  in_builtin_training_loop = previous_;
}
bool InBuiltinTrainingLoop() { return in_builtin_training_loop; }

absl::StatusOr<std::shared_ptr<DistributedVariable>> CreateVariable(const VariableSpec& spec) {
  return CurrentStrategy().CreateVariable(spec);
}

}  // namespace distribute
}  // namespace tfd
