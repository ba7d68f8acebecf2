#include "core/distribute/ps/worker_server.h"

#include <map>
#include <utility>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/distribute/ps/float_tensor.h"
#include "core/distribute/ps/ps_service.grpc.pb.h"
#include "core/distribute/rpc/grpc_status.h"
#include "core/framework/status.h"
#include "grpcpp/grpcpp.h"

namespace tfd {
namespace ps {

using rpc::ToGrpcStatus;

class WorkerServiceImpl final : public WorkerService::Service {
 public:
  explicit WorkerServiceImpl(WorkerFunctions functions) : functions_(std::move(functions)) {}

  grpc::Status RunFunction(grpc::ServerContext*, const RunFunctionRequest* request,
                           RunFunctionResponse* response) override {
    const absl::Status status = Run(*request, response);
    if (!status.ok()) {
      response->clear_outputs();
      response->set_error_code(static_cast<int>(status.code()));
      response->set_error_message(std::string(status.message()));
    }
    return grpc::Status::OK;
  }

  grpc::Status MakeIterator(grpc::ServerContext*, const MakeIteratorRequest* request,
                            MakeIteratorResponse*) override {
    return ToGrpcStatus(NewIterator(request->dataset(), request->iterator_id()));
  }

  grpc::Status ReleaseIterator(grpc::ServerContext*, const ReleaseIteratorRequest* request,
                               ReleaseIteratorResponse* response) override {
    std::shared_ptr<data::Iterator> released;
    {
      absl::MutexLock lock(&iterators_mu_);
      auto it = iterators_.find(request->iterator_id());
      if (it != iterators_.end()) {
        released = std::move(it->second);
        iterators_.erase(it);
      }
    }
    response->set_released(released != nullptr);
    // Destroyed here, outside the lock (its prefetch threads join), unless
    // a running step still holds it: then when that step ends.
    released.reset();
    return grpc::Status::OK;
  }

  int num_live_iterators() const {
    absl::MutexLock lock(&iterators_mu_);
    return static_cast<int>(iterators_.size());
  }

 private:
  absl::Status NewIterator(const std::string& dataset, int64_t id) {
    auto it = functions_.datasets.find(dataset);
    if (it == functions_.datasets.end()) return NotFound("worker has no dataset function ", dataset);
    if (id <= 0) return InvalidArgument("iterator ids are positive, got ", id);
    std::shared_ptr<data::Iterator> made;
    {
      absl::MutexLock lock(&run_mu_);
      TFD_ASSIGN_OR_RETURN(data::DatasetPtr built, it->second());
      if (built == nullptr) return InvalidArgument("dataset function ", dataset, " returned null");
      TFD_ASSIGN_OR_RETURN(made, built->MakeIterator());
    }
    // Made again under a known id (the coordinator took this worker back
    // after losing it): the new one replaces the old, which goes here,
    // outside the lock.
    std::shared_ptr<data::Iterator> replaced;
    absl::MutexLock lock(&iterators_mu_);
    replaced = std::exchange(iterators_[id], std::move(made));
    return absl::OkStatus();
  }

  absl::Status Run(const RunFunctionRequest& request, RunFunctionResponse* response) {
    auto it = functions_.steps.find(request.function());
    if (it == functions_.steps.end()) {
      return NotFound("worker has no step function ", request.function());
    }
    std::vector<Tensor> arguments;
    for (const FloatTensor& proto : request.arguments()) {
      TFD_ASSIGN_OR_RETURN(Tensor t, FromProto(proto));
      arguments.push_back(std::move(t));
    }
    absl::MutexLock lock(&run_mu_);
    // Held for the step: a release meanwhile leaves it to this step.
    std::shared_ptr<data::Iterator> iterator;
    if (request.iterator_id() != 0) {
      absl::MutexLock iterators_lock(&iterators_mu_);
      auto found = iterators_.find(request.iterator_id());
      if (found == iterators_.end()) {
        return NotFound("worker has no iterator ", request.iterator_id(),
                        " (MakeIterator was not called on it, or it was released)");
      }
      iterator = found->second;
    }
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, it->second(iterator.get(), arguments));
    for (const Tensor& t : outputs) {
      TFD_ASSIGN_OR_RETURN(*response->add_outputs(), ToProto(t));
    }
    return absl::OkStatus();
  }

  const WorkerFunctions functions_;
  absl::Mutex run_mu_;  // One step or iterator creation at a time.
  mutable absl::Mutex iterators_mu_;
  std::map<int64_t, std::shared_ptr<data::Iterator>> iterators_ ABSL_GUARDED_BY(iterators_mu_);
};

absl::StatusOr<std::unique_ptr<WorkerServer>> WorkerServer::Start(const std::string& address,
                                                                  WorkerFunctions functions) {
  auto service = std::make_unique<WorkerServiceImpl>(std::move(functions));
  std::unique_ptr<WorkerServer> server(new WorkerServer());
  server->service_ = service.get();
  TFD_ASSIGN_OR_RETURN(server->host_, ServiceHost::Start(address, std::move(service)));
  return server;
}

WorkerServer::~WorkerServer() = default;

int WorkerServer::num_live_iterators() const { return service_->num_live_iterators(); }

absl::StatusOr<std::unique_ptr<WorkerServer>> StartWorkerServer(const std::string& address,
                                                                WorkerFunctions functions) {
  return WorkerServer::Start(address, std::move(functions));
}

}  // namespace ps
}  // namespace tfd
