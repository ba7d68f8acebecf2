#include "core/distribute/internal/cross_worker_collectives.h"

#include <string>
#include <vector>

#include "core/distribute/collectives/nccl/memory_id_store.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace internal {
namespace {

using Code = absl::StatusCode;

// Replicas as ChooseNcclOrFallback describes `devices` (made-up GPUs).
LocalReplicas Replicas(const std::vector<ReplicaDeviceInfo>& devices, bool nccl_built) {
  LocalReplicas r;
  r.in_host_memory = true;
  for (const ReplicaDeviceInfo& d : devices) r.in_host_memory &= d.type == DeviceType::kCPU;
  r.nccl = ChooseNcclOrFallback(devices, nccl_built);
  r.nccl_built = nccl_built;
  return r;
}

const ReplicaDeviceInfo kCpu{"/device:CPU:0", DeviceType::kCPU, -1};
const ReplicaDeviceInfo kGpu0{"/device:GPU:0", DeviceType::kGPU, 0};
const ReplicaDeviceInfo kGpu1{"/device:GPU:1", DeviceType::kGPU, 1};
const ReplicaDeviceInfo kGpu1Again{"/device:GPU:2", DeviceType::kGPU, 1};  // Logical, on GPU 1.

constexpr auto kAuto = CommunicationImplementation::kAuto;
constexpr auto kRing = CommunicationImplementation::kRing;
constexpr auto kNccl = CommunicationImplementation::kNccl;

TEST(ChooseCrossWorkerEngineTest, AutoPicksNcclWhenEveryReplicaHasItsOwnGpu) {
  EXPECT_EQ(*ChooseCrossWorkerEngine(kAuto, Replicas({kGpu0, kGpu1}, true)),
            CrossWorkerEngine::kNccl);
  EXPECT_EQ(*ChooseCrossWorkerEngine(kAuto, Replicas({kCpu}, true)), CrossWorkerEngine::kRing);
  EXPECT_EQ(*ChooseCrossWorkerEngine(kAuto, Replicas({kCpu}, false)), CrossWorkerEngine::kRing);
  // Two logical devices of one GPU: neither NCCL nor Gloo can carry them.
  auto shared = ChooseCrossWorkerEngine(kAuto, Replicas({kGpu1, kGpu1Again}, true));
  EXPECT_EQ(shared.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(shared.status().message().find("same physical GPU 1"), std::string::npos)
      << shared.status();
}

TEST(ChooseCrossWorkerEngineTest, RingIsGlooForCpuReplicasOnly) {
  EXPECT_EQ(*ChooseCrossWorkerEngine(kRing, Replicas({kCpu}, true)), CrossWorkerEngine::kRing);
  auto gpus = ChooseCrossWorkerEngine(kRing, Replicas({kGpu0}, true));
  EXPECT_EQ(gpus.status().code(), Code::kUnimplemented);
  EXPECT_NE(gpus.status().message().find("NCCL or AUTO"), std::string::npos) << gpus.status();
}

TEST(ChooseCrossWorkerEngineTest, NcclSaysWhyItCannotServe) {
  EXPECT_EQ(*ChooseCrossWorkerEngine(kNccl, Replicas({kGpu0}, true)), CrossWorkerEngine::kNccl);
  auto unbuilt = ChooseCrossWorkerEngine(kNccl, Replicas({kGpu0}, false));
  EXPECT_EQ(unbuilt.status().code(), Code::kUnimplemented);
  EXPECT_NE(unbuilt.status().message().find("--config=cuda"), std::string::npos);
  auto no_gpu = ChooseCrossWorkerEngine(kNccl, Replicas({kCpu}, true));
  EXPECT_EQ(no_gpu.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(no_gpu.status().message().find("no GPU replicas"), std::string::npos)
      << no_gpu.status();
  EXPECT_NE(no_gpu.status().message().find("/device:CPU:0"), std::string::npos);
  auto mixed = ChooseCrossWorkerEngine(kNccl, Replicas({kGpu0, kCpu}, true));
  EXPECT_EQ(mixed.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(mixed.status().message().find("no GPU replicas"), std::string::npos);
}

TEST(AgreeOnCrossWorkerEngineTest, WorkersThatChoseAlikeAgree) {
  MemoryIdStore store;
  store.values["c/1"] = "NCCL 2";
  store.values["c/2"] = "NCCL 2";
  auto agreed = AgreeOnCrossWorkerEngine(store, "c/", 0, 3, 2, CrossWorkerEngine::kNccl,
                                         absl::Seconds(1));
  ASSERT_TRUE(agreed.ok()) << agreed.status();
  EXPECT_EQ(*agreed, CrossWorkerEngine::kNccl);
  EXPECT_EQ(store.values["c/0"], "NCCL 2");  // Published for the others.
}

TEST(AgreeOnCrossWorkerEngineTest, DifferentChoicesOrReplicaCountsFailEveryWorker) {
  MemoryIdStore store;
  store.values["c/0"] = "NCCL 1";
  auto differ =
      AgreeOnCrossWorkerEngine(store, "c/", 1, 2, 1, CrossWorkerEngine::kRing, absl::Seconds(1));
  EXPECT_EQ(differ.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(differ.status().message().find("worker 0: NCCL with 1 local replica(s); worker 1: "
                                           "RING with 1 local replica(s)"),
            std::string::npos)
      << differ.status();
  store.values["c/0"] = "RING 2";
  EXPECT_EQ(
      AgreeOnCrossWorkerEngine(store, "c/", 1, 2, 1, CrossWorkerEngine::kRing, absl::Seconds(1))
          .status()
          .code(),
      Code::kFailedPrecondition);
}

TEST(AgreeOnCrossWorkerEngineTest, AWorkerThatCannotTakePartIsNamedWithItsReason) {
  MemoryIdStore store;
  // Worker 1 has no GPU: it publishes its error and fails with it.
  const absl::Status no_gpu = absl::FailedPreconditionError("no GPU here");
  auto own = AgreeOnCrossWorkerEngine(store, "c/", 1, 2, 1, no_gpu, absl::Seconds(1));
  EXPECT_EQ(own.status(), no_gpu);
  // Worker 0 chose NCCL and learns why worker 1 will not join.
  auto theirs =
      AgreeOnCrossWorkerEngine(store, "c/", 0, 2, 1, CrossWorkerEngine::kNccl, absl::Seconds(1));
  EXPECT_EQ(theirs.status().code(), Code::kFailedPrecondition);
  EXPECT_NE(theirs.status().message().find("worker 1 cannot take part: no GPU here"),
            std::string::npos)
      << theirs.status();
}

TEST(AgreeOnCrossWorkerEngineTest, SilentOrGarbledWorkersAreErrors) {
  MemoryIdStore store;
  auto silent =
      AgreeOnCrossWorkerEngine(store, "c/", 0, 2, 1, CrossWorkerEngine::kRing, absl::Seconds(1));
  EXPECT_EQ(silent.status().code(), Code::kDeadlineExceeded);
  EXPECT_NE(silent.status().message().find("worker 1"), std::string::npos) << silent.status();
  store.values["c/1"] = "PIGEON";
  EXPECT_EQ(
      AgreeOnCrossWorkerEngine(store, "c/", 0, 2, 1, CrossWorkerEngine::kRing, absl::Seconds(1))
          .status()
          .code(),
      Code::kDataLoss);
}

// A MemoryIdStore that records the keys asked for.
class RecordingStore : public MemoryIdStore {
 public:
  absl::StatusOr<std::string> Get(const std::string& key, absl::Duration timeout) override {
    asked.push_back(key);
    return MemoryIdStore::Get(key, timeout);
  }
  std::vector<std::string> asked;
};

// Worker 0 serves the store in a job: before it fails, it waits for the
// others to have read the choices, or they would see the store vanish
// instead of the reason.
TEST(AgreeOnCrossWorkerEngineTest, AFailingWorkerZeroWaitsForTheOthersToRead) {
  RecordingStore store;
  store.values["c/0"] = "RING 1";
  store.values["c/1"] = "RING 2";
  store.values["c/2"] = "RING 1";
  // Workers 1 and 2 read the differing choices and mark that they are done.
  for (int rank : {1, 2}) {
    const int local = rank == 1 ? 2 : 1;
    EXPECT_EQ(AgreeOnCrossWorkerEngine(store, "c/", rank, 3, local, CrossWorkerEngine::kRing,
                                       absl::Seconds(1))
                  .status()
                  .code(),
              Code::kFailedPrecondition);
    EXPECT_EQ(store.values.count("c/read/" + std::to_string(rank)), 1u) << rank;
  }
  store.asked.clear();
  auto chief =
      AgreeOnCrossWorkerEngine(store, "c/", 0, 3, 1, CrossWorkerEngine::kRing, absl::Seconds(1));
  EXPECT_EQ(chief.status().code(), Code::kFailedPrecondition) << chief.status();
  EXPECT_EQ(store.asked,
            (std::vector<std::string>{"c/0", "c/1", "c/2", "c/read/1", "c/read/2"}));
  // Agreeing workers leave at once: nobody waits for marks.
  RecordingStore agree;
  agree.values["c/1"] = "RING 1";
  ASSERT_TRUE(
      AgreeOnCrossWorkerEngine(agree, "c/", 0, 2, 1, CrossWorkerEngine::kRing, absl::Seconds(1))
          .ok());
  EXPECT_EQ(agree.asked, (std::vector<std::string>{"c/0", "c/1"}));
}

TEST(NcclRanksOfWorkerTest, RanksAreWorkerMajor) {
  // Three workers of two GPUs: worker 1 holds ranks 2 and 3 of 6.
  const NcclRanks ranks = NcclRanksOfWorker(1, 3, 2);
  EXPECT_EQ(ranks.first, 2);
  EXPECT_EQ(ranks.size, 6);
  EXPECT_EQ(NcclRanksOfWorker(0, 1, 1).first, 0);
  EXPECT_EQ(NcclRanksOfWorker(4, 5, 1).first, 4);
}

}  // namespace
}  // namespace internal
}  // namespace distribute
}  // namespace tfd
