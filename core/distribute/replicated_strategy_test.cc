// Run, AllReduce, MergeCall and failure handling of the replicated
// strategies, exercised through MirroredStrategy on CPU replicas.
#include "core/distribute/replicated_strategy.h"

#include <atomic>
#include <set>
#include <thread>
#include <utility>

#include "absl/synchronization/mutex.h"
#include "absl/time/clock.h"
#include "core/distribute/internal/cpu_replica_devices.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

std::unique_ptr<MirroredStrategy> Mirrored(int n, ReplicatedStrategyOptions options = {}) {
  auto s = MirroredStrategy::WithCpuReplicas(n, std::move(options));
  EXPECT_TRUE(s.ok()) << s.status();
  return std::move(s).value();
}

ReplicatedStrategyOptions WithTimeout(absl::Duration timeout) {
  ReplicatedStrategyOptions options;
  options.communication.timeout = timeout;
  return options;
}

TEST(ReplicatedStrategyTest, RunsEachReplicaOnItsOwnPersistentThread) {
  auto strategy = Mirrored(3);
  std::vector<std::thread::id> first(3);
  for (int step = 0; step < 3; ++step) {
    std::vector<std::thread::id> ids(3);
    auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
      const int r = ctx.replica_id_in_sync_group();
      ids[r] = std::this_thread::get_id();
      EXPECT_EQ(ctx.num_replicas_in_sync(), 3);
      EXPECT_EQ(CurrentReplicaContext(), &ctx);
      EXPECT_EQ(&CurrentStrategy(), strategy.get());
      EXPECT_TRUE(HasStrategy());
      EXPECT_EQ(DeviceScope::Current(), strategy->replica_devices()[r]);
      EXPECT_EQ(ctx.device(), strategy->replica_devices()[r]);
      return std::vector<Tensor>{Tensor::Scalar<int32_t>(10 * r + step)};
    });
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), 3u);
    for (int r = 0; r < 3; ++r) EXPECT_EQ((*out)[r][0].scalar<int32_t>(), 10 * r + step);
    if (step == 0) first = ids;
    EXPECT_EQ(ids, first);  // The same threads every step.
  }
  EXPECT_EQ(std::set<std::thread::id>(first.begin(), first.end()).size(), 3u);
  EXPECT_EQ(CurrentReplicaContext(), nullptr);
  EXPECT_FALSE(HasStrategy());
}

TEST(ReplicatedStrategyTest, AllReduceInsideRun) {
  auto strategy = Mirrored(4);
  EXPECT_EQ(strategy->cross_device_ops(), "ShmAllReduce");
  auto out = strategy->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    TFD_ASSIGN_OR_RETURN(
        auto sum,
        ctx.AllReduce(ReduceOp::kSum, {*Tensor::FromVector<float>({r, 2 * r}, TensorShape({2}))}));
    TFD_ASSIGN_OR_RETURN(auto mean, ctx.AllReduce(ReduceOp::kMean, {Tensor::Scalar<double>(r)}));
    return std::vector<Tensor>{sum[0], mean[0]};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 4; ++r) {
    test::ExpectTensorEqual((*out)[r][0], *Tensor::FromVector<float>({6, 12}, TensorShape({2})));
    EXPECT_EQ((*out)[r][1].scalar<double>(), 1.5);
    EXPECT_EQ((*out)[r][0].device(), strategy->replica_devices()[r]);
  }
  auto local = strategy->ExperimentalLocalResults(*out, 1);
  ASSERT_TRUE(local.ok());
  EXPECT_EQ(local->size(), 4u);
  EXPECT_EQ(strategy->ExperimentalLocalResults(*out, 2).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(strategy->ExperimentalLocalResults({}, 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ReplicatedStrategyTest, AllGatherInsideRun) {
  auto strategy = Mirrored(3);
  auto out = strategy->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    // Replica r contributes r + 1 rows holding r.
    const int r = ctx.replica_id_in_sync_group();
    std::vector<int32_t> rows(r + 1, r);
    TFD_ASSIGN_OR_RETURN(Tensor all,
                         ctx.AllGather(*Tensor::FromVector(rows, TensorShape({r + 1, 1}))));
    return std::vector<Tensor>{all};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 3; ++r) {
    test::ExpectTensorEqual((*out)[r][0], *Tensor::FromVector<int32_t>({0, 1, 1, 2, 2, 2},
                                                                       TensorShape({6, 1})));
  }
}

TEST(ReplicatedStrategyTest, MergeCallRunsOnceInCrossReplicaContext) {
  auto strategy = Mirrored(3);
  std::atomic<int> merges{0};
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    for (int round = 0; round < 2; ++round) {
      TFD_RETURN_IF_ERROR(ctx.MergeCall([&]() -> absl::Status {
        ++merges;
        EXPECT_EQ(CurrentReplicaContext(), nullptr);
        EXPECT_EQ(&CurrentStrategy(), strategy.get());
        return absl::OkStatus();
      }));
    }
    // Every replica returns from both merge calls after both ran.
    return std::vector<Tensor>{Tensor::Scalar<int32_t>(merges.load())};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(merges.load(), 2);
  for (int r = 0; r < 3; ++r) EXPECT_EQ((*out)[r][0].scalar<int32_t>(), 2);
}

TEST(ReplicatedStrategyTest, EveryReplicaGetsTheMergeFunctionsStatus) {
  auto strategy = Mirrored(2);
  std::vector<absl::Status> seen(2);
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    seen[ctx.replica_id_in_sync_group()] =
        ctx.MergeCall([] { return absl::OutOfRangeError("merge says no"); });
    return seen[ctx.replica_id_in_sync_group()];
  });
  EXPECT_EQ(out.status().code(), absl::StatusCode::kOutOfRange);
  for (const absl::Status& s : seen) EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
}

TEST(ReplicatedStrategyTest, VariablesCreatedInsideRunAreMadeOnce) {
  auto strategy = Mirrored(3);
  absl::Mutex mu;
  std::set<DistributedVariable*> seen;
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    VariableSpec spec;
    spec.name = "lazy/kernel";
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    spec.initial_value = [r]() -> absl::StatusOr<Tensor> { return Tensor::Scalar<float>(r + 1); };
    TFD_ASSIGN_OR_RETURN(auto v, CreateVariable(spec));
    absl::MutexLock lock(&mu);
    seen.insert(v.get());
    return std::vector<Tensor>{v->Read()};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ((*seen.begin())->num_components(), 3);
  // Replica 0's initial value, in every component.
  for (int r = 0; r < 3; ++r) EXPECT_EQ((*out)[r][0].scalar<float>(), 1.0f);
}

TEST(ReplicatedStrategyTest, AFailedReplicaReleasesTheOthersPromptly) {
  auto strategy = Mirrored(3, WithTimeout(absl::Seconds(60)));
  const absl::Time start = absl::Now();
  std::vector<absl::Status> inner(3);
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const int r = ctx.replica_id_in_sync_group();
    if (r == 1) {
      absl::SleepFor(absl::Milliseconds(20));
      return InvalidArgument("replica one's batch is bad");
    }
    auto reduced = ctx.AllReduce(ReduceOp::kSum, {Tensor::Scalar<float>(1)});
    inner[r] = reduced.status();
    TFD_RETURN_IF_ERROR(reduced.status());
    return *reduced;
  });
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  // The root cause is reported, with its replica and device.
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << out.status();
  EXPECT_NE(out.status().message().find("replica 1 (/device:CPU:1)"), std::string::npos);
  EXPECT_NE(out.status().message().find("replica one's batch is bad"), std::string::npos);
  for (int r : {0, 2}) {
    EXPECT_EQ(inner[r].code(), absl::StatusCode::kAborted) << inner[r];
    EXPECT_NE(inner[r].message().find("replica 1 failed"), std::string::npos);
  }
  // The strategy recovers: the next step has fresh collectives.
  auto next = strategy->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    return ctx.AllReduce(ReduceOp::kSum, {Tensor::Scalar<float>(2)});
  });
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ((*next)[2][0].scalar<float>(), 6.0f);
}

TEST(ReplicatedStrategyTest, AMissingReplicaTimesOut) {
  auto strategy = Mirrored(2, WithTimeout(absl::Milliseconds(150)));
  const absl::Time start = absl::Now();
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    if (ctx.replica_id_in_sync_group() == 1) {
      absl::SleepFor(absl::Milliseconds(600));  // Far past the timeout.
      return std::vector<Tensor>{};
    }
    return ctx.AllReduce(ReduceOp::kSum, {Tensor::Scalar<float>(1)});
  });
  EXPECT_LT(absl::Now() - start, absl::Seconds(10));
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded) << out.status();
  EXPECT_NE(out.status().message().find("replica 1 (not arrived)"), std::string::npos);
}

TEST(ReplicatedStrategyTest, MismatchedMergeCallsAreErrors) {
  auto strategy = Mirrored(2);
  std::vector<absl::Status> seen(2);
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const int r = ctx.replica_id_in_sync_group();
    if (r == 0) seen[0] = ctx.MergeCall([] { return absl::OkStatus(); });
    return std::vector<Tensor>{};
  });
  EXPECT_EQ(seen[0].code(), absl::StatusCode::kFailedPrecondition) << seen[0];
  EXPECT_NE(seen[0].message().find("replica(s) 1 returned without calling it"), std::string::npos);
  EXPECT_TRUE(out.ok());  // Replica 0 ignored the error.
}

TEST(ReplicatedStrategyTest, MergeCallWaitsAtMostTheTimeout) {
  auto strategy = Mirrored(2, WithTimeout(absl::Milliseconds(100)));
  std::vector<absl::Status> seen(2);
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const int r = ctx.replica_id_in_sync_group();
    if (r == 1) absl::SleepFor(absl::Milliseconds(500));
    seen[r] = ctx.MergeCall([] { return absl::OkStatus(); });
    return std::vector<Tensor>{};
  });
  EXPECT_EQ(seen[0].code(), absl::StatusCode::kDeadlineExceeded) << seen[0];
  EXPECT_NE(seen[0].message().find("replica(s) 1 did not"), std::string::npos) << seen[0];
}

TEST(ReplicatedStrategyTest, ContextsBelongToTheirReplicaThread) {
  auto strategy = Mirrored(2);
  ReplicaContext* leaked = nullptr;
  auto out = strategy->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    if (ctx.replica_id_in_sync_group() == 0) {
      leaked = &ctx;
      // Nested Run of the same strategy would deadlock: refused.
      auto nested = strategy->Run([](ReplicaContext&) -> absl::StatusOr<std::vector<Tensor>> {
        return std::vector<Tensor>{};
      });
      EXPECT_EQ(nested.status().code(), absl::StatusCode::kFailedPrecondition);
    }
    return std::vector<Tensor>{};
  });
  ASSERT_TRUE(out.ok());
  EXPECT_EQ(leaked->AllReduce(ReduceOp::kSum, {}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(leaked->MergeCall([] { return absl::OkStatus(); }).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(ReplicatedStrategyTest, BadConfigurationsAreErrors) {
  auto pair = MirroredStrategy::WithCpuReplicas(2);
  ASSERT_TRUE(pair.ok());
  std::vector<Device*> two = (*pair)->replica_devices();
  EXPECT_EQ(MirroredStrategy::Create({two[0], two[0]}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MirroredStrategy::Create({two[0], nullptr}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MirroredStrategy::WithCpuReplicas(0).status().code(),
            absl::StatusCode::kInvalidArgument);
  ReplicatedStrategyOptions nccl;
  nccl.cross_device_ops = "NcclAllReduce";
  EXPECT_EQ(MirroredStrategy::Create(two, nccl).status().code(), absl::StatusCode::kUnimplemented);
  ReplicatedStrategyOptions unknown;
  unknown.cross_device_ops = "Pigeons";
  EXPECT_EQ(MirroredStrategy::Create(two, unknown).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MirroredStrategy::Create(two, WithTimeout(absl::ZeroDuration())).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// A communicator whose collectives are another's, and whose Synchronize
// reports what the test says: as an NCCL group whose collective failed on
// the device after its Wait() returned.
class LateFailingCommunicator : public Communicator {
 public:
  LateFailingCommunicator(std::unique_ptr<Communicator> inner, std::atomic<int>* syncs,
                          absl::Mutex* mu, absl::Status* late)
      : Communicator(inner->rank(), inner->group_size(), inner->device()),
        inner_(std::move(inner)),
        syncs_(syncs),
        mu_(mu),
        late_(late) {}
  std::string implementation() const override { return inner_->implementation(); }
  absl::StatusOr<std::unique_ptr<PendingAllReduce>> StartAllReduce(
      std::vector<TensorSpec> specs, const AllReduceOptions& options) override {
    return inner_->StartAllReduce(std::move(specs), options);
  }
  absl::StatusOr<std::unique_ptr<CollectiveHandle>> AllGather(
      const Tensor& value, const AllGatherOptions& options) override {
    return inner_->AllGather(value, options);
  }
  absl::StatusOr<std::unique_ptr<CollectiveHandle>> Broadcast(
      const Tensor& value, const BroadcastOptions& options) override {
    return inner_->Broadcast(value, options);
  }
  absl::Status Synchronize(absl::Duration timeout) override {
    ++*syncs_;
    absl::MutexLock lock(mu_);
    // Only replica 1's collective fails; the first step to see it uses it up.
    if (rank() != 1 || late_->ok()) return absl::OkStatus();
    return std::exchange(*late_, absl::OkStatus());
  }
  void Abort(const absl::Status& cause) override { inner_->Abort(cause); }

 private:
  const std::unique_ptr<Communicator> inner_;
  std::atomic<int>* const syncs_;
  absl::Mutex* const mu_;
  absl::Status* const late_;
};

class LateFailureStrategy final : public ReplicatedStrategy {
 public:
  static std::unique_ptr<LateFailureStrategy> Create(int n) {
    auto s = std::unique_ptr<LateFailureStrategy>(new LateFailureStrategy());
    auto devices = internal::CpuReplicaDevices(n);
    EXPECT_TRUE(devices.ok()) << devices.status();
    EXPECT_TRUE(s->Init(*devices, {}).ok());
    return s;
  }
  std::string name() const override { return "LateFailureStrategy"; }
  void FailNextSynchronize(absl::Status s) {
    absl::MutexLock lock(&mu_);
    late_ = std::move(s);
  }

  std::atomic<int> syncs{0};
  std::atomic<int> groups{0};

 protected:
  absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> MakeCommunicators() override {
    TFD_ASSIGN_OR_RETURN(auto inner, ReplicatedStrategy::MakeCommunicators());
    std::vector<std::unique_ptr<Communicator>> out;
    for (auto& c : inner) {
      out.push_back(std::make_unique<LateFailingCommunicator>(std::move(c), &syncs, &mu_, &late_));
    }
    ++groups;
    return out;
  }
  absl::StatusOr<std::shared_ptr<DistributedVariable>> CreateVariableInCrossReplica(
      const VariableSpec&) override {
    return Unimplemented("not needed here");
  }

 private:
  LateFailureStrategy() = default;
  absl::Mutex mu_;
  absl::Status late_ ABSL_GUARDED_BY(mu_);
};

// Note [A step ends with its collectives checked]: a collective that fails
// on the device after its Wait() returned fails the step that issued it,
// and the next step runs on a fresh group.
TEST(ReplicatedStrategyTest, StepEndsWithItsCollectivesCheckedOnTheDevice) {
  auto strategy = LateFailureStrategy::Create(2);
  auto step = [](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    return ctx.AllReduce(ReduceOp::kSum, {Tensor::Scalar<float>(1.0f)});
  };
  auto ok = strategy->Run(step);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(strategy->syncs.load(), 2);  // Once per replica.
  EXPECT_EQ(strategy->groups.load(), 1);
  strategy->FailNextSynchronize(absl::DeadlineExceededError(
      "NcclAllReduce: AllReduce #1 timed out after 5m on rank 1"));
  auto failed = strategy->Run(step);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kDeadlineExceeded) << failed.status();
  EXPECT_NE(failed.status().message().find("replica 1"), std::string::npos) << failed.status();
  EXPECT_NE(failed.status().message().find("AllReduce #1 timed out"), std::string::npos)
      << failed.status();
  EXPECT_EQ(strategy->groups.load(), 2);  // Remade for the next step.
  auto again = strategy->Run(step);
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_FLOAT_EQ((*again)[0][0].scalar<float>(), 2.0f);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
