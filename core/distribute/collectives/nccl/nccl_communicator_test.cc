// NCCL collectives on the GPUs of this machine. One GPU gives groups of
// one rank (NCCL still runs its kernels and streams) plus the refusals and
// timeouts; the two-rank cases need two GPUs and skip, saying so, with one.
#include "core/distribute/collectives/nccl/nccl_communicator.h"

#include <cuda_runtime_api.h>

#include <thread>  // NOLINT(build/c++11): one thread per rank.

#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/distribute/collectives/nccl/memory_id_store.h"
#include "core/distribute/collectives/nccl/nccl_unique_id_exchange.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

using test::AsTensor;
using test::ExpectTensorEqual;
using test::RandomUniformTensor;
using test::ToDoubles;

Tensor OnGpu(const Tensor& host, Device* gpu) { return *host.CopyTo(gpu); }
Tensor OnHost(const Tensor& t) { return *t.CopyTo(HostDevice()); }

// A host function that holds its stream until the test releases it.
void CUDART_CB HoldStream(void* release) {
  static_cast<absl::Notification*>(release)->WaitForNotification();
}

std::vector<Tensor> MixedInputs(uint32_t seed) {
  return {RandomUniformTensor(DT_FLOAT, TensorShape({3, 5}), seed),
          RandomUniformTensor(DT_FLOAT, TensorShape({7}), seed + 1),
          AsTensor<int64_t>({1, -2, 3}, TensorShape({3})),
          RandomUniformTensor(DT_DOUBLE, TensorShape({1000}), seed + 2),
          RandomUniformTensor(DT_FLOAT, TensorShape({0, 4}), seed + 3)};
}

TEST(NcclCommunicatorTest, OneRankAllReduceOfPackedAndWholeBucketsGivesItsInputs) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  CudaDevice* gpu = *CudaDevice::Get(0);
  auto comms = CreateNcclCommunicators({gpu});
  ASSERT_TRUE(comms.ok()) << comms.status();
  ASSERT_EQ(comms->size(), 1u);
  Communicator& comm = *(*comms)[0];
  EXPECT_EQ(comm.implementation(), "NcclAllReduce");
  EXPECT_EQ(comm.device(), gpu);
  const std::vector<Tensor> host = MixedInputs(7);
  std::vector<TensorSpec> specs;
  for (const Tensor& t : host) specs.push_back({t.dtype(), t.shape()});
  // 64-byte packs: the float tensors share buckets and span several, the
  // int64 one is a bucket of its own, the double one spans many.
  for (ReduceOp op : {ReduceOp::kSum, ReduceOp::kMean}) {
    AllReduceOptions options;
    options.op = op;
    options.communication.bytes_per_pack = 64;
    auto pending = comm.StartAllReduce(specs, options);
    ASSERT_TRUE(pending.ok()) << pending.status();
    // Handed in out of order: buckets still launch in order.
    for (int i : {3, 1, 0, 4, 2}) {
      ASSERT_TRUE((*pending)->Put(i, OnGpu(host[i], gpu)).ok());
    }
    auto out = (*pending)->Wait();
    ASSERT_TRUE(out.ok()) << out.status();
    ASSERT_EQ(out->size(), host.size());
    for (size_t i = 0; i < host.size(); ++i) {
      EXPECT_EQ((*out)[i].device(), gpu);
      ExpectTensorEqual(OnHost((*out)[i]), host[i]);
    }
  }
}

TEST(NcclCommunicatorTest, OneRankAllGatherAndBroadcast) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  CudaDevice* gpu = *CudaDevice::Get(0);
  auto comms = CreateNcclCommunicators({gpu});
  ASSERT_TRUE(comms.ok()) << comms.status();
  Communicator& comm = *(*comms)[0];
  const Tensor x = RandomUniformTensor(DT_FLOAT, TensorShape({4, 3}), 3);
  auto gathered = comm.AllGather(OnGpu(x, gpu), {});
  ASSERT_TRUE(gathered.ok()) << gathered.status();
  auto g = (*gathered)->Wait();
  ASSERT_TRUE(g.ok()) << g.status();
  ExpectTensorEqual(OnHost((*g)[0]), x);
  // Host inputs are copied to the rank's GPU first.
  auto broadcast = comm.Broadcast(x, {});
  ASSERT_TRUE(broadcast.ok()) << broadcast.status();
  auto b = (*broadcast)->Wait();
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)[0].device(), gpu);
  ExpectTensorEqual(OnHost((*b)[0]), x);
}

TEST(NcclCommunicatorTest, BadCallsFailAndPoisonTheGroup) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  CudaDevice* gpu = *CudaDevice::Get(0);
  auto comms = CreateNcclCommunicators({gpu});
  ASSERT_TRUE(comms.ok()) << comms.status();
  Communicator& comm = *(*comms)[0];
  auto pending =
      comm.StartAllReduce({{DT_FLOAT, TensorShape({2})}, {DT_FLOAT, TensorShape({2})}}, {});
  ASSERT_TRUE(pending.ok());
  ASSERT_TRUE((*pending)->Put(0, OnGpu(AsTensor<float>({1, 2}, TensorShape({2})), gpu)).ok());
  // Waiting with input 1 never handed in cannot finish.
  auto out = (*pending)->Wait();
  EXPECT_EQ(out.status().code(), absl::StatusCode::kDeadlineExceeded) << out.status();
  EXPECT_NE(out.status().message().find("input(s) 1"), std::string::npos) << out.status();
  // The group is over.
  EXPECT_EQ(comm.Broadcast(AsTensor<float>({1}, TensorShape({1})), {}).status().code(),
            absl::StatusCode::kDeadlineExceeded);

  auto fresh = CreateNcclCommunicators({gpu});
  ASSERT_TRUE(fresh.ok());
  EXPECT_EQ((*fresh)[0]->StartAllReduce({{DT_STRING, TensorShape({1})}}, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto again = CreateNcclCommunicators({gpu});
  ASSERT_TRUE(again.ok());
  (*again)[0]->Abort(absl::InternalError("replica failed"));
  auto after = (*again)[0]->AllGather(AsTensor<float>({1}, TensorShape({1})), {});
  EXPECT_EQ(after.status().code(), absl::StatusCode::kAborted);
  EXPECT_NE(after.status().message().find("replica failed"), std::string::npos);
}

// Note [Streams and events]: Wait() does not wait for the GPU, and
// Synchronize() does, without failing the group when only its own wait
// runs out.
TEST(NcclCommunicatorTest, WaitReturnsBeforeTheGpuIsDoneAndSynchronizeWaitsForIt) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  CudaDevice* gpu = *CudaDevice::Get(0);
  auto comms = CreateNcclCommunicators({gpu});
  ASSERT_TRUE(comms.ok()) << comms.status();
  Communicator& comm = *(*comms)[0];
  const Tensor x = RandomUniformTensor(DT_FLOAT, TensorShape({3, 100}), 9);
  const Tensor y = RandomUniformTensor(DT_FLOAT, TensorShape({50}), 10);
  const Tensor x_gpu = OnGpu(x, gpu), y_gpu = OnGpu(y, gpu);
  AllReduceOptions options;
  options.communication.bytes_per_pack = 256;  // A packed bucket and slices of x.
  // A first round warms NCCL and the allocator up, so the second needs no
  // cudaMalloc (which could wait for the held stream).
  ASSERT_TRUE(AllReduceAndWait(comm, {x_gpu, y_gpu}, options).ok());
  ASSERT_TRUE(comm.Synchronize(absl::Seconds(30)).ok());
  absl::Notification release;
  ASSERT_EQ(cudaLaunchHostFunc(gpu->stream(), HoldStream, &release), cudaSuccess);
  auto sums = AllReduceAndWait(comm, {x_gpu, y_gpu}, options);
  ASSERT_TRUE(sums.ok()) << sums.status();  // Returned with the GPU held.
  absl::Status early = comm.Synchronize(absl::Milliseconds(50));
  EXPECT_EQ(early.code(), absl::StatusCode::kDeadlineExceeded) << early;
  EXPECT_NE(early.message().find("AllReduce #1"), std::string::npos) << early;
  release.Notify();
  EXPECT_TRUE(comm.Synchronize(absl::Seconds(30)).ok());
  ExpectTensorEqual(OnHost((*sums)[0]), x);
  ExpectTensorEqual(OnHost((*sums)[1]), y);
}

// A peer that never joins: the watchdog times the collective out, aborts
// the communicators (which lets the GPU streams go on) and every later
// call of the group fails with the real error.
TEST(NcclCommunicatorTest, WatchdogTimesOutACollectiveAPeerNeverJoins) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  if (CudaDevice::DeviceCount() < 2) GTEST_SKIP() << "needs two GPUs";
  std::vector<Device*> gpus = {*CudaDevice::Get(0), *CudaDevice::Get(1)};
  auto comms = CreateNcclCommunicators(gpus);
  ASSERT_TRUE(comms.ok()) << comms.status();
  AllReduceOptions options;
  options.communication.timeout = absl::Milliseconds(500);
  const Tensor x = OnGpu(RandomUniformTensor(DT_FLOAT, TensorShape({64}), 4), gpus[0]);
  // A first all-reduce on both ranks connects them (NCCL may connect
  // lazily, in the host call, which needs every rank).
  std::thread warm_up([&] {
    const Tensor y = OnGpu(RandomUniformTensor(DT_FLOAT, TensorShape({64}), 5), gpus[1]);
    EXPECT_TRUE(AllReduceAndWait(*(*comms)[1], {y}, {}).ok());
  });
  ASSERT_TRUE(AllReduceAndWait(*(*comms)[0], {x}, {}).ok());
  warm_up.join();
  // Rank 1 never calls: rank 0's Wait() still returns (the GPU is not
  // waited for), and Synchronize() reports the timeout.
  auto lonely = AllReduceAndWait(*(*comms)[0], {x}, options);
  EXPECT_TRUE(lonely.ok()) << lonely.status();
  absl::Status synced = (*comms)[0]->Synchronize(absl::Seconds(60));
  EXPECT_EQ(synced.code(), absl::StatusCode::kDeadlineExceeded) << synced;
  EXPECT_NE(synced.message().find("AllReduce #1 timed out after 500ms on rank 0"),
            std::string::npos)
      << synced;
  // The abort ended NCCL's kernel: the compute stream is free again.
  EXPECT_TRUE(gpus[0]->Synchronize().ok());
  auto later = (*comms)[1]->AllGather(x, {});
  EXPECT_EQ(later.status(), synced);
  EXPECT_EQ((*comms)[0]->Synchronize(absl::Seconds(1)), synced);
}

TEST(NcclCommunicatorTest, RefusesTwoRanksOnOnePhysicalGpuAndNonGpus) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  auto logical = CudaDevice::CreateLogical(0, 2);
  ASSERT_TRUE(logical.ok()) << logical.status();
  auto comms = CreateNcclCommunicators({(*logical)[0], (*logical)[1]});
  EXPECT_EQ(comms.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(comms.status().message().find("same physical GPU 0"), std::string::npos)
      << comms.status();
  EXPECT_EQ(CreateNcclCommunicators({HostDevice()}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CreateNcclCommunicators({}).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(NcclCommunicatorTest, RankCommunicatorJoinsThroughTheExchangedId) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  CudaDevice* gpu = *CudaDevice::Get(0);
  MemoryIdStore store;
  auto id = ExchangeNcclUniqueId(store, "nccl/test", 0, absl::Seconds(5), NewNcclUniqueId);
  ASSERT_TRUE(id.ok()) << id.status();
  auto comm = CreateNcclRankCommunicators(0, 1, {gpu}, *id, absl::Seconds(30));
  ASSERT_TRUE(comm.ok()) << comm.status();
  ASSERT_EQ(comm->size(), 1u);
  const Tensor x = RandomUniformTensor(DT_FLOAT, TensorShape({33}), 5);
  auto sum = AllReduceAndWait(*(*comm)[0], {OnGpu(x, gpu)}, {});
  ASSERT_TRUE(sum.ok()) << sum.status();
  ExpectTensorEqual(OnHost((*sum)[0]), x);
}

TEST(NcclCommunicatorTest, RankWhosePeerNeverJoinsTimesOut) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  CudaDevice* gpu = *CudaDevice::Get(0);
  auto id = NewNcclUniqueId();
  ASSERT_TRUE(id.ok()) << id.status();
  const absl::Time start = absl::Now();
  auto comm = CreateNcclRankCommunicators(0, 2, {gpu}, *id, absl::Seconds(2));
  EXPECT_EQ(comm.status().code(), absl::StatusCode::kDeadlineExceeded) << comm.status();
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
  EXPECT_EQ(CreateNcclRankCommunicators(2, 2, {gpu}, *id, absl::Seconds(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(CreateNcclRankCommunicators(0, 1, {gpu}, "short", absl::Seconds(1)).status().code(),
            absl::StatusCode::kInvalidArgument);
  // Two ranks of this process may not share a GPU.
  auto shared = CreateNcclRankCommunicators(0, 2, {gpu, gpu}, *id, absl::Seconds(1));
  EXPECT_EQ(shared.status().code(), absl::StatusCode::kInvalidArgument) << shared.status();
}

// Two GPUs of this process as ranks 1 and 2 of a group of three whose rank
// 0 is a third GPU (as two workers would hold them): one id, one group
// call per process.
TEST(NcclCommunicatorTest, SeveralLocalRanksOfAJobWideGroupSum) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  if (CudaDevice::DeviceCount() < 3) GTEST_SKIP() << "needs 3 GPUs";
  std::vector<Device*> gpus = {*CudaDevice::Get(0), *CudaDevice::Get(1), *CudaDevice::Get(2)};
  auto id = NewNcclUniqueId();
  ASSERT_TRUE(id.ok()) << id.status();
  absl::StatusOr<std::vector<std::unique_ptr<Communicator>>> first, rest;
  std::thread other([&] {
    rest = CreateNcclRankCommunicators(1, 3, {gpus[1], gpus[2]}, *id, absl::Seconds(60));
  });
  first = CreateNcclRankCommunicators(0, 3, {gpus[0]}, *id, absl::Seconds(60));
  other.join();
  ASSERT_TRUE(first.ok()) << first.status();
  ASSERT_TRUE(rest.ok()) << rest.status();
  std::vector<Communicator*> comms = {(*first)[0].get(), (*rest)[0].get(), (*rest)[1].get()};
  std::vector<absl::StatusOr<std::vector<Tensor>>> sums(3);
  std::vector<std::thread> threads;
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(comms[r]->rank(), r);
    EXPECT_EQ(comms[r]->group_size(), 3);
    threads.emplace_back([&, r] {
      Tensor x = *Tensor::FromVector<float>({1.0f * (r + 1), 10.0f}, TensorShape({2}));
      sums[r] = AllReduceAndWait(*comms[r], {OnGpu(x, gpus[r])}, {});
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < 3; ++r) {
    ASSERT_TRUE(sums[r].ok()) << sums[r].status();
    ExpectTensorEqual(OnHost((*sums[r])[0]),
                      *Tensor::FromVector<float>({6.0f, 30.0f}, TensorShape({2})));
  }
}

TEST(NcclCommunicatorTest, TwoGpusSumAndGatherAcrossRanks) {
  TFD_SKIP_WITHOUT_CUDA_DEVICE();
  if (CudaDevice::DeviceCount() < 2) GTEST_SKIP() << "needs two GPUs";
  std::vector<Device*> gpus = {*CudaDevice::Get(0), *CudaDevice::Get(1)};
  auto comms = CreateNcclCommunicators(gpus);
  ASSERT_TRUE(comms.ok()) << comms.status();
  const std::vector<Tensor> a = MixedInputs(11), b = MixedInputs(23);
  std::vector<absl::StatusOr<std::vector<Tensor>>> sums(2), gathers(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r) {
    threads.emplace_back([&, r]() {
      std::vector<Tensor> in;
      for (const Tensor& t : r == 0 ? a : b) in.push_back(OnGpu(t, gpus[r]));
      AllReduceOptions options;
      options.communication.bytes_per_pack = 64;
      sums[r] = AllReduceAndWait(*(*comms)[r], in, options);
      Tensor rows = OnGpu(RandomUniformTensor(DT_FLOAT, TensorShape({r + 1, 2}), r), gpus[r]);
      auto handle = (*comms)[r]->AllGather(rows, {});
      gathers[r] = handle.ok() ? (*handle)->Wait() : handle.status();
    });
  }
  for (std::thread& t : threads) t.join();
  for (int r = 0; r < 2; ++r) {
    ASSERT_TRUE(sums[r].ok()) << sums[r].status();
    ASSERT_TRUE(gathers[r].ok()) << gathers[r].status();
    for (size_t i = 0; i < a.size(); ++i) {
      std::vector<double> x = ToDoubles(a[i]), y = ToDoubles(b[i]);
      std::vector<double> got = ToDoubles(OnHost((*sums[r])[i]));
      ASSERT_EQ(got.size(), x.size());
      for (size_t k = 0; k < x.size(); ++k) EXPECT_NEAR(got[k], x[k] + y[k], 1e-6);
    }
    EXPECT_EQ((*gathers[r])[0].shape(), TensorShape({3, 2}));
  }
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
