#include "core/distribute/collectives/gloo/gloo_communicator.h"

#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "core/distribute/collectives/gloo/gloo_context.h"
#include "core/distribute/coordination/coordination_client.h"
#include "core/distribute/coordination/coordination_server.h"
#include "core/distribute/coordination/task_name.h"
#include "core/framework/tensor_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

using ::testing::HasSubstr;
using test::AsTensor;
using test::ExpectTensorEqual;
using test::ExpectTensorNear;

// A job of `n` worker tasks served in this process; Run() gives each rank
// its own thread, coordination client and Gloo communicator.
class GlooJob {
 public:
  explicit GlooJob(int n, absl::Duration timeout = absl::Seconds(20)) : n_(n), timeout_(timeout) {
    std::vector<std::string> tasks;
    for (int i = 0; i < n; ++i) tasks.push_back(coordination::TaskName("worker", i));
    auto server = coordination::CoordinationServer::Start("127.0.0.1:0", tasks);
    EXPECT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
  }

  // Runs fn(rank, comm) on every rank in `ranks` (all when empty); a rank
  // left out never connects.
  std::vector<absl::Status> Run(const std::function<absl::Status(int, GlooCommunicator&)>& fn,
                                std::vector<int> ranks = {}) {
    if (ranks.empty()) {
      for (int i = 0; i < n_; ++i) ranks.push_back(i);
    }
    std::vector<absl::Status> results(n_);
    std::vector<std::thread> threads;
    for (int r : ranks) {
      threads.emplace_back([&, r] { results[r] = RunRank(r, fn); });
    }
    for (auto& t : threads) t.join();
    return results;
  }

 private:
  absl::Status RunRank(int r, const std::function<absl::Status(int, GlooCommunicator&)>& fn) {
    coordination::CoordinationClientOptions options;
    options.connect_timeout = absl::Seconds(10);
    auto client = coordination::CoordinationClient::Connect(
        "127.0.0.1:" + std::to_string(server_->port()), coordination::TaskName("worker", r),
        options);
    if (!client.ok()) return client.status();
    GlooContextOptions gloo_options;
    gloo_options.prefix = "gloo/test/";
    gloo_options.rank = r;
    gloo_options.size = n_;
    gloo_options.timeout = timeout_;
    auto context = ConnectGlooContext(**client, gloo_options);
    if (!context.ok()) return context.status();
    GlooCommunicator comm(*context);
    return fn(r, comm);
  }

  const int n_;
  const absl::Duration timeout_;
  std::unique_ptr<coordination::CoordinationServer> server_;
};

void ExpectAllOk(const std::vector<absl::Status>& results) {
  for (size_t r = 0; r < results.size(); ++r) EXPECT_TRUE(results[r].ok()) << "rank " << r << ": " << results[r];
}

TEST(GlooCommunicatorTest, AllReduceSumsEveryDtypeAcrossBuckets) {
  GlooJob job(3);
  std::vector<std::vector<Tensor>> results(3);
  ExpectAllOk(job.Run([&](int r, GlooCommunicator& comm) -> absl::Status {
    EXPECT_EQ(comm.rank(), r);
    EXPECT_EQ(comm.group_size(), 3);
    std::vector<Tensor> inputs = {
        AsTensor<float>({1.5f * (r + 1), -2.0f, 0.25f, 4.0f, 5.0f}, {5}),
        AsTensor<double>({1e-3 * r, 2.0}, {2, 1}),
        AsTensor<int32_t>({r, 10 * r, 100}, {3}),
        AsTensor<int64_t>({int64_t{1} << 40, r}, {2}),
        Tensor(DT_FLOAT, {0, 4}),
    };
    AllReduceOptions options;
    options.communication.bytes_per_pack = 8;  // Several buckets per tensor.
    auto out = AllReduceAndWait(comm, inputs, options);
    if (!out.ok()) return out.status();
    results[r] = *out;
    return absl::OkStatus();
  }));
  for (int r = 0; r < 3; ++r) {
    ASSERT_EQ(results[r].size(), 5u);
    ExpectTensorEqual(results[r][0], AsTensor<float>({9.0f, -6.0f, 0.75f, 12.0f, 15.0f}, {5}));
    ExpectTensorNear(results[r][1], AsTensor<double>({3e-3, 6.0}, {2, 1}), 1e-15);
    ExpectTensorEqual(results[r][2], AsTensor<int32_t>({3, 30, 300}, {3}));
    ExpectTensorEqual(results[r][3], AsTensor<int64_t>({int64_t{3} << 40, 3}, {2}));
    EXPECT_EQ(results[r][4].shape(), TensorShape({0, 4}));
  }
}

TEST(GlooCommunicatorTest, MeanDividesByTheGroupSizeAndTruncatesIntegers) {
  GlooJob job(2);
  std::vector<std::vector<Tensor>> results(2);
  ExpectAllOk(job.Run([&](int r, GlooCommunicator& comm) -> absl::Status {
    AllReduceOptions options;
    options.op = ReduceOp::kMean;
    options.communication.implementation = CommunicationImplementation::kRing;
    auto out = AllReduceAndWait(
        comm, {AsTensor<float>({1.0f + r, 3.0f}, {2}), AsTensor<int32_t>({r == 0 ? 2 : 5}, {1})},
        options);
    if (!out.ok()) return out.status();
    results[r] = *out;
    return absl::OkStatus();
  }));
  for (int r = 0; r < 2; ++r) {
    ExpectTensorEqual(results[r][0], AsTensor<float>({1.5f, 3.0f}, {2}));
    ExpectTensorEqual(results[r][1], AsTensor<int32_t>({3}, {1}));  // 7 / 2
  }
}

TEST(GlooCommunicatorTest, AllGatherConcatenatesRanksOfDifferentLengths) {
  GlooJob job(3);
  std::vector<Tensor> results(3);
  ExpectAllOk(job.Run([&](int r, GlooCommunicator& comm) -> absl::Status {
    // Rank r contributes r rows of [r, r].
    std::vector<int64_t> values(2 * r, r);
    auto handle = comm.AllGather(AsTensor<int64_t>(values, {r, 2}), {});
    if (!handle.ok()) return handle.status();
    auto out = (*handle)->Wait();
    if (!out.ok()) return out.status();
    results[r] = (*out)[0];
    return absl::OkStatus();
  }));
  for (int r = 0; r < 3; ++r) {
    ExpectTensorEqual(results[r], AsTensor<int64_t>({1, 1, 2, 2, 2, 2}, {3, 2}));
  }
}

TEST(GlooCommunicatorTest, BroadcastSendsTheRootsValue) {
  GlooJob job(3);
  std::vector<Tensor> results(3);
  ExpectAllOk(job.Run([&](int r, GlooCommunicator& comm) -> absl::Status {
    BroadcastOptions options;
    options.root = 1;
    auto handle = comm.Broadcast(AsTensor<float>({r * 1.0f, r * 2.0f, 7.0f}, {3}), options);
    if (!handle.ok()) return handle.status();
    auto out = (*handle)->Wait();
    if (!out.ok()) return out.status();
    results[r] = (*out)[0];
    return absl::OkStatus();
  }));
  for (int r = 0; r < 3; ++r) ExpectTensorEqual(results[r], AsTensor<float>({1.0f, 2.0f, 7.0f}, {3}));
}

TEST(GlooCommunicatorTest, MismatchedCollectivesFailOnEveryRank) {
  GlooJob job(2);
  std::vector<absl::Status> results = job.Run([&](int r, GlooCommunicator& comm) -> absl::Status {
    // Rank 1 reduces a longer tensor than rank 0.
    auto out = AllReduceAndWait(comm, {Tensor(DT_FLOAT, {r == 0 ? 2 : 3})}, {});
    if (out.ok()) return absl::OkStatus();
    // The communicator is poisoned afterwards.
    auto again = AllReduceAndWait(comm, {Tensor(DT_FLOAT, {2})}, {});
    EXPECT_EQ(again.status().code(), absl::StatusCode::kAborted);
    return out.status();
  });
  for (const absl::Status& s : results) {
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
    EXPECT_THAT(s.message(), HasSubstr("issued different collectives"));
  }
}

TEST(GlooCommunicatorTest, NcclAndBadDtypesAreRefused) {
  GlooJob job(1);
  ExpectAllOk(job.Run([&](int, GlooCommunicator& comm) -> absl::Status {
    AllReduceOptions nccl;
    nccl.communication.implementation = CommunicationImplementation::kNccl;
    auto out = AllReduceAndWait(comm, {Tensor(DT_FLOAT, {2})}, nccl);
    EXPECT_EQ(out.status().code(), absl::StatusCode::kUnimplemented);
    EXPECT_THAT(out.status().message(), HasSubstr("NCCL"));
    return absl::OkStatus();
  }));
  ExpectAllOk(job.Run([&](int, GlooCommunicator& comm) -> absl::Status {
    auto out = AllReduceAndWait(comm, {Tensor(DT_HALF, {2})}, {});
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(out.status().message(), HasSubstr("input 0 has dtype"));
    return absl::OkStatus();
  }));
}

TEST(GlooCommunicatorTest, RankThatNeverCallsTimesOut) {
  GlooJob job(2);
  const absl::Time start = absl::Now();
  std::vector<absl::Status> results = job.Run([&](int r, GlooCommunicator& comm) -> absl::Status {
    if (r == 1) return absl::OkStatus();  // Connected, but never reduces.
    AllReduceOptions options;
    options.communication.timeout = absl::Milliseconds(500);
    return AllReduceAndWait(comm, {Tensor(DT_FLOAT, {4})}, options).status();
  });
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_NE(results[0].code(), absl::StatusCode::kOk);
  EXPECT_THAT(results[0].message(), HasSubstr("Gloo"));
}

TEST(GlooCommunicatorTest, RendezvousTimeoutNamesTheMissingRank) {
  GlooJob job(2, /*timeout=*/absl::Milliseconds(500));
  std::vector<absl::Status> results =
      job.Run([](int, GlooCommunicator&) { return absl::OkStatus(); }, /*ranks=*/{0});
  EXPECT_EQ(results[0].code(), absl::StatusCode::kDeadlineExceeded) << results[0];
  EXPECT_THAT(results[0].message(), HasSubstr("Gloo rendezvous of rank 0 of 2"));
  EXPECT_THAT(results[0].message(), HasSubstr("gloo/test/"));
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
