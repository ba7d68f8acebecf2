#include "core/distribute/ps/ps_client.h"

#include <algorithm>
#include <cstring>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/distribute/ps/float_tensor.h"
#include "core/distribute/ps/ps_service.grpc.pb.h"
#include "core/distribute/rpc/grpc_status.h"
#include "core/framework/status.h"
#include "grpcpp/grpcpp.h"

namespace tfd {
namespace ps {

class PsClient::Stubs {
 public:
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  std::vector<std::unique_ptr<ParameterServer::Stub>> stubs;
};

namespace {

// A call that failed because of the ps itself (down, or silent past the
// deadline) is UNAVAILABLE naming it; the ps's own answers (NOT_FOUND, ...)
// keep their code.
absl::Status CallStatus(const grpc::Status& status, const std::string& ps, const char* call) {
  if (status.ok()) return absl::OkStatus();
  absl::Status converted = rpc::FromGrpcStatus(status, call, " on parameter server ", ps);
  if (status.error_code() == grpc::StatusCode::UNAVAILABLE ||
      status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::UnavailableError(converted.message());
  }
  return converted;
}

}  // namespace

PsClient::PsClient(std::vector<std::string> addresses, PsClientOptions options)
    : addresses_(std::move(addresses)), options_(std::move(options)), stubs_(new Stubs) {
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(-1);
  args.SetMaxSendMessageSize(-1);
  // Reconnect quickly while ps tasks start (gRPC's backoff grows to minutes).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  for (const std::string& address : addresses_) {
    auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
    stubs_->stubs.push_back(ParameterServer::NewStub(channel));
    stubs_->channels.push_back(std::move(channel));
  }
}

PsClient::~PsClient() = default;

std::string PsClient::PsName(int ps) const {
  return absl::StrCat("/job:ps/replica:0/task:", ps, " at ", addresses_[ps]);
}

absl::StatusOr<std::unique_ptr<PsClient>> PsClient::Connect(std::vector<std::string> addresses,
                                                            PsClientOptions options) {
  if (addresses.empty()) return InvalidArgument("PsClient: no parameter servers given");
  std::unique_ptr<PsClient> client(new PsClient(std::move(addresses), std::move(options)));
  const auto deadline = absl::ToChronoTime(absl::Now() + client->options_.connect_timeout);
  for (int i = 0; i < client->num_ps(); ++i) {
    if (!client->stubs_->channels[i]->WaitForConnected(deadline)) {
      return absl::DeadlineExceededError(
          absl::StrCat("parameter server ", client->PsName(i), " did not come up within ",
                       absl::FormatDuration(client->options_.connect_timeout)));
    }
  }
  return client;
}

absl::Status PsClient::CreateVariable(const std::string& name, const Tensor& initial_value,
                                      const OptimizerConfig& optimizer) {
  if (initial_value.dtype() != DT_FLOAT) {
    return InvalidArgument("variable ", name, ": parameter servers hold float32, got ",
                           DataTypeName(initial_value.dtype()));
  }
  int64_t num_shards = 1;
  if (options_.partitioner) {
    TFD_ASSIGN_OR_RETURN(num_shards, options_.partitioner(initial_value.shape(), sizeof(float)));
  }
  Placement placement;
  placement.shape = initial_value.shape();
  {
    absl::MutexLock lock(&mu_);
    if (placements_.count(name) > 0) {
      return absl::AlreadyExistsError(absl::StrCat("variable ", name, " was already created"));
    }
    const int64_t rows = initial_value.rank() == 0 ? 1 : initial_value.dim(0);
    int64_t begin = 0;
    const std::vector<int64_t> shard_rows = ShardRows(rows, num_shards);
    for (int64_t j = 0; j < num_shards; ++j) {
      Shard shard;
      shard.name = num_shards == 1 ? name : absl::StrCat(name, "/part_", j);
      shard.ps = static_cast<int>((next_first_ps_ + j) % num_ps());
      shard.begin_row = begin;
      shard.end_row = begin + shard_rows[j];
      begin = shard.end_row;
      placement.shards.push_back(shard);
    }
    next_first_ps_ = (next_first_ps_ + 1) % num_ps();
    placements_[name] = placement;
  }
  for (const Shard& shard : placement.shards) {
    TFD_ASSIGN_OR_RETURN(Tensor part, Rows(initial_value, shard, placement));
    CreateVariableRequest request;
    request.set_name(shard.name);
    TFD_ASSIGN_OR_RETURN(*request.mutable_initial_value(), ToProto(part));
    *request.mutable_optimizer() = optimizer;
    CreateVariableResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    TFD_RETURN_IF_ERROR(CallStatus(stubs_->stubs[shard.ps]->CreateVariable(&context, request, &response),
                                   PsName(shard.ps), "CreateVariable"));
  }
  return absl::OkStatus();
}

absl::Status PsClient::ForEachShard(const Placement& placement,
                                    const std::function<absl::Status(const Shard&)>& call) const {
  if (placement.shards.size() == 1) return call(placement.shards[0]);
  std::vector<absl::Status> statuses(placement.shards.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < placement.shards.size(); ++i) {
    threads.emplace_back([&, i] { statuses[i] = call(placement.shards[i]); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const absl::Status& status : statuses) TFD_RETURN_IF_ERROR(status);
  return absl::OkStatus();
}

absl::StatusOr<PsClient::Placement> PsClient::Find(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = placements_.find(name);
  if (it == placements_.end()) return NotFound("no parameter-server variable ", name);
  return it->second;
}

int PsClient::NumShards(const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = placements_.find(name);
  return it == placements_.end() ? 0 : static_cast<int>(it->second.shards.size());
}

absl::StatusOr<Tensor> PsClient::Rows(const Tensor& t, const Shard& shard, const Placement& p) {
  if (t.shape().dims() != p.shape.dims()) {
    return InvalidArgument("parameter-server variable ", shard.name, ": expected shape ",
                           p.shape.DebugString(), ", got ", t.shape().DebugString());
  }
  if (t.rank() == 0) return t;
  return t.Slice(shard.begin_row, shard.end_row);
}

absl::StatusOr<Tensor> PsClient::Read(const std::string& name, int64_t* step) {
  TFD_ASSIGN_OR_RETURN(State state, ReadShards(name, /*with_optimizer_state=*/false));
  if (step != nullptr) *step = state.step;
  return state.value;
}

absl::StatusOr<PsClient::State> PsClient::ReadState(const std::string& name) {
  return ReadShards(name, /*with_optimizer_state=*/true);
}

absl::StatusOr<PsClient::State> PsClient::ReadShards(const std::string& name,
                                                     bool with_optimizer_state) {
  TFD_ASSIGN_OR_RETURN(Placement placement, Find(name));
  State state;
  state.value = Tensor(DT_FLOAT, placement.shape);
  const int64_t row_elements = placement.shape.rank() == 0
                                   ? 1
                                   : state.value.NumElements() /
                                         std::max<int64_t>(1, state.value.dim(0));
  absl::Mutex mu;  // Guards the slots' allocation and the optimizer's state.
  TFD_RETURN_IF_ERROR(ForEachShard(placement, [&](const Shard& shard) -> absl::Status {
    ReadVariableRequest request;
    request.set_name(shard.name);
    request.set_with_optimizer_state(with_optimizer_state);
    ReadVariableResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    TFD_RETURN_IF_ERROR(CallStatus(stubs_->stubs[shard.ps]->ReadVariable(&context, request, &response),
                                   PsName(shard.ps), "ReadVariable"));
    const int64_t expected = (shard.end_row - shard.begin_row) * row_elements;
    // Shards own disjoint rows: concurrent copies do not overlap.
    auto copy_rows = [&](const FloatTensor& proto, Tensor& whole) -> absl::Status {
      TFD_ASSIGN_OR_RETURN(Tensor part, FromProto(proto));
      if (part.NumElements() != expected) {
        return Internal("parameter server ", PsName(shard.ps), " returned ", part.NumElements(),
                        " values for ", shard.name, ", expected ", expected);
      }
      std::memcpy(whole.data<float>() + shard.begin_row * row_elements, part.data<float>(),
                  expected * sizeof(float));
      return absl::OkStatus();
    };
    TFD_RETURN_IF_ERROR(copy_rows(response.value(), state.value));
    if (shard.begin_row == 0) {
      absl::MutexLock lock(&mu);
      state.step = response.step();
    }
    if (!with_optimizer_state) return absl::OkStatus();
    {
      absl::MutexLock lock(&mu);
      if (shard.begin_row == 0) state.optimizer = response.optimizer();
      if (state.slots.empty()) {
        for (int i = 0; i < response.slots_size(); ++i) {
          state.slots.emplace_back(DT_FLOAT, placement.shape);
        }
      }
      if (static_cast<int>(state.slots.size()) != response.slots_size()) {
        return Internal("the shards of ", name, " keep different numbers of optimizer slots");
      }
    }
    for (int i = 0; i < response.slots_size(); ++i) {
      TFD_RETURN_IF_ERROR(copy_rows(response.slots(i), state.slots[i]));
    }
    return absl::OkStatus();
  }));
  return state;
}

absl::Status PsClient::Assign(const std::string& name, const Tensor& value) {
  State state;
  state.value = value;
  return AssignShards(name, state, /*with_optimizer_state=*/false);
}

absl::Status PsClient::AssignState(const std::string& name, const State& state) {
  return AssignShards(name, state, /*with_optimizer_state=*/true);
}

absl::Status PsClient::AssignShards(const std::string& name, const State& state,
                                    bool with_optimizer_state) {
  TFD_ASSIGN_OR_RETURN(Placement placement, Find(name));
  return ForEachShard(placement, [&](const Shard& shard) -> absl::Status {
    AssignVariableRequest request;
    request.set_name(shard.name);
    TFD_ASSIGN_OR_RETURN(Tensor part, Rows(state.value, shard, placement));
    TFD_ASSIGN_OR_RETURN(*request.mutable_value(), ToProto(part));
    if (with_optimizer_state) {
      request.set_with_optimizer_state(true);
      *request.mutable_optimizer() = state.optimizer;
      request.set_step(state.step);
      for (const Tensor& slot : state.slots) {
        TFD_ASSIGN_OR_RETURN(Tensor slot_part, Rows(slot, shard, placement));
        TFD_ASSIGN_OR_RETURN(*request.add_slots(), ToProto(slot_part));
      }
    }
    AssignVariableResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    return CallStatus(stubs_->stubs[shard.ps]->AssignVariable(&context, request, &response),
                      PsName(shard.ps), "AssignVariable");
  });
}

absl::Status PsClient::ApplyGradient(const std::string& name, const Tensor& gradient,
                                     const OptimizerConfig* optimizer) {
  TFD_ASSIGN_OR_RETURN(Placement placement, Find(name));
  return ForEachShard(placement, [&](const Shard& shard) -> absl::Status {
    TFD_ASSIGN_OR_RETURN(Tensor part, Rows(gradient, shard, placement));
    ApplyGradientRequest request;
    request.set_name(shard.name);
    TFD_ASSIGN_OR_RETURN(*request.mutable_gradient(), ToProto(part));
    if (optimizer != nullptr) *request.mutable_optimizer() = *optimizer;
    ApplyGradientResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    return CallStatus(stubs_->stubs[shard.ps]->ApplyGradient(&context, request, &response),
                      PsName(shard.ps), "ApplyGradient");
  });
}

absl::Status PsClient::AssignSub(const std::string& name, const Tensor& delta) {
  TFD_ASSIGN_OR_RETURN(Placement placement, Find(name));
  return ForEachShard(placement, [&](const Shard& shard) -> absl::Status {
    TFD_ASSIGN_OR_RETURN(Tensor part, Rows(delta, shard, placement));
    AssignSubVariableRequest request;
    request.set_name(shard.name);
    TFD_ASSIGN_OR_RETURN(*request.mutable_delta(), ToProto(part));
    AssignSubVariableResponse response;
    grpc::ClientContext context;
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.rpc_timeout));
    return CallStatus(stubs_->stubs[shard.ps]->AssignSubVariable(&context, request, &response),
                      PsName(shard.ps), "AssignSubVariable");
  });
}

}  // namespace ps
}  // namespace tfd
