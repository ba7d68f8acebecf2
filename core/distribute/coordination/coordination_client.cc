#include "core/distribute/coordination/coordination_client.h"

#include <chrono>
#include <random>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/distribute/coordination/coordination_service.grpc.pb.h"
#include "core/distribute/rpc/grpc_status.h"
#include "core/framework/status.h"
#include "grpcpp/grpcpp.h"

namespace tfd {
namespace coordination {
namespace {

// What a waiting call adds to its own timeout for gRPC's deadline: the
// service answers first with its own, more precise error.
constexpr absl::Duration kRpcMargin = absl::Seconds(5);
// The deadline of calls that do not wait (set, heartbeat).
constexpr absl::Duration kShortRpcTimeout = absl::Seconds(10);

void SetDeadline(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(absl::ToChronoTime(absl::Now() + timeout));
}

uint64_t NewIncarnation() {
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) | device();
}

}  // namespace

class CoordinationClient::Stub {
 public:
  explicit Stub(const std::shared_ptr<grpc::Channel>& channel)
      : stub(CoordinationService::NewStub(channel)) {}
  std::unique_ptr<CoordinationService::Stub> stub;
};

CoordinationClient::CoordinationClient(std::string address, std::string task,
                                       CoordinationClientOptions options)
    : address_(std::move(address)),
      task_(std::move(task)),
      options_(options),
      incarnation_(NewIncarnation()) {
  grpc::ChannelArguments args;
  // Reconnect quickly while the chief is starting (gRPC's default backoff
  // grows to two minutes).
  args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
  args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
  channel_ = grpc::CreateCustomChannel(address_, grpc::InsecureChannelCredentials(), args);
  stub_ = std::make_unique<Stub>(channel_);
}

absl::StatusOr<std::unique_ptr<CoordinationClient>> CoordinationClient::Connect(
    const std::string& address, const std::string& task, CoordinationClientOptions options) {
  if (options.heartbeat_interval <= absl::ZeroDuration() ||
      options.heartbeat_timeout <= options.heartbeat_interval) {
    return InvalidArgument("CoordinationClient: the heartbeat interval (",
                           absl::FormatDuration(options.heartbeat_interval),
                           ") must be positive and shorter than the heartbeat timeout (",
                           absl::FormatDuration(options.heartbeat_timeout), ")");
  }
  std::unique_ptr<CoordinationClient> client(new CoordinationClient(address, task, options));

  RegisterTaskRequest request;
  request.set_task(task);
  request.set_incarnation(client->incarnation_);
  RegisterTaskResponse response;
  grpc::ClientContext context;
  // Wait for the service to come up rather than fail at once: workers may
  // start before the chief.
  context.set_wait_for_ready(true);
  SetDeadline(context, options.connect_timeout);
  grpc::Status status = client->stub_->stub->RegisterTask(&context, request, &response);
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    return absl::DeadlineExceededError(absl::StrCat(
        "task ", task, " could not reach the coordination service at ", address, " within ",
        absl::FormatDuration(options.connect_timeout), " (is the chief running?)"));
  }
  TFD_RETURN_IF_ERROR(rpc::FromGrpcStatus(status, "registering ", task,
                                          " with the coordination service at ", address));
  client->heartbeats_ = std::thread([c = client.get()] { c->HeartbeatLoop(); });
  return client;
}

CoordinationClient::~CoordinationClient() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
  }
  if (heartbeats_.joinable()) heartbeats_.join();
}

void CoordinationClient::HeartbeatLoop() {
  absl::Time last_contact = absl::Now();
  absl::MutexLock lock(&mu_);
  while (!stopping_) {
    mu_.AwaitWithTimeout(absl::Condition(&stopping_), options_.heartbeat_interval);
    if (stopping_) break;
    mu_.Unlock();
    HeartbeatRequest request;
    request.set_task(task_);
    request.set_incarnation(incarnation_);
    HeartbeatResponse response;
    grpc::ClientContext context;
    SetDeadline(context, options_.heartbeat_interval);
    grpc::Status status = stub_->stub->Heartbeat(&context, request, &response);
    const absl::Time now = absl::Now();
    mu_.Lock();
    if (status.ok()) {
      last_contact = now;
      // The service's word on the job (a peer died).
      if (response.job_error_code() != 0 && error_.ok()) {
        error_ = absl::Status(static_cast<absl::StatusCode>(response.job_error_code()),
                              response.job_error_message());
      }
    } else if (status.error_code() != grpc::StatusCode::UNAVAILABLE &&
               status.error_code() != grpc::StatusCode::DEADLINE_EXCEEDED) {
      // The service refused this task (e.g. a stale incarnation).
      if (error_.ok()) error_ = rpc::FromGrpcStatus(status, "heartbeat of ", task_);
    } else if (now - last_contact > options_.heartbeat_timeout && error_.ok()) {
      error_ = absl::UnavailableError(absl::StrCat(
          "task ", task_, " lost the coordination service at ", address_, ": no answer for ",
          absl::FormatDuration(now - last_contact), " (", status.error_message(), ")"));
    }
  }
}

absl::Status CoordinationClient::error() const {
  absl::MutexLock lock(&mu_);
  return error_;
}

absl::Status CoordinationClient::AwaitError(absl::Duration timeout) const {
  absl::MutexLock lock(&mu_);
  auto failed = [this]() ABSL_SHARED_LOCKS_REQUIRED(mu_) { return !error_.ok() || stopping_; };
  mu_.AwaitWithTimeout(absl::Condition(&failed), timeout);
  return error_;
}

absl::Status CoordinationClient::CheckUsable() const {
  absl::MutexLock lock(&mu_);
  if (shut_down_) {
    return FailedPrecondition("CoordinationClient: task ", task_, " has shut down");
  }
  return error_;
}

void CoordinationClient::RecordError(absl::Status error) {
  absl::MutexLock lock(&mu_);
  if (error_.ok()) error_ = std::move(error);
}

absl::Status CoordinationClient::WaitAtBarrier(const std::string& id, absl::Duration timeout) {
  TFD_RETURN_IF_ERROR(CheckUsable());
  BarrierRequest request;
  request.set_barrier_id(id);
  request.set_task(task_);
  request.set_timeout_ms(absl::ToInt64Milliseconds(timeout));
  BarrierResponse response;
  grpc::ClientContext context;
  SetDeadline(context, timeout + kRpcMargin);
  absl::Status status =
      rpc::FromGrpcStatus(stub_->stub->Barrier(&context, request, &response), "barrier '", id,
                          "' of ", task_, " at ", address_);
  // A failed barrier fails the job on the service too.
  if (!status.ok()) RecordError(status);
  return status;
}

absl::Status CoordinationClient::SetKeyValue(const std::string& key, const std::string& value) {
  TFD_RETURN_IF_ERROR(CheckUsable());
  SetKeyValueRequest request;
  request.set_key(key);
  request.set_value(value);
  SetKeyValueResponse response;
  grpc::ClientContext context;
  SetDeadline(context, kShortRpcTimeout);
  return rpc::FromGrpcStatus(stub_->stub->SetKeyValue(&context, request, &response),
                             "setting '", key, "' on the coordination service at ", address_);
}

absl::StatusOr<std::string> CoordinationClient::GetKeyValue(const std::string& key,
                                                            absl::Duration timeout) {
  TFD_RETURN_IF_ERROR(CheckUsable());
  GetKeyValueRequest request;
  request.set_key(key);
  request.set_timeout_ms(absl::ToInt64Milliseconds(timeout));
  GetKeyValueResponse response;
  grpc::ClientContext context;
  SetDeadline(context, timeout + kRpcMargin);
  grpc::Status status = stub_->stub->GetKeyValue(&context, request, &response);
  if (!status.ok()) {
    return rpc::FromGrpcStatus(status, "getting '", key, "' from the coordination service at ",
                               address_);
  }
  return std::move(*response.mutable_value());
}

absl::Status CoordinationClient::Shutdown(absl::Duration timeout) {
  {
    absl::MutexLock lock(&mu_);
    if (shut_down_) return FailedPrecondition("CoordinationClient: ", task_, " shut down twice");
    shut_down_ = true;
    stopping_ = true;
  }
  if (heartbeats_.joinable()) heartbeats_.join();
  ShutdownTaskRequest request;
  request.set_task(task_);
  request.set_timeout_ms(absl::ToInt64Milliseconds(timeout));
  ShutdownTaskResponse response;
  grpc::ClientContext context;
  SetDeadline(context, timeout + kRpcMargin);
  return rpc::FromGrpcStatus(stub_->stub->ShutdownTask(&context, request, &response),
                             "shutting down ", task_);
}

}  // namespace coordination
}  // namespace tfd
