#include "core/distribute/mirrored_strategy.h"

#include <cstring>

#include "core/device/device_registry.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

VariableSpec Spec(const std::string& name, std::vector<float> values) {
  VariableSpec spec;
  spec.name = name;
  spec.initial_value = [values]() -> absl::StatusOr<Tensor> {
    return Tensor::FromVector<float>(values, TensorShape({static_cast<int64_t>(values.size())}));
  };
  return spec;
}

TEST(MirroredStrategyTest, NamesAndDevices) {
  auto s = MirroredStrategy::WithCpuReplicas(3);
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->name(), "MirroredStrategy");
  EXPECT_EQ((*s)->num_replicas_in_sync(), 3);
  std::vector<Device*> devices = (*s)->replica_devices();
  ASSERT_EQ(devices.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(devices[i]->name(), "/device:CPU:" + std::to_string(i));
    EXPECT_NE(devices[i], HostDevice());
  }
  // The same n reuses the same logical devices (they live for the process).
  EXPECT_EQ((*MirroredStrategy::WithCpuReplicas(3))->replica_devices(), devices);
}

// As TensorFlow's MirroredStrategy(): one replica per visible GPU, else one
// on the host. A plain build has no GPUs; a GPU-default run of the core
// suite has at least one.
TEST(MirroredStrategyTest, DefaultIsEveryGpuElseTheHost) {
  std::vector<Device*> expected;
  for (int i = 0; i < DeviceCount(DeviceType::kGPU); ++i) {
    absl::StatusOr<Device*> gpu = GetDevice(DeviceType::kGPU, i);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    expected.push_back(*gpu);
  }
  if (expected.empty()) expected.push_back(HostDevice());
  auto s = MirroredStrategy::Create();
  ASSERT_TRUE(s.ok()) << s.status();
  EXPECT_EQ((*s)->replica_devices(), expected);
  auto out = (*s)->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    return ctx.AllReduce(ReduceOp::kMean, {Tensor::Scalar<float>(5)});
  });
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), expected.size());
  for (const std::vector<Tensor>& replica : *out) {
    EXPECT_EQ(test::ToHost(replica[0]).scalar<float>(), 5.0f);
  }
}

TEST(MirroredStrategyTest, VariablesHaveOneIdenticalComponentPerReplica) {
  auto s = MirroredStrategy::WithCpuReplicas(3);
  ASSERT_TRUE(s.ok());
  MirroredStrategy& strategy = **s;
  std::shared_ptr<DistributedVariable> w, metric;
  {
    StrategyScope scope(&strategy);
    w = *CreateVariable(Spec("dense/kernel", {0.1f, 0.2f, 0.3f}));
    VariableSpec on_read = Spec("total", {0});
    on_read.synchronization = VariableSynchronization::kOnRead;
    on_read.aggregation = VariableAggregation::kSum;
    on_read.trainable = false;
    metric = *CreateVariable(on_read);
  }
  for (DistributedVariable* v : {w.get(), metric.get()}) {
    ASSERT_EQ(v->num_components(), 3);
    for (int i = 0; i < 3; ++i) {
      EXPECT_EQ(v->component(i).device(), strategy.replica_devices()[i]);
      EXPECT_EQ(std::memcmp(v->component(i).Peek().raw_data(), v->component(0).Peek().raw_data(),
                            v->component(0).Peek().TotalBytes()),
                0);
      if (i > 0) {
        EXPECT_FALSE(v->component(i).Peek().SharesBufferWith(v->component(0).Peek()));
      }
    }
  }
  EXPECT_EQ(metric->synchronization(), VariableSynchronization::kOnRead);
  EXPECT_EQ(strategy.ExperimentalLocalResults(*w).size(), 3u);
  // Inside Run each replica reads its own component.
  auto out = strategy.Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const int r = ctx.replica_id_in_sync_group();
    EXPECT_EQ(&w->Local(), &w->component(r));
    // ON_READ: each replica writes its own component.
    TFD_RETURN_IF_ERROR(metric->Local().Assign(
        *Tensor::FromVector<float>({static_cast<float>(r + 1)}, TensorShape({1}))));
    return std::vector<Tensor>{w->Read()};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ((*out)[r][0].device(), strategy.replica_devices()[r]);
    EXPECT_EQ(metric->component(r).Peek().scalar<float>(), r + 1.0f);
  }
}

TEST(MirroredStrategyTest, ReduceCombinesOneValuePerReplicaOnTheHost) {
  auto s = MirroredStrategy::WithCpuReplicas(3);
  ASSERT_TRUE(s.ok());
  auto out = (*s)->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    return std::vector<Tensor>{*Tensor::FromVector<float>({r, 10 * r + 1}, TensorShape({2}))};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  auto per_replica = (*s)->ExperimentalLocalResults(*out, 0);
  ASSERT_TRUE(per_replica.ok());
  auto sum = (*s)->Reduce(ReduceOp::kSum, *per_replica);
  ASSERT_TRUE(sum.ok()) << sum.status();
  EXPECT_EQ(sum->device(), HostDevice());
  test::ExpectTensorEqual(*sum, *Tensor::FromVector<float>({3, 33}, TensorShape({2})));
  auto mean = (*s)->Reduce(ReduceOp::kMean, *per_replica);
  ASSERT_TRUE(mean.ok()) << mean.status();
  test::ExpectTensorEqual(*mean, *Tensor::FromVector<float>({1, 11}, TensorShape({2})));
  EXPECT_EQ((*s)->Reduce(ReduceOp::kSum, {(*per_replica)[0]}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(MirroredStrategyTest, OnReadVariablesAggregateInCrossReplicaContext) {
  auto s = MirroredStrategy::WithCpuReplicas(2);
  ASSERT_TRUE(s.ok());
  VariableSpec spec = Spec("count", {0, 0});
  spec.synchronization = VariableSynchronization::kOnRead;
  spec.aggregation = VariableAggregation::kSum;
  spec.trainable = false;
  auto v = (*s)->CreateVariable(spec);
  ASSERT_TRUE(v.ok());
  auto out = (*s)->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    const float r = static_cast<float>(ctx.replica_id_in_sync_group());
    TFD_RETURN_IF_ERROR(
        (*v)->Local().AssignAdd(*Tensor::FromVector<float>({1, r}, TensorShape({2}))));
    return std::vector<Tensor>{};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  auto total = (*v)->Value();
  ASSERT_TRUE(total.ok()) << total.status();
  test::ExpectTensorEqual(*total, *Tensor::FromVector<float>({2, 1}, TensorShape({2})));
}

TEST(MirroredStrategyTest, SynchronizationNoneIsRefusedAsTensorFlowDoes) {
  auto s = MirroredStrategy::WithCpuReplicas(2);
  ASSERT_TRUE(s.ok());
  VariableSpec spec = Spec("v", {1});
  spec.synchronization = VariableSynchronization::kNone;
  auto v = (*s)->CreateVariable(spec);
  EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("`NONE` variable synchronization mode is not supported"),
            std::string::npos);
  EXPECT_NE(v.status().message().find("variable: v"), std::string::npos);
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
