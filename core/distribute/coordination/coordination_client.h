// A task's connection to the coordination service (coordination_server.h).
//
// Connect() registers the task -- waiting for the chief to come up, within
// its timeout -- and starts a thread that heartbeats every
// heartbeat_interval. When a heartbeat brings back the job's error (another
// task died) or the service cannot be reached for heartbeat_timeout, the
// client records the error: error() returns it and every later call fails
// with it, so a worker never waits on a job that is already lost.
//
// Every call that waits takes a timeout; gRPC's own deadline is that
// timeout plus a margin, so a service that died mid-call still ends the
// call (UNAVAILABLE or DEADLINE_EXCEEDED naming the service's address).
//
// Thread safety: all methods are thread-safe; calls may overlap.
//
//   TFD_ASSIGN_OR_RETURN(auto client, CoordinationClient::Connect(
//       info.coordinator_address, TaskName(info), {}));
//   TFD_RETURN_IF_ERROR(client->WaitAtBarrier("startup", absl::Seconds(60)));
//   TFD_RETURN_IF_ERROR(client->SetKeyValue("gloo/0", address));
//   ...
//   TFD_RETURN_IF_ERROR(client->Shutdown(absl::Seconds(60)));
#ifndef TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_CLIENT_H_
#define TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_CLIENT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"

namespace grpc {
class Channel;
}  // namespace grpc

namespace tfd {
namespace coordination {

struct CoordinationClientOptions {
  // How long Connect waits for the service to come up and register us.
  absl::Duration connect_timeout = absl::Seconds(60);
  absl::Duration heartbeat_interval = absl::Seconds(1);
  // The service unreachable this long makes the client fail (UNAVAILABLE).
  absl::Duration heartbeat_timeout = absl::Seconds(10);
};

class CoordinationClient {
 public:
  // Registers `task` with the service at `address` ("host:port").
  // DEADLINE_EXCEEDED naming the address when the service does not answer
  // within connect_timeout; the service's INVALID_ARGUMENT for a task not
  // in its cluster spec.
  static absl::StatusOr<std::unique_ptr<CoordinationClient>> Connect(
      const std::string& address, const std::string& task,
      CoordinationClientOptions options = {});
  // Stops heartbeating (without Shutdown: the service will declare this
  // task dead unless it shut down).
  ~CoordinationClient();

  const std::string& task() const { return task_; }
  const std::string& address() const { return address_; }

  // Waits until every task of the job reached barrier `id`.
  absl::Status WaitAtBarrier(const std::string& id, absl::Duration timeout);
  absl::Status SetKeyValue(const std::string& key, const std::string& value);
  // Waits up to `timeout` for `key` to be set.
  absl::StatusOr<std::string> GetKeyValue(const std::string& key, absl::Duration timeout);
  // Stops heartbeating and waits up to `timeout` for every task to shut
  // down. Later calls fail with FAILED_PRECONDITION.
  absl::Status Shutdown(absl::Duration timeout);

  // The error that ended this client's job (OK while healthy).
  absl::Status error() const;
  // Waits up to `timeout` for the job's error to arrive (a peer that died
  // is declared by the service within its heartbeat timeout) and returns
  // it; OK if none came.
  absl::Status AwaitError(absl::Duration timeout) const;

 private:
  CoordinationClient(std::string address, std::string task, CoordinationClientOptions options);
  void HeartbeatLoop();
  // The recorded error, or FAILED_PRECONDITION after Shutdown.
  absl::Status CheckUsable() const;
  void RecordError(absl::Status error);

  const std::string address_;
  const std::string task_;
  const CoordinationClientOptions options_;
  const uint64_t incarnation_;
  std::shared_ptr<grpc::Channel> channel_;
  class Stub;
  std::unique_ptr<Stub> stub_;

  mutable absl::Mutex mu_;
  absl::Status error_ ABSL_GUARDED_BY(mu_);
  bool stopping_ ABSL_GUARDED_BY(mu_) = false;
  bool shut_down_ ABSL_GUARDED_BY(mu_) = false;
  std::thread heartbeats_;
};

}  // namespace coordination
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_CLIENT_H_
