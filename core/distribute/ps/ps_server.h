// The gRPC server of a parameter-server job's ps tasks
// (StartParameterServer, serving a VariableStore), and the host of one
// gRPC service that it and the workers' server (worker_server.h) share.
//
// Ownership: each server owns its state and threads; destroying it stops
// serving (pending calls end with CANCELLED or UNAVAILABLE).
// Thread safety: all methods are thread-safe; gRPC runs each call on its
// own thread.
//
//   TFD_ASSIGN_OR_RETURN(auto ps, StartParameterServer("0.0.0.0:2223"));
//   ps->Wait();  // serves until the process is killed
#ifndef TFD_CORE_DISTRIBUTE_PS_PS_SERVER_H_
#define TFD_CORE_DISTRIBUTE_PS_PS_SERVER_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/distribute/ps/variable_store.h"
#include "core/framework/tensor.h"

namespace grpc {
class Server;
class Service;
}  // namespace grpc

namespace tfd {
namespace ps {

// A gRPC server around one service; the port it bound and a blocking Wait.
class ServiceHost {
 public:
  // UNAVAILABLE naming the address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<ServiceHost>> Start(
      const std::string& address, std::unique_ptr<grpc::Service> service);
  ~ServiceHost();
  int port() const { return port_; }
  // Blocks until the server shuts down (never, for a server nobody stops).
  void Wait();

 private:
  ServiceHost() = default;
  int port_ = 0;
  std::unique_ptr<grpc::Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

// Serves a fresh VariableStore on `address` ("host:port"; port 0 picks one).
absl::StatusOr<std::unique_ptr<ServiceHost>> StartParameterServer(const std::string& address);

}  // namespace ps
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PS_PS_SERVER_H_
