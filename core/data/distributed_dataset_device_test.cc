// Distributed input on device replicas (InputOptions): each replica's
// batch arrives on its device with the values the host run gives, host
// replicas keep host tensors, the last step's empty batches too, and bad
// options are refused. Devices are the FakeGpu, whose copies land only
// when a fence is waited for, so equal values prove the wait.
#include <memory>

#include "core/data/distributed_dataset.h"
#include "core/data/transforms.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace data {
namespace {

using test::FakeGpu;

// 0 .. n-1 as float features [n, 2] (2i, 2i+1) and int64 labels [n].
DatasetPtr Batches(int64_t n, int64_t batch) {
  std::vector<float> x(2 * n);
  std::vector<int64_t> y(n);
  for (int64_t i = 0; i < n; ++i) {
    x[2 * i] = 2.0f * i;
    x[2 * i + 1] = 2.0f * i + 1;
    y[i] = i;
  }
  auto ds = FromTensorSlices({test::AsTensor<float>(x, {n, 2}), test::AsTensor<int64_t>(y, {n})});
  return *Batch(*ds, batch, /*drop_remainder=*/false);
}

std::vector<std::vector<Element>> AllSteps(const DistributedDatasetPtr& dist) {
  std::vector<std::vector<Element>> out;
  auto it = dist->MakeIterator();
  EXPECT_TRUE(it.ok()) << it.status();
  if (!it.ok()) return out;
  while (true) {
    auto step = (*it)->GetNext();
    EXPECT_TRUE(step.ok()) << step.status();
    if (!step.ok() || !*step) break;
    out.push_back(**step);
  }
  return out;
}

void ExpectSameSteps(const std::vector<std::vector<Element>>& got,
                     const std::vector<std::vector<Element>>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t s = 0; s < got.size(); ++s) {
    ASSERT_EQ(got[s].size(), want[s].size());
    for (size_t r = 0; r < got[s].size(); ++r) {
      ASSERT_EQ(got[s][r].size(), want[s][r].size());
      for (size_t c = 0; c < got[s][r].size(); ++c) {
        test::ExpectTensorEqual(got[s][r][c], want[s][r][c]);
      }
    }
  }
}

TEST(DistributedDatasetDeviceTest, EachReplicaGetsItsBatchOnItsDevice) {
  FakeGpu* gpu = FakeGpu::Get();
  DistributeOptions options;
  // Replica 0 on the (fake) GPU, replica 1 on the host.
  options.input_options.replica_devices = {gpu, HostDevice()};
  auto on_devices = DistributeDataset(Batches(10, 4), 2, options);
  auto on_host = DistributeDataset(Batches(10, 4), 2);
  ASSERT_TRUE(on_devices.ok() && on_host.ok()) << on_devices.status();
  const int waits = gpu->fence_waits();
  auto got = AllSteps(*on_devices);
  auto want = AllSteps(*on_host);
  ASSERT_EQ(got.size(), 3u);
  for (const auto& step : got) {
    for (const Tensor& t : step[0]) EXPECT_EQ(t.device(), gpu);
    for (const Tensor& t : step[1]) EXPECT_TRUE(t.device()->host_memory());
  }
  ExpectSameSteps(got, want);
  // Two components per step for the GPU replica; the last one has two rows.
  EXPECT_EQ(gpu->fence_waits() - waits, 6);
}

TEST(DistributedDatasetDeviceTest, EmptyBatchesOfTheLastStepAreOnTheDeviceToo) {
  FakeGpu* gpu = FakeGpu::Get();
  DistributeOptions options;
  options.input_options.replica_devices = {gpu, gpu, gpu, gpu};
  // 5 rows, 4 replicas: 2, 2, 1, 0 (Note [How a global batch is split]).
  auto dist = DistributeDataset(Batches(5, 5), 4, options);
  ASSERT_TRUE(dist.ok());
  auto got = AllSteps(*dist);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0][3][0].shape(), TensorShape({0, 2}));
  EXPECT_EQ(got[0][3][0].device(), gpu);
  EXPECT_EQ(test::ToHost(got[0][2][1]).flat<int64_t>()[0], 4);
  ExpectSameSteps(got, AllSteps(*DistributeDataset(Batches(5, 5), 4)));
}

TEST(DistributedDatasetDeviceTest, FetchToDeviceOffKeepsHostTensors) {
  DistributeOptions options;
  options.input_options.replica_devices = {FakeGpu::Get(), FakeGpu::Get()};
  options.input_options.fetch_to_device = false;
  auto got = AllSteps(*DistributeDataset(Batches(4, 4), 2, options));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0][0][0].device()->host_memory());
  EXPECT_TRUE(got[0][1][1].device()->host_memory());
}

TEST(DistributedDatasetDeviceTest, HostReplicasAreUnchanged) {
  DistributeOptions options;
  options.input_options.replica_devices = {HostDevice(), HostDevice()};
  auto got = AllSteps(*DistributeDataset(Batches(8, 4), 2, options));
  auto want = AllSteps(*DistributeDataset(Batches(8, 4), 2));
  ExpectSameSteps(got, want);
  for (const auto& step : got) EXPECT_TRUE(step[1][0].device()->host_memory());
}

TEST(DistributedDatasetDeviceTest, FromFunctionPrefetchesPerReplicaBatches) {
  FakeGpu* gpu = FakeGpu::Get();
  InputOptions input;
  input.replica_devices = {gpu, gpu};
  input.per_replica_buffer_size = 3;
  auto fn = [](const InputContext&) -> absl::StatusOr<DatasetPtr> { return Batches(12, 3); };
  auto dist = DistributeDatasetsFromFunction(fn, 2, 1, 0, input);
  ASSERT_TRUE(dist.ok()) << dist.status();
  auto got = AllSteps(*dist);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1][1][1].device(), gpu);
  ExpectSameSteps(got, AllSteps(*DistributeDatasetsFromFunction(fn, 2)));
}

TEST(DistributedDatasetDeviceTest, BadInputOptionsAreRefused) {
  DistributeOptions options;
  options.input_options.replica_devices = {FakeGpu::Get()};
  auto dist = DistributeDataset(Batches(4, 4), 2, options);
  EXPECT_EQ(dist.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(dist.status().message().find("1 replica devices for 2 local replicas"),
            std::string::npos)
      << dist.status();
  options.input_options.replica_devices = {};
  options.input_options.per_replica_buffer_size = 0;
  EXPECT_EQ(DistributeDataset(Batches(4, 4), 2, options).status().code(),
            absl::StatusCode::kInvalidArgument);
  InputOptions input;
  input.replica_devices = {FakeGpu::Get(), FakeGpu::Get(), FakeGpu::Get()};
  auto fn = [](const InputContext&) -> absl::StatusOr<DatasetPtr> { return Batches(4, 2); };
  EXPECT_EQ(DistributeDatasetsFromFunction(fn, 2, 1, 0, input).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DistributedDatasetDeviceTest, ErrorsWhileIteratingPassThrough) {
  DistributeOptions options;
  options.input_options.replica_devices = {FakeGpu::Get(), FakeGpu::Get()};
  // Scalars are not batches: the split fails when iterating.
  auto scalars = FromTensorSlices({test::AsTensor<int64_t>({1, 2, 3}, {3})});
  auto dist = DistributeDataset(*scalars, 2, options);
  ASSERT_TRUE(dist.ok());
  auto it = (*dist)->MakeIterator();
  ASSERT_TRUE(it.ok());
  auto step = (*it)->GetNext();
  EXPECT_EQ(step.status().code(), absl::StatusCode::kInvalidArgument);
  auto after = (*it)->GetNext();
  ASSERT_TRUE(after.ok());
  EXPECT_FALSE(after->has_value());
}

}  // namespace
}  // namespace data
}  // namespace tfd
