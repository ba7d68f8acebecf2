#include "core/distribute/parameter_server_strategy.h"

#include <optional>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/distribute/ps/worker_server.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace {

// The one replica of Run(), on the calling thread.
class LocalReplicaContext : public ReplicaContext {
 public:
  explicit LocalReplicaContext(Strategy* strategy) : strategy_(strategy) {}
  Strategy& strategy() const override { return *strategy_; }
  int replica_id_in_sync_group() const override { return 0; }
  int num_replicas_in_sync() const override { return 1; }
  Device* device() const override { return HostDevice(); }
  absl::StatusOr<std::vector<Tensor>> AllReduce(ReduceOp, std::vector<Tensor> values) override {
    return values;
  }
  absl::Status MergeCall(const std::function<absl::Status()>& fn) override {
    CrossReplicaScope scope;
    return fn();
  }

 private:
  Strategy* const strategy_;
};

class HostedWorkerServing : public WorkerServing {
 public:
  explicit HostedWorkerServing(std::unique_ptr<ps::WorkerServer> server)
      : server_(std::move(server)) {}
  void Wait() override { server_->Wait(); }
  int num_live_iterators() const override { return server_->num_live_iterators(); }

 private:
  std::unique_ptr<ps::WorkerServer> server_;
};

ps::OptimizerConfig::Kind ToConfigKind(RemoteUpdateRule::Kind kind) {
  switch (kind) {
    case RemoteUpdateRule::Kind::kAdam:
      return ps::OptimizerConfig::ADAM;
    case RemoteUpdateRule::Kind::kRmsProp:
      return ps::OptimizerConfig::RMSPROP;
    case RemoteUpdateRule::Kind::kAdagrad:
      return ps::OptimizerConfig::ADAGRAD;
    case RemoteUpdateRule::Kind::kSgd:
      break;
  }
  return ps::OptimizerConfig::SGD;
}

ps::OptimizerConfig ToConfig(const RemoteUpdateRule& rule) {
  ps::OptimizerConfig config;
  config.set_kind(ToConfigKind(rule.kind));
  config.set_learning_rate(rule.learning_rate);
  config.set_momentum(rule.momentum);
  config.set_nesterov(rule.nesterov);
  config.set_beta_1(rule.beta_1);
  config.set_beta_2(rule.beta_2);
  config.set_epsilon(rule.epsilon);
  config.set_rho(rule.rho);
  config.set_centered(rule.centered);
  config.set_initial_accumulator_value(rule.initial_accumulator_value);
  config.set_amsgrad(rule.amsgrad);
  config.set_weight_decay(rule.weight_decay);
  return config;
}

}  // namespace

absl::StatusOr<std::unique_ptr<ParameterServerStrategy>> ParameterServerStrategy::FromClusterResolver(
    const ClusterResolver& resolver, ParameterServerStrategyOptions options) {
  TFD_ASSIGN_OR_RETURN(ClusterInfo info, resolver.Resolve());
  if (!info.cluster_spec.HasJob("ps") || !info.cluster_spec.HasJob("worker")) {
    return InvalidArgument("ParameterServerStrategy needs \"ps\" and \"worker\" jobs, got cluster ",
                           info.cluster_spec.DebugString());
  }
  if (info.task_type == TaskType::kPs) {
    return InvalidArgument("ParameterServerStrategy runs on the chief and workers; a ps task serves "
                           "variables (ps::StartParameterServer)");
  }
  std::unique_ptr<ParameterServerStrategy> strategy(new ParameterServerStrategy());
  strategy->workers_ = info.cluster_spec.JobAddresses("worker");
  TFD_ASSIGN_OR_RETURN(strategy->ps_,
                       ps::PsClient::Connect(info.cluster_spec.JobAddresses("ps"), options.ps));
  strategy->info_ = std::move(info);
  strategy->options_ = std::move(options);
  return strategy;
}

int ParameterServerStrategy::worker_index() const {
  return info_.task_type == TaskType::kWorker ? info_.task_index : -1;
}

absl::StatusOr<std::unique_ptr<ClusterCoordinator>> ParameterServerStrategy::MakeCoordinator() const {
  return ClusterCoordinator::Create(workers_, options_.coordinator);
}

absl::StatusOr<ClusterCoordinator*> ParameterServerStrategy::coordinator() {
  absl::MutexLock lock(&mu_);
  if (coordinator_ == nullptr) {
    if (!is_chief()) {
      return FailedPrecondition("only the chief schedules steps of a parameter-server job; this is ",
                                TaskTypeName(info_.task_type), " ", info_.task_index);
    }
    TFD_ASSIGN_OR_RETURN(coordinator_, MakeCoordinator());
  }
  return coordinator_.get();
}

std::vector<Device*> ParameterServerStrategy::replica_devices() const { return {HostDevice()}; }

absl::StatusOr<std::shared_ptr<DistributedVariable>> ParameterServerStrategy::CreateVariable(
    const VariableSpec& spec) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<DistributedVariable> variable,
                       MakeReplicatedVariable(spec, {HostDevice()}));
  const bool remote = spec.trainable && spec.synchronization != VariableSynchronization::kOnRead &&
                      variable->dtype() == DT_FLOAT;
  if (!remote) return variable;
  // Created with a rule that changes nothing: the optimizer compiled later
  // sends its own with every gradient.
  ps::OptimizerConfig inert;
  inert.set_learning_rate(0);
  TFD_RETURN_IF_ERROR(ps_->CreateVariable(spec.name, variable->component(0).Peek(), inert));
  // Another task may have created it first: its value is the job's.
  TFD_ASSIGN_OR_RETURN(Tensor value, ps_->Read(spec.name));
  TFD_RETURN_IF_ERROR(variable->AssignAll(value));
  absl::MutexLock lock(&mu_);
  remote_[variable.get()] = Remote{variable, spec.name};
  return variable;
}

absl::Status ParameterServerStrategy::MakeRemote(
    absl::Span<const std::shared_ptr<DistributedVariable>> variables) {
  for (const std::shared_ptr<DistributedVariable>& variable : variables) {
    if (variable == nullptr || IsRemote(*variable)) continue;
    if (variable->dtype() != DT_FLOAT || variable->num_components() != 1) {
      return Unimplemented("ParameterServerStrategy keeps float32 variables of one component on "
                           "the parameter servers; ", variable->name(), " is ",
                           DataTypeName(variable->dtype()), " with ",
                           variable->num_components(), " components");
    }
    ps::OptimizerConfig inert;
    inert.set_learning_rate(0);
    TFD_RETURN_IF_ERROR(
        ps_->CreateVariable(variable->name(), variable->component(0).Peek(), inert));
    absl::MutexLock lock(&mu_);
    remote_[variable.get()] = Remote{variable, variable->name()};
  }
  return absl::OkStatus();
}

std::string ParameterServerStrategy::RemoteName(const DistributedVariable& variable) const {
  absl::MutexLock lock(&mu_);
  auto it = remote_.find(&variable);
  if (it == remote_.end() || it->second.variable.lock().get() != &variable) return "";
  return it->second.name;
}

bool ParameterServerStrategy::IsRemote(const DistributedVariable& variable) const {
  return !RemoteName(variable).empty();
}

absl::StatusOr<PerReplica> ParameterServerStrategy::Run(const ReplicaFn& fn) {
  LocalReplicaContext context(this);
  DeviceScope device_scope(HostDevice());
  ReplicaContextScope replica_scope(&context);
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, fn(context));
  return PerReplica{std::move(outputs)};
}

absl::Status ParameterServerStrategy::PullVariables(
    absl::Span<DistributedVariable* const> variables) {
  return Pull(variables, nullptr);
}

absl::StatusOr<int64_t> ParameterServerStrategy::PullVariablesAndIterations(
    absl::Span<DistributedVariable* const> variables) {
  std::optional<int64_t> iterations;
  TFD_RETURN_IF_ERROR(Pull(variables, &iterations));
  if (!iterations) return FailedPrecondition("none of the variables is on the parameter servers");
  return *iterations;
}

absl::Status ParameterServerStrategy::Pull(absl::Span<DistributedVariable* const> variables,
                                           std::optional<int64_t>* iterations) {
  for (DistributedVariable* variable : variables) {
    const std::string name = RemoteName(*variable);
    if (name.empty()) continue;
    int64_t step = 0;
    TFD_ASSIGN_OR_RETURN(Tensor value, ps_->Read(name, &step));
    if (iterations != nullptr && !*iterations) *iterations = step;
    TFD_RETURN_IF_ERROR(variable->AssignAll(value));
  }
  return absl::OkStatus();
}

absl::Status ParameterServerStrategy::PushVariables(
    absl::Span<DistributedVariable* const> variables) {
  for (DistributedVariable* variable : variables) {
    const std::string name = RemoteName(*variable);
    if (name.empty()) continue;
    TFD_RETURN_IF_ERROR(ps_->Assign(name, variable->component(0).Peek()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> ParameterServerStrategy::RequireRemote(
    const DistributedVariable& variable) const {
  std::string name = RemoteName(variable);
  if (name.empty()) {
    return FailedPrecondition("variable ", variable.name(),
                              " is not on the parameter servers; create the model in the "
                              "ParameterServerStrategy's scope");
  }
  return name;
}

absl::StatusOr<RemoteOptimizerState> ParameterServerStrategy::ReadOptimizerState(
    const DistributedVariable& variable) {
  TFD_ASSIGN_OR_RETURN(const std::string name, RequireRemote(variable));
  TFD_ASSIGN_OR_RETURN(ps::PsClient::State state, ps_->ReadState(name));
  return RemoteOptimizerState{std::move(state.slots), state.step};
}

absl::Status ParameterServerStrategy::PushOptimizerState(const DistributedVariable& variable,
                                                         const RemoteUpdateRule& rule,
                                                         const RemoteOptimizerState& state) {
  TFD_ASSIGN_OR_RETURN(const std::string name, RequireRemote(variable));
  ps::PsClient::State ps_state;
  ps_state.value = variable.component(0).Peek();
  ps_state.optimizer = ToConfig(rule);
  ps_state.slots = state.slots;
  ps_state.step = state.step;
  return ps_->AssignState(name, ps_state);
}

absl::Status ParameterServerStrategy::ApplyGradients(
    absl::Span<const Tensor> grads, absl::Span<DistributedVariable* const> variables,
    const RemoteUpdateRule& rule) {
  if (grads.size() != variables.size()) {
    return InvalidArgument("ApplyGradients: ", grads.size(), " gradients for ", variables.size(),
                           " variables");
  }
  const ps::OptimizerConfig config = ToConfig(rule);
  for (size_t i = 0; i < variables.size(); ++i) {
    if (!grads[i].defined()) continue;
    TFD_ASSIGN_OR_RETURN(const std::string name, RequireRemote(*variables[i]));
    TFD_RETURN_IF_ERROR(ps_->ApplyGradient(name, grads[i], &config));
  }
  return absl::OkStatus();
}

absl::Status ParameterServerStrategy::AssignSubVariables(
    absl::Span<const Tensor> deltas, absl::Span<DistributedVariable* const> variables) {
  if (deltas.size() != variables.size()) {
    return InvalidArgument("AssignSubVariables: ", deltas.size(), " deltas for ", variables.size(),
                           " variables");
  }
  for (size_t i = 0; i < variables.size(); ++i) {
    if (!deltas[i].defined()) continue;
    TFD_ASSIGN_OR_RETURN(const std::string name, RequireRemote(*variables[i]));
    TFD_RETURN_IF_ERROR(ps_->AssignSub(name, deltas[i]));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> ParameterServerStrategy::CreatePerWorkerIterator(const std::string& dataset) {
  TFD_ASSIGN_OR_RETURN(ClusterCoordinator * c, coordinator());
  TFD_ASSIGN_OR_RETURN(PerWorkerIterator iterator, c->CreatePerWorkerIterator(dataset));
  return iterator.id;
}

void ParameterServerStrategy::ReleasePerWorkerIterator(int64_t iterator_id) {
  if (iterator_id == 0) return;
  ClusterCoordinator* c = nullptr;
  {
    absl::MutexLock lock(&mu_);
    c = coordinator_.get();
  }
  // No coordinator: no iterator was made.
  if (c != nullptr) c->ReleasePerWorkerIterator(PerWorkerIterator{iterator_id, ""});
}

std::shared_ptr<RemoteValue> ParameterServerStrategy::Schedule(const std::string& function,
                                                               int64_t iterator_id,
                                                               std::vector<Tensor> arguments) {
  absl::StatusOr<ClusterCoordinator*> c = coordinator();
  if (!c.ok()) {
    auto failed = std::make_shared<RemoteValue>();
    failed->Set(c.status());
    return failed;
  }
  return (*c)->Schedule(function, PerWorkerIterator{iterator_id, ""}, std::move(arguments));
}

absl::Status ParameterServerStrategy::Join() {
  TFD_ASSIGN_OR_RETURN(ClusterCoordinator * c, coordinator());
  return c->Join();
}

int ParameterServerStrategy::num_live_workers() const {
  absl::MutexLock lock(&mu_);
  return coordinator_ == nullptr ? static_cast<int>(workers_.size())
                                 : coordinator_->num_live_workers();
}

absl::StatusOr<std::unique_ptr<WorkerServing>> ParameterServerStrategy::ServeWorkerFunctions(
    ps::WorkerFunctions functions) {
  if (info_.task_type != TaskType::kWorker) {
    return FailedPrecondition("only workers serve step functions; this is ",
                              TaskTypeName(info_.task_type), " ", info_.task_index);
  }
  TFD_ASSIGN_OR_RETURN(std::string address, info_.cluster_spec.TaskAddress("worker", info_.task_index));
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<ps::WorkerServer> server,
                       ps::StartWorkerServer(address, std::move(functions)));
  return std::unique_ptr<WorkerServing>(new HostedWorkerServing(std::move(server)));
}

}  // namespace distribute
}  // namespace tfd
