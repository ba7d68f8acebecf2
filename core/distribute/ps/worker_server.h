// The gRPC server of a parameter-server job's worker task: it runs the
// step functions the worker registered (worker_functions.h) for the
// chief's ClusterCoordinator, and keeps the per-worker iterators the
// coordinator makes until it releases them.
//
// Ownership: the server owns its functions, iterators and threads;
// destroying it stops serving (pending calls end with CANCELLED or
// UNAVAILABLE) and drops the iterators.
// Thread safety: all methods are thread-safe; gRPC runs each call on its
// own thread. Steps and iterator creations run one at a time, as a
// TensorFlow worker runs one scheduled function at a time; releasing an
// iterator does not wait for a running step (unless it reads that
// iterator, which then goes when the step ends).
//
//   TFD_ASSIGN_OR_RETURN(auto server, StartWorkerServer("0.0.0.0:2222", functions));
//   server->Wait();  // serves until the process is killed
#ifndef TFD_CORE_DISTRIBUTE_PS_WORKER_SERVER_H_
#define TFD_CORE_DISTRIBUTE_PS_WORKER_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/distribute/ps/ps_server.h"
#include "core/distribute/ps/worker_functions.h"

namespace tfd {
namespace ps {

class WorkerServiceImpl;

class WorkerServer {
 public:
  // Serves `functions` on `address` ("host:port"; port 0 picks one).
  // UNAVAILABLE naming the address when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> Start(const std::string& address,
                                                             WorkerFunctions functions);
  ~WorkerServer();
  int port() const { return host_->port(); }
  // Blocks until the server shuts down (never, for a server nobody stops).
  void Wait() { host_->Wait(); }
  // The iterators the worker keeps now: made and not released (what a
  // long job's evaluations must not grow).
  int num_live_iterators() const;

 private:
  WorkerServer() = default;
  WorkerServiceImpl* service_ = nullptr;  // Owned by host_.
  std::unique_ptr<ServiceHost> host_;
};

// WorkerServer::Start.
absl::StatusOr<std::unique_ptr<WorkerServer>> StartWorkerServer(const std::string& address,
                                                                WorkerFunctions functions);

}  // namespace ps
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PS_WORKER_SERVER_H_
