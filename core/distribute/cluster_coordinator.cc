#include "core/distribute/cluster_coordinator.h"

#include <algorithm>
#include <iostream>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/distribute/ps/float_tensor.h"
#include "core/distribute/ps/ps_service.grpc.pb.h"
#include "core/distribute/rpc/grpc_status.h"
#include "core/framework/status.h"
#include "grpcpp/grpcpp.h"

namespace tfd {
namespace distribute {

class ClusterCoordinator::WorkerChannel {
 public:
  explicit WorkerChannel(std::string address) : address(std::move(address)) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    // Reconnect quickly while workers start (gRPC's backoff grows to minutes).
    args.SetInt(GRPC_ARG_INITIAL_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MIN_RECONNECT_BACKOFF_MS, 100);
    args.SetInt(GRPC_ARG_MAX_RECONNECT_BACKOFF_MS, 1000);
    channel = grpc::CreateCustomChannel(this->address, grpc::InsecureChannelCredentials(), args);
    stub = ps::WorkerService::NewStub(channel);
  }
  const std::string address;
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<ps::WorkerService::Stub> stub;
};

namespace {

// How often a lost worker's address is looked at again.
constexpr absl::Duration kRecoveryPoll = absl::Milliseconds(200);

bool Unreachable(const grpc::Status& call) {
  return call.error_code() == grpc::StatusCode::UNAVAILABLE ||
         call.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED;
}

}  // namespace

ClusterCoordinator::ClusterCoordinator(ClusterCoordinatorOptions options) : options_(options) {}

absl::StatusOr<std::unique_ptr<ClusterCoordinator>> ClusterCoordinator::Create(
    std::vector<std::string> worker_addresses, ClusterCoordinatorOptions options) {
  if (worker_addresses.empty()) return InvalidArgument("ClusterCoordinator: no workers given");
  std::unique_ptr<ClusterCoordinator> coordinator(new ClusterCoordinator(options));
  for (std::string& address : worker_addresses) {
    coordinator->workers_.push_back(std::make_unique<WorkerChannel>(std::move(address)));
  }
  {
    absl::MutexLock lock(&coordinator->mu_);
    coordinator->live_workers_ = static_cast<int>(coordinator->workers_.size());
    coordinator->lost_.assign(coordinator->workers_.size(), false);
    coordinator->answered_.assign(coordinator->workers_.size(), false);
  }
  for (size_t i = 0; i < coordinator->workers_.size(); ++i) {
    coordinator->threads_.emplace_back(&ClusterCoordinator::WorkerLoop, coordinator.get(),
                                       static_cast<int>(i));
  }
  return coordinator;
}

ClusterCoordinator::~ClusterCoordinator() {
  {
    absl::MutexLock lock(&mu_);
    stopping_ = true;
    FailPendingLocked(absl::CancelledError("ClusterCoordinator destroyed before the step ran"));
  }
  for (std::thread& thread : threads_) thread.join();
}

std::shared_ptr<RemoteValue> ClusterCoordinator::Schedule(const std::string& function,
                                                          const PerWorkerIterator& iterator,
                                                          std::vector<Tensor> arguments) {
  auto result = std::make_shared<RemoteValue>();
  for (size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].dtype() != DT_FLOAT) {
      result->Set(InvalidArgument("cannot schedule ", function, ": argument ", i, " is ",
                                  DataTypeName(arguments[i].dtype()),
                                  "; the workers take float32 arguments"));
      return result;
    }
  }
  absl::MutexLock lock(&mu_);
  if (live_workers_ == 0) {
    result->Set(absl::UnavailableError(
        absl::StrCat("cannot schedule ", function, ": every worker of the job was lost")));
    return result;
  }
  if (iterator.id != 0) ++readers_[iterator.id];
  pending_.push_back(Closure{next_id_++, function, iterator.id, std::move(arguments), result});
  return result;
}

absl::StatusOr<PerWorkerIterator> ClusterCoordinator::CreatePerWorkerIterator(
    const std::string& dataset) {
  PerWorkerIterator iterator;
  iterator.dataset = dataset;
  std::vector<bool> lost;
  {
    absl::MutexLock lock(&mu_);
    iterator.id = next_iterator_id_++;
    lost = lost_;
    // A worker that comes back makes it too.
    iterators_.push_back(iterator);
  }
  // Every worker at once: each may still be starting.
  std::vector<grpc::Status> calls(workers_.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (lost[i]) continue;
    threads.emplace_back([&, i] { calls[i] = MakeIteratorOn(static_cast<int>(i), iterator); });
  }
  for (std::thread& thread : threads) thread.join();
  absl::Status unreachable = absl::UnavailableError(
      absl::StrCat("no worker could make an iterator over ", dataset));
  bool made = false;
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (lost[i]) continue;
    const grpc::Status& call = calls[i];
    const absl::Status status =
        rpc::FromGrpcStatus(call, "MakeIterator(", dataset, ") on worker ", WorkerName(i));
    if (call.ok()) {
      made = true;
    } else if (Unreachable(call)) {
      unreachable = absl::UnavailableError(status.message());
    } else {
      return status;
    }
  }
  if (!made) {
    ReleasePerWorkerIterator(iterator);
    return unreachable;
  }
  return iterator;
}

void ClusterCoordinator::ReleasePerWorkerIterator(const PerWorkerIterator& iterator) {
  const int64_t id = iterator.id;
  std::string dataset;
  {
    absl::MutexLock lock(&mu_);
    auto known = std::find_if(iterators_.begin(), iterators_.end(),
                              [id](const PerWorkerIterator& made) { return made.id == id; });
    if (known == iterators_.end()) return;
    dataset = known->dataset;
    // From now on a worker taken back does not make it.
    iterators_.erase(known);
    // The functions reading it finish first (each within step_timeout;
    // pending ones run or fail when no worker is left).
    auto unread = [this, id]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return stopping_ || readers_.count(id) == 0;
    };
    mu_.Await(absl::Condition(&unread));
  }
  // Every worker at once, those known lost too: one that is down answers
  // at once, one that was only unreachable for a while may hold it still.
  std::vector<grpc::Status> calls(workers_.size());
  std::vector<std::thread> threads;
  for (size_t i = 0; i < workers_.size(); ++i) {
    threads.emplace_back([&, i] { calls[i] = ReleaseIteratorOn(static_cast<int>(i), id); });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t i = 0; i < workers_.size(); ++i) {
    if (calls[i].ok()) continue;
    std::cerr << "ClusterCoordinator: could not release iterator " << id << " over "
              << dataset << " on worker " << WorkerName(static_cast<int>(i)) << ": "
              << rpc::FromGrpcStatus(calls[i], "ReleaseIterator")
              << "; left to the worker (one that is down or restarts holds none)\n";
  }
}

grpc::Status ClusterCoordinator::ReleaseIteratorOn(int worker, int64_t id) {
  ps::ReleaseIteratorRequest request;
  request.set_iterator_id(id);
  ps::ReleaseIteratorResponse response;
  grpc::ClientContext context;
  // Not wait_for_ready: a worker that is down fails the call at once.
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.release_timeout));
  return workers_[worker]->stub->ReleaseIterator(&context, request, &response);
}

grpc::Status ClusterCoordinator::MakeIteratorOn(int worker, const PerWorkerIterator& iterator) {
  ps::MakeIteratorRequest request;
  request.set_dataset(iterator.dataset);
  request.set_iterator_id(iterator.id);
  ps::MakeIteratorResponse response;
  grpc::ClientContext context;
  {
    // A worker still starting is waited for; one that answered before and
    // cannot be reached now is left to the scheduling, which drops it.
    absl::MutexLock lock(&mu_);
    context.set_wait_for_ready(!answered_[worker]);
  }
  context.set_deadline(absl::ToChronoTime(absl::Now() + options_.step_timeout));
  const grpc::Status call = workers_[worker]->stub->MakeIterator(&context, request, &response);
  if (call.ok()) {
    absl::MutexLock lock(&mu_);
    answered_[worker] = true;
  }
  return call;
}

bool ClusterCoordinator::AwaitRecovery(int worker) {
  WorkerChannel& channel = *workers_[worker];
  auto stopping = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return stopping_; };
  while (true) {
    {
      absl::MutexLock lock(&mu_);
      if (stopping_) return false;
    }
    // Connecting needs no call: the channel says when the address serves.
    const grpc_connectivity_state state = channel.channel->GetState(/*try_to_connect=*/true);
    if (state != GRPC_CHANNEL_READY) {
      channel.channel->WaitForStateChange(state,
                                          absl::ToChronoTime(absl::Now() + kRecoveryPoll));
      continue;
    }
    std::vector<PerWorkerIterator> iterators;
    {
      absl::MutexLock lock(&mu_);
      iterators = iterators_;
    }
    grpc::Status made;
    for (const PerWorkerIterator& iterator : iterators) {
      made = MakeIteratorOn(worker, iterator);
      if (!made.ok()) break;
    }
    if (made.ok()) {
      // Those released meanwhile go again (their release may have come
      // before they were made).
      std::vector<int64_t> released;
      {
        absl::MutexLock lock(&mu_);
        for (const PerWorkerIterator& iterator : iterators) {
          const bool kept = std::any_of(
              iterators_.begin(), iterators_.end(),
              [&](const PerWorkerIterator& live) { return live.id == iterator.id; });
          if (!kept) released.push_back(iterator.id);
        }
      }
      // Best effort: the worker just answered.
      for (int64_t id : released) ReleaseIteratorOn(worker, id);
      absl::MutexLock lock(&mu_);
      lost_[worker] = false;
      ++live_workers_;
      std::cerr << "ClusterCoordinator: worker " << WorkerName(worker) << " is back ("
                << live_workers_ << " live); its iterators were made anew\n";
      return true;
    }
    absl::MutexLock lock(&mu_);
    if (!Unreachable(made)) {
      std::cerr << "ClusterCoordinator: worker " << WorkerName(worker)
                << " came back but cannot make its iterators: " << made.error_message()
                << "; it stays out of the job\n";
      return false;
    }
    mu_.AwaitWithTimeout(absl::Condition(&stopping), kRecoveryPoll);
  }
}

std::string ClusterCoordinator::WorkerName(int worker) const {
  return absl::StrCat("/job:worker/replica:0/task:", worker, " at ", workers_[worker]->address);
}

absl::Status ClusterCoordinator::Join() {
  absl::MutexLock lock(&mu_);
  auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return pending_.empty() && running_ == 0;
  };
  mu_.Await(absl::Condition(&idle));
  // Reported once, as TensorFlow's coordinator raises an error in join()
  // and clears it: the caller may go on scheduling (an evaluation that ran
  // its workers' datasets out is followed by more training).
  return std::exchange(first_error_, absl::OkStatus());
}

bool ClusterCoordinator::Done() const {
  absl::MutexLock lock(&mu_);
  return pending_.empty() && running_ == 0;
}

int ClusterCoordinator::num_live_workers() const {
  absl::MutexLock lock(&mu_);
  return live_workers_;
}

void ClusterCoordinator::FailPendingLocked(const absl::Status& error) {
  for (Closure& closure : pending_) SettleLocked(closure, error);
  pending_.clear();
}

void ClusterCoordinator::SettleLocked(Closure& closure,
                                      absl::StatusOr<std::vector<Tensor>> result) {
  closure.result->Set(std::move(result));
  if (closure.iterator_id == 0) return;
  auto readers = readers_.find(closure.iterator_id);
  if (readers != readers_.end() && --readers->second == 0) readers_.erase(readers);
}

void ClusterCoordinator::WorkerLoop(int worker) {
  WorkerChannel& channel = *workers_[worker];
  const std::string name = WorkerName(worker);
  while (true) {
    Closure closure;
    // Until the worker first answers it may still be starting, and a call
    // waits for it (within the step's deadline); after that a worker that
    // cannot be reached is lost at once.
    bool answered = false;
    {
      absl::MutexLock lock(&mu_);
      auto has_work = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
        return stopping_ || !pending_.empty();
      };
      mu_.Await(absl::Condition(&has_work));
      if (stopping_) return;
      answered = answered_[worker];
      closure = std::move(pending_.front());
      pending_.pop_front();
      ++running_;
    }

    ps::RunFunctionRequest request;
    request.set_function(closure.function);
    request.set_closure_id(closure.id);
    request.set_iterator_id(closure.iterator_id);
    absl::Status encoded;
    for (const Tensor& argument : closure.arguments) {
      absl::StatusOr<ps::FloatTensor> proto = ps::ToProto(argument);
      if (!proto.ok()) {
        encoded = proto.status();
        break;
      }
      *request.add_arguments() = *std::move(proto);
    }
    if (!encoded.ok()) {
      absl::MutexLock lock(&mu_);
      --running_;
      SettleLocked(closure, encoded);
      if (first_error_.ok()) first_error_ = encoded;
      continue;
    }
    ps::RunFunctionResponse response;
    grpc::ClientContext context;
    context.set_wait_for_ready(!answered);
    context.set_deadline(absl::ToChronoTime(absl::Now() + options_.step_timeout));
    const grpc::Status call = channel.stub->RunFunction(&context, request, &response);

    if (!call.ok()) {
      {
        absl::MutexLock lock(&mu_);
        --running_;
        // The worker is gone: its step goes back to the others.
        const absl::Status lost =
            rpc::FromGrpcStatus(call, "worker ", name, " running ", closure.function);
        std::cerr << "ClusterCoordinator: lost " << lost << "; step " << closure.id
                  << " goes to the other workers\n";
        --live_workers_;
        lost_[worker] = true;
        if (stopping_) {
          SettleLocked(closure, absl::CancelledError("ClusterCoordinator destroyed"));
        } else {
          pending_.push_front(std::move(closure));
        }
        if (live_workers_ == 0) {
          const absl::Status none_left = absl::UnavailableError(
              absl::StrCat("every worker of the job was lost; the last: ", lost.message()));
          if (first_error_.ok()) first_error_ = none_left;
          FailPendingLocked(none_left);
        }
      }
      if (!AwaitRecovery(worker)) return;
      continue;
    }
    absl::MutexLock lock(&mu_);
    --running_;
    answered_[worker] = true;
    if (response.error_code() != 0) {
      const absl::Status error(static_cast<absl::StatusCode>(response.error_code()),
                               absl::StrCat(closure.function, " (step ", closure.id, ") on worker ",
                                            name, ": ", response.error_message()));
      SettleLocked(closure, error);
      if (first_error_.ok()) first_error_ = error;
      FailPendingLocked(absl::CancelledError(
          absl::StrCat("cancelled because an earlier step failed: ", error.message())));
      continue;
    }
    std::vector<Tensor> outputs;
    absl::Status decoded;
    for (const ps::FloatTensor& proto : response.outputs()) {
      absl::StatusOr<Tensor> t = ps::FromProto(proto);
      if (!t.ok()) {
        decoded = t.status();
        break;
      }
      outputs.push_back(*std::move(t));
    }
    if (decoded.ok()) {
      SettleLocked(closure, std::move(outputs));
    } else {
      SettleLocked(closure, decoded);
      if (first_error_.ok()) first_error_ = decoded;
    }
  }
}

}  // namespace distribute
}  // namespace tfd
