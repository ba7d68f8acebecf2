#include "core/distribute/ps/ps_server.h"

#include <chrono>
#include <utility>

#include "core/distribute/ps/float_tensor.h"
#include "core/distribute/ps/ps_service.grpc.pb.h"
#include "core/distribute/rpc/exclusive_port.h"
#include "core/distribute/rpc/grpc_status.h"
#include "core/framework/status.h"
#include "grpcpp/grpcpp.h"

namespace tfd {
namespace ps {
namespace {

using rpc::ToGrpcStatus;

class ParameterServerService final : public ParameterServer::Service {
 public:
  grpc::Status CreateVariable(grpc::ServerContext*, const CreateVariableRequest* request,
                              CreateVariableResponse*) override {
    absl::StatusOr<Tensor> value = FromProto(request->initial_value());
    if (!value.ok()) return ToGrpcStatus(value.status());
    return ToGrpcStatus(store_.Create(request->name(), *value, request->optimizer()));
  }

  grpc::Status ReadVariable(grpc::ServerContext*, const ReadVariableRequest* request,
                            ReadVariableResponse* response) override {
    return ToGrpcStatus(Read(*request, response));
  }

  grpc::Status AssignVariable(grpc::ServerContext*, const AssignVariableRequest* request,
                              AssignVariableResponse*) override {
    return ToGrpcStatus(Assign(*request));
  }

  grpc::Status ApplyGradient(grpc::ServerContext*, const ApplyGradientRequest* request,
                             ApplyGradientResponse*) override {
    absl::StatusOr<Tensor> gradient = FromProto(request->gradient());
    if (!gradient.ok()) return ToGrpcStatus(gradient.status());
    return ToGrpcStatus(store_.ApplyGradient(
        request->name(), *gradient, request->has_optimizer() ? &request->optimizer() : nullptr));
  }

  grpc::Status AssignSubVariable(grpc::ServerContext*, const AssignSubVariableRequest* request,
                                 AssignSubVariableResponse*) override {
    absl::StatusOr<Tensor> delta = FromProto(request->delta());
    if (!delta.ok()) return ToGrpcStatus(delta.status());
    return ToGrpcStatus(store_.AssignSub(request->name(), *delta));
  }

 private:
  absl::Status Read(const ReadVariableRequest& request, ReadVariableResponse* response) {
    if (!request.with_optimizer_state()) {
      int64_t step = 0;
      TFD_ASSIGN_OR_RETURN(Tensor value, store_.Read(request.name(), &step));
      TFD_ASSIGN_OR_RETURN(*response->mutable_value(), ToProto(value));
      response->set_step(step);
      return absl::OkStatus();
    }
    TFD_ASSIGN_OR_RETURN(VariableStore::State state, store_.ReadState(request.name()));
    TFD_ASSIGN_OR_RETURN(*response->mutable_value(), ToProto(state.value));
    for (const Tensor& slot : state.slots) {
      TFD_ASSIGN_OR_RETURN(*response->add_slots(), ToProto(slot));
    }
    response->set_step(state.step);
    *response->mutable_optimizer() = state.optimizer;
    return absl::OkStatus();
  }

  absl::Status Assign(const AssignVariableRequest& request) {
    TFD_ASSIGN_OR_RETURN(Tensor value, FromProto(request.value()));
    if (!request.with_optimizer_state()) return store_.Assign(request.name(), value);
    VariableStore::State state;
    state.value = std::move(value);
    state.optimizer = request.optimizer();
    for (const FloatTensor& slot : request.slots()) {
      TFD_ASSIGN_OR_RETURN(Tensor t, FromProto(slot));
      state.slots.push_back(std::move(t));
    }
    state.step = request.step();
    return store_.AssignState(request.name(), state);
  }

  VariableStore store_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ServiceHost>> ServiceHost::Start(
    const std::string& address, std::unique_ptr<grpc::Service> service) {
  std::unique_ptr<ServiceHost> host(new ServiceHost());
  host->service_ = std::move(service);
  grpc::ServerBuilder builder;
  rpc::ListenExclusively(builder, address, &host->port_);
  builder.RegisterService(host->service_.get());
  // Gradients and variables of real models exceed gRPC's 4 MiB default.
  builder.SetMaxReceiveMessageSize(-1);
  builder.SetMaxSendMessageSize(-1);
  host->server_ = builder.BuildAndStart();
  if (host->server_ == nullptr || host->port_ == 0) {
    return absl::UnavailableError(absl::StrCat("cannot serve on ", address));
  }
  return host;
}

ServiceHost::~ServiceHost() {
  if (server_ != nullptr) server_->Shutdown(std::chrono::system_clock::now());
}

void ServiceHost::Wait() { server_->Wait(); }

absl::StatusOr<std::unique_ptr<ServiceHost>> StartParameterServer(const std::string& address) {
  return ServiceHost::Start(address, std::make_unique<ParameterServerService>());
}

}  // namespace ps
}  // namespace tfd
