// ParameterServerStrategy, as tf.distribute.ParameterServerStrategy: the
// variables of a model live on the ps tasks of the cluster (split across
// them by an optional partitioner) and are updated there by the optimizer;
// workers compute gradients asynchronously, each on its own batches,
// reading the current values and sending gradients back; the chief
// drives the job through a ClusterCoordinator.
//
// Every task of the job (chief and workers; ps tasks only serve, see
// ps::StartParameterServer) makes one from the cluster resolver. It
// connects to every ps, waiting at most ps.connect_timeout for them to
// come up, so a ps that never starts is a DEADLINE_EXCEEDED naming it.
//
// As a Strategy (strategy.h): a model built in its scope has its trainable
// float32 variables created on the ps tasks (sharded by the partitioner;
// every task creates them in the same order, and the first creation's
// value wins). Each task keeps a local copy, read back from the ps when
// created, which PullVariables refreshes. Model::Fit places the model's
// non-trainable weights there too (MakeRemote); other variables (metrics,
// optimizer slots, which the ps keeps with their variable) stay in the
// task that made them. Run() runs one
// replica on the calling thread against the local copies: the chief's
// Evaluate and Predict.
//
// As ParameterServerTraining (parameter_server_training.h): what
// Model::Fit uses to train through the coordinator. Steps run in the
// workers' processes as registered functions (ServeWorkerFunctions),
// scheduled by the chief's coordinator, made on first use.
//
// Thread safety: all methods are thread-safe; Run() as Strategy says.
//
//   // chief
//   TFD_ASSIGN_OR_RETURN(auto strategy, ParameterServerStrategy::FromClusterResolver(
//       TfConfigClusterResolver(), {}));
//   StrategyScope scope(strategy.get());
//   model = BuildModel();                 // variables on the ps tasks
//   model->Compile(...);
//   model->Fit(creator, fit_options);     // steps on the workers
#ifndef TFD_CORE_DISTRIBUTE_PARAMETER_SERVER_STRATEGY_H_
#define TFD_CORE_DISTRIBUTE_PARAMETER_SERVER_STRATEGY_H_

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/distribute/cluster_coordinator.h"
#include "core/distribute/cluster_resolver.h"
#include "core/distribute/parameter_server_training.h"
#include "core/distribute/ps/ps_client.h"
#include "core/distribute/strategy.h"

namespace tfd {
namespace distribute {

struct ParameterServerStrategyOptions {
  ps::PsClientOptions ps;
  ClusterCoordinatorOptions coordinator;
};

class ParameterServerStrategy final : public Strategy, public ParameterServerTraining {
 public:
  // INVALID_ARGUMENT when the cluster has no "ps" or no "worker" job, or
  // this task is a ps; the resolver's error; DEADLINE_EXCEEDED naming a ps
  // that did not come up.
  static absl::StatusOr<std::unique_ptr<ParameterServerStrategy>> FromClusterResolver(
      const ClusterResolver& resolver, ParameterServerStrategyOptions options = {});

  const ClusterInfo& cluster_info() const { return info_; }
  int num_ps() const { return ps_->num_ps(); }
  // The worker job's addresses by task index (the chief is not a worker).
  const std::vector<std::string>& worker_addresses() const { return workers_; }
  ps::PsClient& parameter_servers() { return *ps_; }

  // A new coordinator over every worker of the job (call it on the chief).
  // Fit uses the strategy's own (coordinator()).
  absl::StatusOr<std::unique_ptr<ClusterCoordinator>> MakeCoordinator() const;
  // The strategy's coordinator, made on first use.
  absl::StatusOr<ClusterCoordinator*> coordinator();

  // Strategy.
  std::string name() const override { return "ParameterServerStrategy"; }
  int num_replicas_in_sync() const override { return 1; }
  std::vector<Device*> replica_devices() const override;
  absl::StatusOr<std::shared_ptr<DistributedVariable>> CreateVariable(
      const VariableSpec& spec) override;
  absl::StatusOr<PerReplica> Run(const ReplicaFn& fn) override;

  // ParameterServerTraining.
  bool is_chief() const override { return info_.task_type == TaskType::kChief; }
  bool IsRemote(const DistributedVariable& variable) const override;
  absl::Status MakeRemote(
      absl::Span<const std::shared_ptr<DistributedVariable>> variables) override;
  absl::Status PullVariables(absl::Span<DistributedVariable* const> variables) override;
  absl::StatusOr<int64_t> PullVariablesAndIterations(
      absl::Span<DistributedVariable* const> variables) override;
  absl::Status PushVariables(absl::Span<DistributedVariable* const> variables) override;
  absl::StatusOr<RemoteOptimizerState> ReadOptimizerState(
      const DistributedVariable& variable) override;
  absl::Status PushOptimizerState(const DistributedVariable& variable,
                                  const RemoteUpdateRule& rule,
                                  const RemoteOptimizerState& state) override;
  absl::Status ApplyGradients(absl::Span<const Tensor> grads,
                              absl::Span<DistributedVariable* const> variables,
                              const RemoteUpdateRule& rule) override;
  absl::Status AssignSubVariables(absl::Span<const Tensor> deltas,
                                  absl::Span<DistributedVariable* const> variables) override;
  absl::StatusOr<int64_t> CreatePerWorkerIterator(const std::string& dataset) override;
  void ReleasePerWorkerIterator(int64_t iterator_id) override;
  std::shared_ptr<RemoteValue> Schedule(const std::string& function, int64_t iterator_id,
                                        std::vector<Tensor> arguments) override;
  absl::Status Join() override;
  int num_live_workers() const override;
  absl::StatusOr<std::unique_ptr<WorkerServing>> ServeWorkerFunctions(
      ps::WorkerFunctions functions) override;
  // This task's worker index, or -1 on the chief.
  int worker_index() const override;
  int num_worker_tasks() const override { return static_cast<int>(workers_.size()); }

 private:
  ParameterServerStrategy() = default;
  // The ps name of `variable`, or empty when it is not remote.
  std::string RemoteName(const DistributedVariable& variable) const;
  // Reads the remote variables among `variables`; with non-null
  // `iterations`, the first one's update count goes there.
  absl::Status Pull(absl::Span<DistributedVariable* const> variables,
                    std::optional<int64_t>* iterations);
  // RemoteName, or FAILED_PRECONDITION naming a local variable.
  absl::StatusOr<std::string> RequireRemote(const DistributedVariable& variable) const;

  ClusterInfo info_;
  ParameterServerStrategyOptions options_;
  std::vector<std::string> workers_;
  std::unique_ptr<ps::PsClient> ps_;

  mutable absl::Mutex mu_;
  // The remote variables by address, with their ps names; the weak
  // pointer tells a live variable from a new one at a reused address.
  struct Remote {
    std::weak_ptr<DistributedVariable> variable;
    std::string name;
  };
  std::map<const DistributedVariable*, Remote> remote_ ABSL_GUARDED_BY(mu_);
  std::unique_ptr<ClusterCoordinator> coordinator_ ABSL_GUARDED_BY(mu_);
};

}  // namespace distribute
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PARAMETER_SERVER_STRATEGY_H_
