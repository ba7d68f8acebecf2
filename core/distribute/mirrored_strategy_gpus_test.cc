// MirroredStrategy over two GPU-typed devices, without a GPU: the two fake
// GPUs (fake_gpu_testutil.h), running the CUDA build's (op, dtype) kernels
// as CPU kernels (fake_gpu_kernels.h). Their GPUs are not CUDA devices, so
// NCCL cannot serve them and the strategy falls back to
// ReductionToOneDevice, which reduces on the first GPU and copies between
// the two: the cross-device path of a multi-GPU machine whose GPUs NCCL
// cannot join. Under --config=fake_gpu_suite host reads of either GPU's
// memory abort (Note [Device reads]), so every value read here goes
// through test::ToHost.
#include <cstring>
#include <string>
#include <vector>

#include "core/device/device_registry.h"
#include "core/distribute/linear_regression_testutil.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/execute.h"
#include "core/framework/fake_gpu_kernels.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/gpu_kernel_list.h"
#include "core/framework/kernel.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

using test::FakeGpu;
using test::ToDoubles;
using test::ToHost;

std::vector<Device*> Gpus() { return {FakeGpu::Get(0), FakeGpu::Get(1)}; }

class MirroredStrategyGpusTest : public ::testing::Test {
 protected:
  // The fake GPUs need GPU kernels that run on host memory. The fake-GPU
  // suite has registered them before the first test; a plain build has no
  // GPU kernels, so the test registers the same list; a build that links
  // real GPU kernels (a GPU machine's core-suite run) would launch them on
  // the fake GPUs' host memory, so there the tests skip.
  static void SetUpTestSuite() {
    if (!HasKernel("AddN", DeviceType::kGPU)) {
      absl::StatusOr<int> registered = test::RegisterFakeGpuKernels(test::kGpuKernelList);
      ASSERT_TRUE(registered.ok()) << registered.status();
      return;
    }
    absl::StatusOr<Device*> gpu0 = GetDevice(DeviceType::kGPU, 0);
    real_gpu_kernels_ = !gpu0.ok() || *gpu0 != FakeGpu::Get();
  }
  void SetUp() override {
    if (real_gpu_kernels_) {
      GTEST_SKIP() << "this build links real GPU kernels, which cannot run on the fake GPUs' "
                      "host memory";
    }
  }

  static bool real_gpu_kernels_;
};

bool MirroredStrategyGpusTest::real_gpu_kernels_ = false;

TEST_F(MirroredStrategyGpusTest, TwoGpusWithoutNcclFallBackToReductionToOneDevice) {
  auto s = MirroredStrategy::Create(Gpus());
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->replica_devices(), Gpus());
  EXPECT_EQ((*s)->cross_device_ops(), "ReductionToOneDevice");
}

TEST_F(MirroredStrategyGpusTest, AllReduceSumsAndAveragesAcrossTheGpus) {
  auto s = MirroredStrategy::Create(Gpus());
  ASSERT_TRUE(s.ok()) << s.status();
  FakeGpu* first = FakeGpu::Get(0);
  FakeGpu* second = FakeGpu::Get(1);
  const int second_to_host = second->copies_to_host();
  const int second_to_device = second->copies_to_device();
  auto out = (*s)->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    // Runs on this replica's GPU (the replica's device scope).
    TFD_ASSIGN_OR_RETURN(Tensor x, Execute1("Mul", {test::AsTensor<float>({1, 10}, {2}),
                                                    Tensor::Scalar<float>(r + 1)}));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> sum, ctx.AllReduce(ReduceOp::kSum, {x}));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> mean, ctx.AllReduce(ReduceOp::kMean, {x}));
    return std::vector<Tensor>{x, sum[0], mean[0]};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 2u);
  for (int r = 0; r < 2; ++r) {
    SCOPED_TRACE(testing::Message() << "replica " << r);
    for (const Tensor& t : (*out)[r]) EXPECT_EQ(t.device(), Gpus()[r]);
    EXPECT_EQ(ToDoubles((*out)[r][0]), (std::vector<double>{r + 1.0, 10 * (r + 1.0)}));
    EXPECT_EQ(ToDoubles((*out)[r][1]), (std::vector<double>{3, 30}));
    EXPECT_EQ(ToDoubles((*out)[r][2]), (std::vector<double>{1.5, 15}));
  }
  // The sums ran on the first GPU: the second's values went there and the
  // results came back (through the host, as between GPUs without peer
  // access).
  EXPECT_GT(second->copies_to_host(), second_to_host);
  EXPECT_GT(second->copies_to_device(), second_to_device);
  EXPECT_NE(first, second);
}

// Cross-replica reads of per-replica values copy them to the host.
TEST_F(MirroredStrategyGpusTest, ReduceAndOnReadVariablesAggregateOnTheHost) {
  auto s = MirroredStrategy::Create(Gpus());
  ASSERT_TRUE(s.ok()) << s.status();
  VariableSpec spec;
  spec.name = "count";
  spec.initial_value = []() -> absl::StatusOr<Tensor> {
    return test::AsTensor<float>({0, 0}, {2});
  };
  spec.synchronization = VariableSynchronization::kOnRead;
  spec.aggregation = VariableAggregation::kSum;
  spec.trainable = false;
  auto count = (*s)->CreateVariable(spec);
  ASSERT_TRUE(count.ok()) << count.status();
  for (int r = 0; r < 2; ++r) EXPECT_EQ((*count)->component(r).device(), Gpus()[r]);
  auto out = (*s)->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    TFD_RETURN_IF_ERROR((*count)->Local().AssignAdd(test::AsTensor<float>({1, r}, {2})));
    TFD_ASSIGN_OR_RETURN(Tensor x, Execute1("Mul", {Tensor::Scalar<float>(r + 1),
                                                    Tensor::Scalar<float>(2)}));
    return std::vector<Tensor>{x};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  auto total = (*count)->Value();
  ASSERT_TRUE(total.ok()) << total.status();
  EXPECT_EQ(ToDoubles(*total), (std::vector<double>{2, 1}));
  auto per_replica = (*s)->ExperimentalLocalResults(*out, 0);
  ASSERT_TRUE(per_replica.ok()) << per_replica.status();
  for (int r = 0; r < 2; ++r) EXPECT_EQ((*per_replica)[r].device(), Gpus()[r]);
  auto mean = (*s)->Reduce(ReduceOp::kMean, *per_replica);
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_EQ(mean->device(), HostDevice());
  EXPECT_EQ(mean->scalar<float>(), 3.0f);
}

// The linear regression of linear_regression_testutil.h: its components
// must stay bit-identical on their two GPUs and reach the weights of one
// host device training on the whole batch.
constexpr int64_t kGlobalBatch = 8;
constexpr int64_t kFeatures = 3;
constexpr int kSteps = 3;

TEST_F(MirroredStrategyGpusTest, LinearRegressionMatchesOneHostDevice) {
  const Tensor x = RandomNormal<float>(TensorShape({kGlobalBatch, kFeatures}), 1);
  const Tensor y = RandomNormal<float>(TensorShape({kGlobalBatch, 1}), 2);
  const Tensor w0 = RandomNormal<float>(TensorShape({kFeatures, 1}), 3);

  auto one = OneDeviceStrategy::Create(HostDevice());
  ASSERT_TRUE(one.ok()) << one.status();
  auto reference = TrainLinearRegression<float>(**one, x, y, w0, kSteps);
  ASSERT_TRUE(reference.ok()) << reference.status();
  // Training made progress, so the comparison below means something.
  EXPECT_LT(reference->losses.back(), reference->losses.front());

  auto mirrored = MirroredStrategy::Create(Gpus());
  ASSERT_TRUE(mirrored.ok()) << mirrored.status();
  auto trained = TrainLinearRegression<float>(**mirrored, x, y, w0, kSteps);
  ASSERT_TRUE(trained.ok()) << trained.status();
  ASSERT_EQ(trained->components.size(), 2u);
  EXPECT_EQ(trained->devices, (std::vector<const Device*>{FakeGpu::Get(0), FakeGpu::Get(1)}));
  const Tensor& w = trained->components[0];
  EXPECT_EQ(std::memcmp(trained->components[1].raw_data(), w.raw_data(), w.TotalBytes()), 0)
      << "components diverged: " << trained->components[1].DebugString() << " vs "
      << w.DebugString();
  test::ExpectTensorNear(w, reference->components[0], 1e-5, 1e-5);
  for (int step = 0; step < kSteps; ++step) {
    EXPECT_NEAR(trained->losses[step], reference->losses[step],
                1e-5 * (1 + std::abs(reference->losses[step])));
  }
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
