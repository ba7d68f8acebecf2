// PrefetchToDevice and distributed input on a real GPU: elements equal the
// host's, an element used by a kernel right after it was handed out gives
// the host's result (the compute stream waited for the copy stream), and
// replicas on logical GPUs get their own batches there. Skips without a
// GPU.
#include <vector>

#include "core/data/distributed_dataset.h"
#include "core/data/prefetch_to_device.h"
#include "core/data/transforms.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace data {
namespace {

// 256 x 784 floats per batch, as a Fashion-MNIST batch, and int32 labels.
DatasetPtr Batches(int64_t batches) {
  const int64_t rows = 256 * batches;
  std::vector<float> x(rows * 784);
  std::vector<int32_t> y(rows);
  for (int64_t i = 0; i < rows * 784; ++i) x[i] = static_cast<float>(i % 9973) * 0.001f;
  for (int64_t i = 0; i < rows; ++i) y[i] = static_cast<int32_t>(i % 10);
  auto ds = FromTensorSlices({test::AsTensor<float>(x, {rows, 784}),
                              test::AsTensor<int32_t>(y, {rows})});
  return *Batch(*ds, 256, /*drop_remainder=*/true);
}

using PrefetchToDeviceGpuTest = test::GpuTest;

TEST_F(PrefetchToDeviceGpuTest, ValuesEqualTheHostValues) {
  DatasetPtr host = Batches(12);
  auto ds = PrefetchToDevice(host, gpu_, 3);
  ASSERT_TRUE(ds.ok()) << ds.status();
  auto got = Collect(*ds);
  auto want = Collect(host);
  ASSERT_TRUE(got.ok()) << got.status();
  ASSERT_TRUE(want.ok());
  ASSERT_EQ(got->size(), want->size());
  for (size_t i = 0; i < got->size(); ++i) {
    for (size_t c = 0; c < 2; ++c) {
      EXPECT_EQ((*got)[i][c].device(), gpu_);
      test::ExpectTensorEqual((*got)[i][c], (*want)[i][c]);
    }
  }
}

TEST_F(PrefetchToDeviceGpuTest, KernelRightAfterTheHandOutSeesTheCopy) {
  DatasetPtr host = Batches(16);
  auto ds = PrefetchToDevice(host, gpu_, 4);
  ASSERT_TRUE(ds.ok());
  auto it = (*ds)->MakeIterator();
  auto host_it = host->MakeIterator();
  ASSERT_TRUE(it.ok() && host_it.ok());
  std::vector<Tensor> results, expected;
  while (true) {
    auto e = (*it)->GetNext();
    ASSERT_TRUE(e.ok()) << e.status();
    if (!*e) break;
    // Queued on the compute stream at once, while later copies run.
    auto doubled = Execute1("Mul", {(**e)[0], (**e)[0]});
    ASSERT_TRUE(doubled.ok()) << doubled.status();
    EXPECT_EQ(doubled->device(), gpu_);
    results.push_back(*doubled);
    auto h = (*host_it)->GetNext();
    ASSERT_TRUE(h.ok() && h->has_value());
    auto on_host = Execute1("Mul", {(**h)[0], (**h)[0]}, AttrMap(), HostDevice());
    ASSERT_TRUE(on_host.ok());
    expected.push_back(*on_host);
  }
  ASSERT_EQ(results.size(), 16u);
  for (size_t i = 0; i < results.size(); ++i) test::ExpectTensorEqual(results[i], expected[i]);
}

TEST_F(PrefetchToDeviceGpuTest, ReplicasOnLogicalGpusGetTheirBatches) {
  auto logical = CudaDevice::CreateLogical(0, 2);
  ASSERT_TRUE(logical.ok()) << logical.status();
  DistributeOptions options;
  options.input_options.replica_devices = {(*logical)[0], (*logical)[1]};
  auto on_gpus = DistributeDataset(Batches(6), 2, options);
  auto on_host = DistributeDataset(Batches(6), 2);
  ASSERT_TRUE(on_gpus.ok() && on_host.ok());
  auto it = (*on_gpus)->MakeIterator();
  auto host_it = (*on_host)->MakeIterator();
  ASSERT_TRUE(it.ok() && host_it.ok());
  int steps = 0;
  while (true) {
    auto step = (*it)->GetNext();
    auto host_step = (*host_it)->GetNext();
    ASSERT_TRUE(step.ok() && host_step.ok()) << step.status();
    ASSERT_EQ(step->has_value(), host_step->has_value());
    if (!*step) break;
    ++steps;
    for (int r = 0; r < 2; ++r) {
      EXPECT_EQ((**step)[r][0].device(), (*logical)[r]);
      test::ExpectTensorEqual((**step)[r][0], (**host_step)[r][0]);
      test::ExpectTensorEqual((**step)[r][1], (**host_step)[r][1]);
    }
  }
  EXPECT_EQ(steps, 6);
}

}  // namespace
}  // namespace data
}  // namespace tfd
