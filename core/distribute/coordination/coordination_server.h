// The coordination service served over gRPC, run by the chief (rank 0) of
// a multi-worker job. The bookkeeping is CoordinationState's; this class
// owns the gRPC server around it.
//
// Ownership: the server owns its state and its threads; destroying it
// stops serving (pending calls end with CANCELLED or UNAVAILABLE).
// Thread safety: all methods are thread-safe.
//
//   TFD_ASSIGN_OR_RETURN(auto server, CoordinationServer::Start(
//       "0.0.0.0:2222", CoordinatedTasks(info.cluster_spec), {}));
//   // workers connect with CoordinationClient::Connect(...)
#ifndef TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_SERVER_H_
#define TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_SERVER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/distribute/coordination/coordination_state.h"

namespace grpc {
class Server;
}  // namespace grpc

namespace tfd {
namespace coordination {

class CoordinationServer {
 public:
  // Serves `tasks` (TaskName()s) on `address` ("host:port"; port 0 picks a
  // free one, see port()). UNAVAILABLE naming the address when it cannot
  // be bound (in use, bad host); INVALID_ARGUMENT for no tasks.
  static absl::StatusOr<std::unique_ptr<CoordinationServer>> Start(
      const std::string& address, std::vector<std::string> tasks,
      CoordinationServiceOptions options = {});
  ~CoordinationServer();

  // The port actually bound.
  int port() const { return port_; }
  CoordinationState& state() { return *state_; }

 private:
  class Service;
  CoordinationServer() = default;

  int port_ = 0;
  std::unique_ptr<CoordinationState> state_;
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace coordination
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_COORDINATION_COORDINATION_SERVER_H_
