// ClusterCoordinator against worker servers in this process, over real
// gRPC on localhost. (tests/parameter_server runs whole jobs across
// processes.)
#include "core/distribute/cluster_coordinator.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/data/transforms.h"
#include "core/distribute/ps/worker_server.h"
#include "core/framework/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

using ::testing::HasSubstr;

class ClusterCoordinatorTest : public ::testing::Test {
 protected:
  // Worker i (< 2)'s "step" sleeps a little and returns how many steps it ran.
  void StartWorkers(int n, absl::Status step_error = absl::OkStatus()) {
    for (int i = 0; i < n; ++i) {
      ps::WorkerFunctions functions;
      functions.steps["step"] = [this, i, step_error](data::Iterator*, const std::vector<Tensor>&)
          -> absl::StatusOr<std::vector<Tensor>> {
        absl::SleepFor(absl::Milliseconds(20));
        if (!step_error.ok()) return step_error;
        return std::vector<Tensor>{Tensor::Scalar<float>(static_cast<float>(++counts_[i]))};
      };
      auto host = ps::StartWorkerServer("127.0.0.1:0", std::move(functions));
      ASSERT_TRUE(host.ok()) << host.status();
      addresses_.push_back(absl::StrCat("127.0.0.1:", (*host)->port()));
      hosts_.push_back(*std::move(host));
    }
  }
  std::unique_ptr<ClusterCoordinator> Coordinator() {
    ClusterCoordinatorOptions options;
    options.step_timeout = absl::Seconds(10);
    auto coordinator = ClusterCoordinator::Create(addresses_, options);
    EXPECT_TRUE(coordinator.ok()) << coordinator.status();
    return *std::move(coordinator);
  }

  std::atomic<int> counts_[2] = {};  // Steps run by each worker.
  std::vector<std::unique_ptr<ps::WorkerServer>> hosts_;
  std::vector<std::string> addresses_;
};

TEST_F(ClusterCoordinatorTest, RunsEveryScheduledStepOnTheWorkers) {
  StartWorkers(2);
  auto coordinator = Coordinator();
  std::vector<std::shared_ptr<RemoteValue>> values;
  for (int i = 0; i < 20; ++i) values.push_back(coordinator->Schedule("step"));
  EXPECT_FALSE(coordinator->Done());
  ASSERT_TRUE(coordinator->Join().ok());
  EXPECT_TRUE(coordinator->Done());
  for (const auto& value : values) {
    ASSERT_TRUE(value->ready());
    auto outputs = value->Fetch();
    ASSERT_TRUE(outputs.ok()) << outputs.status();
    ASSERT_EQ(outputs->size(), 1u);
  }
  EXPECT_EQ(counts_[0] + counts_[1], 20);
  // Both workers took part (each step sleeps, so one cannot run all 20
  // while the other waits for its first).
  EXPECT_GT(counts_[0], 0);
  EXPECT_GT(counts_[1], 0);
}

TEST_F(ClusterCoordinatorTest, LostWorkersStepsRunOnTheOthers) {
  StartWorkers(2);
  auto coordinator = Coordinator();
  std::vector<std::shared_ptr<RemoteValue>> values;
  for (int i = 0; i < 30; ++i) values.push_back(coordinator->Schedule("step"));
  ASSERT_TRUE(values[0]->Fetch().ok());
  hosts_[1].reset();  // Worker 1 goes away mid-job.
  ASSERT_TRUE(coordinator->Join().ok());
  for (const auto& value : values) EXPECT_TRUE(value->Fetch().ok()) << value->Fetch().status();
  EXPECT_EQ(coordinator->num_live_workers(), 1);
  EXPECT_GE(counts_[0] + counts_[1], 30);
}

TEST_F(ClusterCoordinatorTest, AllWorkersLostIsUnavailable) {
  StartWorkers(1);
  auto coordinator = Coordinator();
  ASSERT_TRUE(coordinator->Schedule("step")->Fetch().ok());
  hosts_[0].reset();
  auto value = coordinator->Schedule("step");
  absl::Status status = coordinator->Join();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable) << status;
  EXPECT_THAT(status.message(), HasSubstr(addresses_[0]));
  EXPECT_EQ(value->Fetch().status().code(), absl::StatusCode::kUnavailable);
}

TEST_F(ClusterCoordinatorTest, StepErrorFailsJoinAndCancelsTheRest) {
  StartWorkers(1, InvalidArgument("bad batch"));
  auto coordinator = Coordinator();
  auto first = coordinator->Schedule("step");
  auto second = coordinator->Schedule("step");
  absl::Status status = coordinator->Join();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("bad batch"));
  EXPECT_EQ(first->Fetch().status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(second->Fetch().ok());
  EXPECT_EQ(coordinator->num_live_workers(), 1);
  // Reported once: the next Join sees only what was scheduled since.
  EXPECT_TRUE(coordinator->Join().ok());
}

TEST_F(ClusterCoordinatorTest, UnknownFunctionIsNotFound) {
  StartWorkers(1);
  auto coordinator = Coordinator();
  auto value = coordinator->Schedule("no_such_step");
  EXPECT_EQ(coordinator->Join().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(value->Fetch().status().code(), absl::StatusCode::kNotFound);
}

// Worker i's dataset is 100*i, 100*i + 1, ...; "next" returns the next
// element of the iterator it is given.
ps::WorkerFunctions CountingWorker(int i) {
  ps::WorkerFunctions functions;
  functions.datasets["numbers"] = [i]() -> absl::StatusOr<data::DatasetPtr> {
    std::vector<float> values;
    for (int k = 0; k < 50; ++k) values.push_back(100.0f * i + k);
    TFD_ASSIGN_OR_RETURN(Tensor t, Tensor::FromVector<float>(values, TensorShape({50})));
    return data::FromTensorSlices({t});
  };
  functions.steps["next"] = [](data::Iterator* it,
                               const std::vector<Tensor>&) -> absl::StatusOr<std::vector<Tensor>> {
    if (it == nullptr) return InvalidArgument("next needs an iterator");
    absl::SleepFor(absl::Milliseconds(5));
    TFD_ASSIGN_OR_RETURN(std::optional<data::Element> element, it->GetNext());
    if (!element) return absl::OutOfRangeError("end of the worker's numbers");
    return std::vector<Tensor>{(*element)[0]};
  };
  return functions;
}

TEST_F(ClusterCoordinatorTest, PerWorkerIteratorsSurviveALostWorker) {
  for (int i = 0; i < 2; ++i) {
    auto host = ps::StartWorkerServer("127.0.0.1:0", CountingWorker(i));
    ASSERT_TRUE(host.ok()) << host.status();
    addresses_.push_back(absl::StrCat("127.0.0.1:", (*host)->port()));
    hosts_.push_back(*std::move(host));
  }
  auto coordinator = Coordinator();
  auto iterator = coordinator->CreatePerWorkerIterator("numbers");
  ASSERT_TRUE(iterator.ok()) << iterator.status();
  std::vector<std::shared_ptr<RemoteValue>> values;
  for (int s = 0; s < 10; ++s) values.push_back(coordinator->Schedule("next", *iterator));
  ASSERT_TRUE(coordinator->Join().ok());
  hosts_[1].reset();
  for (int s = 0; s < 20; ++s) values.push_back(coordinator->Schedule("next", *iterator));
  ASSERT_TRUE(coordinator->Join().ok());
  EXPECT_EQ(coordinator->num_live_workers(), 1);
  // Each worker reads its own numbers from the start, every one at most
  // once and none skipped. Steps in flight together on one worker may reach
  // its iterator in either order, so the order of `values` says nothing.
  std::vector<float> seen[2];
  for (const auto& value : values) {
    auto out = value->Fetch();
    ASSERT_TRUE(out.ok()) << out.status();
    const float v = (*out)[0].scalar<float>();
    seen[v >= 100 ? 1 : 0].push_back(v);
  }
  EXPECT_EQ(seen[0].size() + seen[1].size(), 30u);
  for (int w = 0; w < 2; ++w) {
    std::sort(seen[w].begin(), seen[w].end());
    for (size_t k = 0; k < seen[w].size(); ++k) EXPECT_EQ(seen[w][k], 100.0f * w + k);
  }
  // The steps after the loss all ran on worker 0, from where it was.
  EXPECT_GE(seen[0].size(), 20u);

  // A fresh iterator starts over; an unknown dataset is NOT_FOUND.
  auto again = coordinator->CreatePerWorkerIterator("numbers");
  ASSERT_TRUE(again.ok()) << again.status();
  auto first = coordinator->Schedule("next", *again)->Fetch();
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ((*first)[0].scalar<float>(), 0.0f);
  EXPECT_EQ(coordinator->CreatePerWorkerIterator("no_such").status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(ClusterCoordinatorTest, StepWithAnUnknownIteratorIsNotFound) {
  auto host = ps::StartWorkerServer("127.0.0.1:0", CountingWorker(0));
  ASSERT_TRUE(host.ok()) << host.status();
  addresses_.push_back(absl::StrCat("127.0.0.1:", (*host)->port()));
  hosts_.push_back(*std::move(host));
  auto coordinator = Coordinator();
  PerWorkerIterator made_elsewhere{42, "numbers"};
  auto value = coordinator->Schedule("next", made_elsewhere);
  EXPECT_EQ(value->Fetch().status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(value->Fetch().status().message(), HasSubstr("iterator 42"));
}

// Iterators made and released in a row, as a long job's evaluations make
// them: the workers keep none of them.
TEST_F(ClusterCoordinatorTest, ReleasedIteratorsLeaveEveryWorker) {
  for (int i = 0; i < 2; ++i) {
    auto host = ps::StartWorkerServer("127.0.0.1:0", CountingWorker(i));
    ASSERT_TRUE(host.ok()) << host.status();
    addresses_.push_back(absl::StrCat("127.0.0.1:", (*host)->port()));
    hosts_.push_back(*std::move(host));
  }
  auto coordinator = Coordinator();
  for (int round = 0; round < 25; ++round) {
    auto iterator = coordinator->CreatePerWorkerIterator("numbers");
    ASSERT_TRUE(iterator.ok()) << iterator.status();
    for (int w = 0; w < 2; ++w) ASSERT_EQ(hosts_[w]->num_live_iterators(), 1) << round;
    std::vector<std::shared_ptr<RemoteValue>> values;
    for (int s = 0; s < 4; ++s) values.push_back(coordinator->Schedule("next", *iterator));
    // Released before its steps ran: the release waits for them.
    coordinator->ReleasePerWorkerIterator(*iterator);
    for (const auto& value : values) {
      ASSERT_TRUE(value->Fetch().ok()) << value->Fetch().status();
    }
    for (int w = 0; w < 2; ++w) ASSERT_EQ(hosts_[w]->num_live_iterators(), 0) << round;
  }
  ASSERT_TRUE(coordinator->Join().ok());

  // Releasing twice is a no-op; a step on a released iterator is NOT_FOUND.
  auto iterator = coordinator->CreatePerWorkerIterator("numbers");
  ASSERT_TRUE(iterator.ok()) << iterator.status();
  coordinator->ReleasePerWorkerIterator(*iterator);
  coordinator->ReleasePerWorkerIterator(*iterator);
  auto late = coordinator->Schedule("next", *iterator)->Fetch();
  EXPECT_EQ(late.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(late.status().message(), HasSubstr("released"));
  EXPECT_EQ(coordinator->Join().code(), absl::StatusCode::kNotFound);
}

// Takes `port` on 127.0.0.1 and never answers: connections are accepted
// by the kernel and then left silent. Returns the socket (-1 on failure).
int ListenWithoutAnswering(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  const int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
  sockaddr_in address = {};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(fd, 16) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Worker 1 is gone and worker 2's address accepts connections but never
// answers: the release gives up on them within its deadline, without an
// error, and worker 0 drops the iterator.
TEST_F(ClusterCoordinatorTest, ReleaseToADeadOrSilentWorkerReturnsWithinItsDeadline) {
  for (int i = 0; i < 3; ++i) {
    auto host = ps::StartWorkerServer("127.0.0.1:0", CountingWorker(i));
    ASSERT_TRUE(host.ok()) << host.status();
    addresses_.push_back(absl::StrCat("127.0.0.1:", (*host)->port()));
    hosts_.push_back(*std::move(host));
  }
  ClusterCoordinatorOptions options;
  options.step_timeout = absl::Seconds(10);
  options.release_timeout = absl::Milliseconds(500);
  auto coordinator = ClusterCoordinator::Create(addresses_, options);
  ASSERT_TRUE(coordinator.ok()) << coordinator.status();
  auto iterator = (*coordinator)->CreatePerWorkerIterator("numbers");
  ASSERT_TRUE(iterator.ok()) << iterator.status();
  const int silent_port = hosts_[2]->port();
  hosts_[1].reset();
  hosts_[2].reset();
  const int silent = ListenWithoutAnswering(silent_port);
  ASSERT_GE(silent, 0) << "cannot listen on port " << silent_port;

  const absl::Time start = absl::Now();
  (*coordinator)->ReleasePerWorkerIterator(*iterator);
  const absl::Duration took = absl::Now() - start;
  close(silent);
  // The deadline, with room for a loaded machine; a hang would take the
  // step timeout or forever.
  EXPECT_LT(took, absl::Seconds(3));
  EXPECT_EQ(hosts_[0]->num_live_iterators(), 0);
}

TEST(ClusterCoordinatorCreateTest, NoWorkersIsInvalid) {
  EXPECT_EQ(ClusterCoordinator::Create({}).status().code(), absl::StatusCode::kInvalidArgument);
}

// A worker restarted on its address is taken back: its per-worker
// iterator is made anew (its numbers start over) and it runs steps again.
TEST_F(ClusterCoordinatorTest, RestartedWorkerIsTakenBackWithItsIterators) {
  for (int i = 0; i < 2; ++i) {
    auto host = ps::StartWorkerServer("127.0.0.1:0", CountingWorker(i));
    ASSERT_TRUE(host.ok()) << host.status();
    addresses_.push_back(absl::StrCat("127.0.0.1:", (*host)->port()));
    hosts_.push_back(*std::move(host));
  }
  auto coordinator = Coordinator();
  auto iterator = coordinator->CreatePerWorkerIterator("numbers");
  ASSERT_TRUE(iterator.ok()) << iterator.status();
  for (int s = 0; s < 6; ++s) coordinator->Schedule("next", *iterator);
  ASSERT_TRUE(coordinator->Join().ok());
  hosts_[1].reset();
  for (int s = 0; s < 6; ++s) coordinator->Schedule("next", *iterator);
  ASSERT_TRUE(coordinator->Join().ok());
  ASSERT_EQ(coordinator->num_live_workers(), 1);

  auto restarted = ps::StartWorkerServer(addresses_[1], CountingWorker(1));
  ASSERT_TRUE(restarted.ok()) << restarted.status();
  hosts_[1] = *std::move(restarted);
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (coordinator->num_live_workers() < 2 && absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(20));
  }
  ASSERT_EQ(coordinator->num_live_workers(), 2);
  std::vector<std::shared_ptr<RemoteValue>> after;
  for (int s = 0; s < 20; ++s) after.push_back(coordinator->Schedule("next", *iterator));
  ASSERT_TRUE(coordinator->Join().ok());
  std::vector<float> from_restarted;
  for (const auto& value : after) {
    auto out = value->Fetch();
    ASSERT_TRUE(out.ok()) << out.status();
    if ((*out)[0].scalar<float>() >= 100) from_restarted.push_back((*out)[0].scalar<float>());
  }
  ASSERT_FALSE(from_restarted.empty());
  EXPECT_EQ(*std::min_element(from_restarted.begin(), from_restarted.end()), 100.0f);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
