// End to end through the Strategy contract: a linear regression
// (linear_regression_testutil.h) trained for a few steps under each
// strategy. Mirrored components must stay bit-identical, and every
// strategy must reach the weights of one replica training on the whole
// global batch.
#include <cstring>

#include "core/distribute/central_storage_strategy.h"
#include "core/distribute/internal/cpu_replica_devices.h"
#include "core/distribute/linear_regression_testutil.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

constexpr int64_t kGlobalBatch = 12;
constexpr int64_t kFeatures = 5;
constexpr int kSteps = 4;

template <typename T>
void CheckStrategiesAgree(double tolerance) {
  const Tensor x = RandomNormal<T>(TensorShape({kGlobalBatch, kFeatures}), 1);
  const Tensor y = RandomNormal<T>(TensorShape({kGlobalBatch, 1}), 2);
  const Tensor w0 = RandomNormal<T>(TensorShape({kFeatures, 1}), 3);

  auto one = OneDeviceStrategy::Create(HostDevice());
  ASSERT_TRUE(one.ok());
  auto reference = TrainLinearRegression<T>(**one, x, y, w0, kSteps);
  ASSERT_TRUE(reference.ok()) << reference.status();
  ASSERT_EQ(reference->components.size(), 1u);
  // Training made progress, so the comparison below means something.
  EXPECT_LT(reference->losses.back(), reference->losses.front());

  std::vector<std::unique_ptr<Strategy>> strategies;
  for (int n : {2, 3, 4}) strategies.push_back(*MirroredStrategy::WithCpuReplicas(n));
  ReplicatedStrategyOptions to_one_device;
  to_one_device.cross_device_ops = "ReductionToOneDevice";
  strategies.push_back(*MirroredStrategy::WithCpuReplicas(2, to_one_device));
  ReplicatedStrategyOptions tiny_buckets;
  tiny_buckets.communication.bytes_per_pack = sizeof(T);
  strategies.push_back(*MirroredStrategy::WithCpuReplicas(3, tiny_buckets));
  strategies.push_back(*CentralStorageStrategy::Create(*internal::CpuReplicaDevices(2)));

  for (auto& strategy : strategies) {
    SCOPED_TRACE(testing::Message() << strategy->name() << " with "
                                    << strategy->num_replicas_in_sync() << " replicas");
    auto trained = TrainLinearRegression<T>(*strategy, x, y, w0, kSteps);
    ASSERT_TRUE(trained.ok()) << trained.status();
    const Tensor& w = trained->components[0];
    for (const Tensor& c : trained->components) {
      ASSERT_EQ(std::memcmp(c.raw_data(), w.raw_data(), w.TotalBytes()), 0)
          << "components diverged: " << c.DebugString() << " vs " << w.DebugString();
    }
    test::ExpectTensorNear(w, reference->components[0], tolerance, tolerance);
    for (int step = 0; step < kSteps; ++step) {
      EXPECT_NEAR(trained->losses[step], reference->losses[step],
                  tolerance * (1 + std::abs(reference->losses[step])));
    }
  }
}

TEST(StrategyTrainingTest, LinearRegressionMatchesOneDeviceInFloat64) {
  CheckStrategiesAgree<double>(1e-12);
}

TEST(StrategyTrainingTest, LinearRegressionMatchesOneDeviceInFloat32) {
  CheckStrategiesAgree<float>(1e-5);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
