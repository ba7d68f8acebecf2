#include "core/distribute/multi_worker_mirrored_strategy.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "core/distribute/collectives/gloo/gloo_communicator.h"
#include "core/distribute/collectives/gloo/gloo_context.h"
#include "core/distribute/collectives/hierarchical_communicator.h"
#include "core/distribute/collectives/nccl/nccl_connect.h"
#include "core/distribute/coordination/coordination_client.h"
#include "core/distribute/coordination/coordination_server.h"
#include "core/distribute/coordination/task_name.h"
#include "core/distribute/cross_device_ops.h"
#include "core/distribute/internal/cpu_replica_devices.h"
#include "core/distribute/internal/cross_worker_collectives.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace distribute {
namespace {

constexpr char kStartupBarrier[] = "mwms/startup";
constexpr char kReplicaGlooPrefix[] = "mwms/gloo/replicas/";
constexpr char kControlGlooPrefix[] = "mwms/gloo/control/";
constexpr char kEnginePrefix[] = "mwms/collectives/";
constexpr char kNcclIdKey[] = "mwms/nccl/replicas";

// "host:port" -> host, "[::1]:port" -> "::1".
std::string HostOf(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host;
}

std::string PortOf(const std::string& address) { return address.substr(address.rfind(':') + 1); }

absl::Status ValidateOptions(const MultiWorkerMirroredStrategyOptions& options) {
  if (options.local_replicas < 1) {
    return InvalidArgument("MultiWorkerMirroredStrategy: local_replicas must be >= 1, got ",
                           options.local_replicas);
  }
  if (!options.devices.empty() && options.local_replicas != 1 &&
      options.local_replicas != static_cast<int>(options.devices.size())) {
    return InvalidArgument("MultiWorkerMirroredStrategy: local_replicas (",
                           options.local_replicas, ") and devices (", options.devices.size(),
                           ") disagree; give one of them");
  }
  for (absl::Duration d : {options.startup_timeout, options.heartbeat_interval,
                           options.heartbeat_timeout, options.shutdown_timeout,
                           options.communication.timeout}) {
    if (d <= absl::ZeroDuration()) {
      return InvalidArgument("MultiWorkerMirroredStrategy: every timeout must be positive, got ",
                             absl::FormatDuration(d));
    }
  }
  return absl::OkStatus();
}

// The local replicas: options.devices, else CPU logical devices.
absl::StatusOr<std::vector<Device*>> LocalReplicaDevices(
    const MultiWorkerMirroredStrategyOptions& options) {
  if (options.devices.empty()) return internal::CpuReplicaDevices(options.local_replicas);
  return options.devices;
}

// Note [Cross-worker engine] (internal/cross_worker_collectives.h) for
// this worker's replicas.
absl::StatusOr<internal::CrossWorkerEngine> ChooseEngine(CommunicationImplementation implementation,
                                                         const std::vector<Device*>& devices) {
  internal::LocalReplicas replicas;
  replicas.in_host_memory = AllInHostMemory(devices);
  replicas.nccl = ChooseNccl(devices);
  replicas.nccl_built = GetNcclBackend() != nullptr;
  return internal::ChooseCrossWorkerEngine(implementation, replicas);
}

}  // namespace

absl::StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>> MultiWorkerMirroredStrategy::Create(
    const ClusterInfo& info, MultiWorkerMirroredStrategyOptions options) {
  TFD_RETURN_IF_ERROR(ValidateOptions(options));
  if (info.task_type == TaskType::kPs || info.task_type == TaskType::kEvaluator) {
    return InvalidArgument("MultiWorkerMirroredStrategy: runs on chief and worker tasks, not on ",
                           TaskTypeName(info.task_type), " task ", info.task_index);
  }
  TFD_ASSIGN_OR_RETURN(std::vector<Device*> devices, LocalReplicaDevices(options));
  std::unique_ptr<MultiWorkerMirroredStrategy> strategy(new MultiWorkerMirroredStrategy());
  strategy->info_ = info;
  strategy->options_ = options;
  absl::StatusOr<internal::CrossWorkerEngine> engine =
      ChooseEngine(options.communication.implementation, devices);
  if (info.local()) {
    // A job of one reduces within the process, but refuses what the
    // options ask for and these replicas cannot do, as a job would.
    TFD_RETURN_IF_ERROR(engine.status());
    strategy->info_.rank = 0;
    strategy->info_.num_workers = 1;
    strategy->info_.is_chief = true;
  } else if (absl::Status s = strategy->Connect(devices, engine); !s.ok()) {
    // A job that never started has nothing to shut down in order.
    strategy->shut_down_ = true;
    return s;
  }
  ReplicatedStrategyOptions replicated;
  replicated.communication = options.communication;
  if (absl::Status s = strategy->Init(std::move(devices), std::move(replicated)); !s.ok()) {
    strategy->shut_down_ = true;
    return s;
  }
  return strategy;
}

absl::StatusOr<std::unique_ptr<MultiWorkerMirroredStrategy>>
MultiWorkerMirroredStrategy::FromClusterResolver(const ClusterResolver& resolver,
                                                 MultiWorkerMirroredStrategyOptions options) {
  TFD_ASSIGN_OR_RETURN(ClusterInfo info, resolver.Resolve());
  return Create(info, std::move(options));
}

absl::Status MultiWorkerMirroredStrategy::Connect(
    const std::vector<Device*>& devices,
    const absl::StatusOr<internal::CrossWorkerEngine>& engine) {
  const std::string task = coordination::TaskName(info_);
  if (info_.coordinator_address.empty() ||
      info_.rank >= static_cast<int>(info_.worker_addresses.size())) {
    return InvalidArgument("MultiWorkerMirroredStrategy: ", task,
                           " needs the chief's and the workers' addresses (a cluster spec)");
  }
  if (info_.rank == 0) {
    // The service listens on every interface at the port of the chief's
    // own address, as TensorFlow's server does.
    coordination::CoordinationServiceOptions service;
    service.heartbeat_timeout = options_.heartbeat_timeout;
    TFD_ASSIGN_OR_RETURN(
        server_, coordination::CoordinationServer::Start(
                     absl::StrCat("0.0.0.0:", PortOf(info_.coordinator_address)),
                     coordination::CoordinatedTasks(info_.cluster_spec), service));
  }
  coordination::CoordinationClientOptions client;
  client.connect_timeout = options_.startup_timeout;
  client.heartbeat_interval = options_.heartbeat_interval;
  client.heartbeat_timeout = options_.heartbeat_timeout;
  TFD_ASSIGN_OR_RETURN(client_, coordination::CoordinationClient::Connect(
                                    info_.coordinator_address, task, client));
  TFD_RETURN_IF_ERROR(client_->WaitAtBarrier(kStartupBarrier, options_.startup_timeout));

  CoordinationIdStore store(client_.get());
  TFD_ASSIGN_OR_RETURN(internal::CrossWorkerEngine agreed,
                       internal::AgreeOnCrossWorkerEngine(
                           store, kEnginePrefix, info_.rank, info_.num_workers,
                           static_cast<int>(devices.size()), engine,
                           options_.communication.timeout));
  nccl_ = agreed == internal::CrossWorkerEngine::kNccl;
  GlooContextOptions gloo;
  gloo.rank = info_.rank;
  gloo.size = info_.num_workers;
  gloo.hostname = HostOf(info_.worker_addresses[info_.rank]);
  gloo.timeout = options_.communication.timeout;
  if (!nccl_) {
    gloo.prefix = kReplicaGlooPrefix;
    TFD_ASSIGN_OR_RETURN(replica_context_, ConnectGlooContext(*client_, gloo));
  }
  // Initial values and Reduce travel through Gloo, in host memory, whatever
  // carries the replicas' collectives.
  gloo.prefix = kControlGlooPrefix;
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<gloo::Context> control, ConnectGlooContext(*client_, gloo));
  control_ = std::make_unique<GlooCommunicator>(std::move(control));
  return absl::OkStatus();
}

MultiWorkerMirroredStrategy::~MultiWorkerMirroredStrategy() { (void)Shutdown(); }

absl::Status MultiWorkerMirroredStrategy::Shutdown() {
  if (shut_down_ || client_ == nullptr) return absl::OkStatus();
  shut_down_ = true;
  // A job that already failed is not waited for: the others may be gone.
  TFD_RETURN_IF_ERROR(client_->error());
  return client_->Shutdown(options_.shutdown_timeout);
}

absl::Status MultiWorkerMirroredStrategy::NameLostPeer(absl::Status error) const {
  if (error.ok() || client_ == nullptr) return error;
  if (error.code() != absl::StatusCode::kUnavailable &&
      error.code() != absl::StatusCode::kDeadlineExceeded) {
    return error;
  }
  // Gloo sees a dead peer as a closed socket or a timeout, without knowing
  // which task it was. The coordination service declares it dead once its
  // silence exceeds the heartbeat timeout (checked every quarter of it),
  // and our next heartbeat brings that home.
  const absl::Status job = client_->AwaitError(options_.heartbeat_timeout * 1.25 +
                                               3 * options_.heartbeat_interval);
  if (job.ok()) return error;
  return absl::Status(job.code(),
                      absl::StrCat(job.message(), " (the collective failed with: ",
                                   error.message(), ")"));
}

absl::StatusOr<PerReplica> MultiWorkerMirroredStrategy::Run(const ReplicaFn& fn) {
  absl::StatusOr<PerReplica> result = ReplicatedStrategy::Run(fn);
  if (result.ok()) return result;
  return NameLostPeer(result.status());
}

absl::StatusOr<std::vector<std::unique_ptr<Communicator>>>
MultiWorkerMirroredStrategy::MakeCommunicators() {
  if (client_ == nullptr) return ReplicatedStrategy::MakeCommunicators();
  if (communicators_made_) {
    // The workers cannot agree on a new Gloo or NCCL rendezvous in the
    // middle of a failed step: the job restarts instead, as in TensorFlow.
    return FailedPrecondition(name(), ": collectives across workers cannot be rebuilt after "
                              "a failure; restart the job");
  }
  communicators_made_ = true;
  if (nccl_) {
    // One NCCL rank per GPU replica of the job (Note [NCCL rank layout]).
    const internal::NcclRanks ranks =
        internal::NcclRanksOfWorker(info_.rank, info_.num_workers, num_local_replicas());
    CoordinationIdStore store(client_.get());
    NcclConnectOptions nccl;
    nccl.key = kNcclIdKey;
    nccl.first_rank = ranks.first;
    nccl.size = ranks.size;
    nccl.devices = replica_devices();
    nccl.timeout = options_.communication.timeout;
    return ConnectNcclCommunicators(store, nccl);
  }
  if (num_local_replicas() == 1) {
    std::vector<std::unique_ptr<Communicator>> comms;
    comms.push_back(std::make_unique<GlooCommunicator>(replica_context_));
    return comms;
  }
  // Several local replicas: the in-process collectives among them, then
  // Gloo between the workers (Note [Hierarchical collectives]).
  TFD_ASSIGN_OR_RETURN(std::vector<std::unique_ptr<Communicator>> local,
                       ReplicatedStrategy::MakeCommunicators());
  return CreateHierarchicalCommunicators(std::move(local),
                                         std::make_shared<GlooCommunicator>(replica_context_));
}

absl::StatusOr<Tensor> MultiWorkerMirroredStrategy::BroadcastFromChief(const Tensor& value) {
  if (control_ == nullptr) return value;
  TFD_ASSIGN_OR_RETURN(Tensor host, value.CopyTo(HostDevice()));
  BroadcastOptions options;
  options.root = 0;
  options.communication = options_.communication;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<CollectiveHandle> handle,
                       control_->Broadcast(host, options));
  absl::StatusOr<std::vector<Tensor>> chiefs = handle->Wait();
  if (!chiefs.ok()) return NameLostPeer(chiefs.status());
  return (*chiefs)[0];
}

absl::StatusOr<std::shared_ptr<DistributedVariable>>
MultiWorkerMirroredStrategy::CreateVariableInCrossReplica(const VariableSpec& spec) {
  if (spec.synchronization == VariableSynchronization::kNone) {
    // TensorFlow's words (ValueError in create_mirrored_variable).
    return InvalidArgument(
        "`NONE` variable synchronization mode is not supported with tf.distribute strategy. "
        "Please change the `synchronization` for variable: ",
        spec.name);
  }
  if (!spec.initial_value) {
    return InvalidArgument(name(), ": variable '", spec.name, "' has no initial value");
  }
  VariableSpec chiefs = spec;
  chiefs.initial_value = [this, init = spec.initial_value]() -> absl::StatusOr<Tensor> {
    TFD_ASSIGN_OR_RETURN(Tensor value, init());
    return BroadcastFromChief(value);
  };
  return MakeReplicatedVariable(chiefs, replica_devices());
}

absl::StatusOr<Tensor> MultiWorkerMirroredStrategy::Reduce(ReduceOp op,
                                                           absl::Span<const Tensor> per_replica) {
  TFD_ASSIGN_OR_RETURN(Tensor total, Strategy::Reduce(ReduceOp::kSum, per_replica));
  if (control_ != nullptr) {
    AllReduceOptions options;
    options.communication = options_.communication;
    absl::StatusOr<std::vector<Tensor>> sums = AllReduceAndWait(*control_, {total}, options);
    if (!sums.ok()) return NameLostPeer(sums.status());
    total = (*sums)[0];
  }
  if (op == ReduceOp::kSum) return total;
  TFD_ASSIGN_OR_RETURN(Tensor count,
                       Execute1("Cast", {Tensor::Scalar<int32_t>(num_replicas_in_sync())},
                                AttrMap().Set("DstT", total.dtype()), HostDevice()));
  return Execute1("RealDiv", {total, count}, AttrMap(), HostDevice());
}

absl::StatusOr<data::DistributedDatasetPtr>
MultiWorkerMirroredStrategy::ExperimentalDistributeDataset(data::DatasetPtr dataset,
                                                           data::AutoShardPolicy policy,
                                                           int64_t global_batch_size) const {
  data::DistributeOptions options;
  options.num_workers = num_workers();
  options.worker_index = worker_rank();
  options.auto_shard_policy = policy;
  options.global_batch_size = global_batch_size;
  options.input_options.replica_devices = replica_devices();
  return data::DistributeDataset(std::move(dataset), num_replicas_in_sync(), options);
}

absl::StatusOr<data::DistributedDatasetPtr>
MultiWorkerMirroredStrategy::DistributeDatasetsFromFunction(const data::DatasetFn& fn) const {
  data::InputOptions input_options;
  input_options.replica_devices = replica_devices();
  return data::DistributeDatasetsFromFunction(fn, num_replicas_in_sync(), num_workers(),
                                              worker_rank(), input_options);
}

}  // namespace distribute
}  // namespace tfd
