#include "core/distribute/strategy.h"

#include <thread>

#include "core/device/cpu/cpu_device.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/placement.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

using test::AsTensor;
using test::ExpectTensorEqual;

VariableSpec SpecOf(const std::string& name, std::vector<float> values) {
  VariableSpec spec;
  spec.name = name;
  spec.initial_value = [values]() -> absl::StatusOr<Tensor> {
    return Tensor::FromVector<float>(values, TensorShape({static_cast<int64_t>(values.size())}));
  };
  return spec;
}

// A replica context that only answers which replica it is.
class FakeReplicaContext : public ReplicaContext {
 public:
  FakeReplicaContext(int id, int n) : id_(id), n_(n) {}
  Strategy& strategy() const override { return DefaultStrategy(); }
  int replica_id_in_sync_group() const override { return id_; }
  int num_replicas_in_sync() const override { return n_; }
  Device* device() const override { return HostDevice(); }
  absl::StatusOr<std::vector<Tensor>> AllReduce(ReduceOp, std::vector<Tensor> v) override {
    return v;
  }
  absl::Status MergeCall(const std::function<absl::Status()>& fn) override { return fn(); }

 private:
  int id_, n_;
};

// On the host, unless the process has a default device (a GPU-default
// run): there, as the next test shows.
TEST(DefaultStrategyTest, OneReplicaOneComponentOnTheCurrentDevice) {
  EXPECT_FALSE(HasStrategy());
  EXPECT_EQ(&CurrentStrategy(), &DefaultStrategy());
  EXPECT_EQ(DefaultStrategy().num_replicas_in_sync(), 1);
  auto v = CreateVariable(SpecOf("dense/bias", {1, 2}));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)->num_components(), 1);
  EXPECT_EQ((*v)->name(), "dense/bias");
  EXPECT_EQ((*v)->component(0).device(), *CurrentDevice());
  ExpectTensorEqual((*v)->Read(), AsTensor<float>({1.0f, 2.0f}, TensorShape({2})));
}

// As TensorFlow creates variables on the default device: the fake GPU
// stands in for GPU:0 of TFD_DEFAULT_DEVICE.
TEST(DefaultStrategyTest, VariablesLiveOnTheDefaultDevice) {
  // The suite's default device (a GPU-default run sets one), restored after.
  Device* const suite_default = DefaultDevice().value_or(nullptr);
  Device* gpu = test::FakeGpu::Get();
  SetDefaultDevice(gpu);
  auto v = CreateVariable(SpecOf("dense/kernel", {3, 4}));
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ((*v)->component(0).device(), gpu);
  EXPECT_EQ((*v)->Read().device(), gpu);
  ASSERT_EQ(DefaultStrategy().replica_devices().size(), 1u);
  EXPECT_EQ(DefaultStrategy().replica_devices()[0], gpu);
  absl::StatusOr<Tensor> host = (*v)->Value();
  ASSERT_TRUE(host.ok()) << host.status();
  ExpectTensorEqual(*host, AsTensor<float>({3.0f, 4.0f}, TensorShape({2})));
  {
    // A scope still decides.
    DeviceScope scope(HostDevice());
    auto on_host = CreateVariable(SpecOf("dense/bias", {1}));
    ASSERT_TRUE(on_host.ok()) << on_host.status();
    EXPECT_EQ((*on_host)->component(0).device(), HostDevice());
  }
  SetDefaultDevice(nullptr);
  auto after = CreateVariable(SpecOf("dense_1/bias", {1}));
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ((*after)->component(0).device(), HostDevice());
  SetDefaultDevice(suite_default);
}

TEST(DefaultStrategyTest, RunCallsOnceInAReplicaContext) {
  int calls = 0;
  auto out = DefaultStrategy().Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    ++calls;
    EXPECT_EQ(CurrentReplicaContext(), &ctx);
    EXPECT_EQ(ctx.replica_id_in_sync_group(), 0);
    EXPECT_FALSE(HasStrategy());
    return std::vector<Tensor>{Tensor::Scalar<float>(3)};
  });
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(CurrentReplicaContext(), nullptr);
  auto reduced = DefaultStrategy().Reduce(ReduceOp::kSum, (*out)[0]);
  ASSERT_TRUE(reduced.ok());
  EXPECT_EQ(reduced->scalar<float>(), 3.0f);
}

TEST(DefaultStrategyTest, RunPropagatesTheReplicaError) {
  auto out = DefaultStrategy().Run([](ReplicaContext&) -> absl::StatusOr<std::vector<Tensor>> {
    return InvalidArgument("bad step");
  });
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(DefaultStrategyTest, ReduceWantsOneValuePerReplica) {
  std::vector<Tensor> two = {Tensor::Scalar<float>(1), Tensor::Scalar<float>(2)};
  EXPECT_EQ(DefaultStrategy().Reduce(ReduceOp::kSum, two).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(DistributedVariableTest, ReplicasReadTheirOwnComponent) {
  auto devices = CreateCpuLogicalDevices(2, 1);
  ASSERT_TRUE(devices.ok());
  auto v = MakeReplicatedVariable(SpecOf("w", {5, 6}), {(*devices)[0].get(), (*devices)[1].get()});
  ASSERT_TRUE(v.ok()) << v.status();
  DistributedVariable& var = **v;
  ASSERT_EQ(var.num_components(), 2);
  // Copies, not shared buffers, each on its own device.
  EXPECT_FALSE(var.component(0).Peek().SharesBufferWith(var.component(1).Peek()));
  EXPECT_EQ(var.component(1).device(), (*devices)[1].get());
  ASSERT_TRUE(var.component(1).Assign(*Tensor::FromVector<float>({7, 8}, TensorShape({2}))).ok());

  // Cross-replica context: the primary.
  EXPECT_EQ(&var.Local(), &var.component(0));
  std::thread replica1([&] {
    FakeReplicaContext ctx(1, 2);
    ReplicaContextScope scope(&ctx);
    EXPECT_EQ(&var.Local(), &var.component(1));
    ExpectTensorEqual(var.Read(), AsTensor<float>({7.0f, 8.0f}, TensorShape({2})));
  });
  replica1.join();
  auto value = var.Value();
  ASSERT_TRUE(value.ok());
  ExpectTensorEqual(*value, AsTensor<float>({5.0f, 6.0f}, TensorShape({2})));

  ASSERT_TRUE(var.AssignAll(*Tensor::FromVector<float>({0, 1}, TensorShape({2}))).ok());
  ExpectTensorEqual(var.component(0).Peek(), AsTensor<float>({0.0f, 1.0f}, TensorShape({2})));
  ExpectTensorEqual(var.component(1).Peek(), AsTensor<float>({0.0f, 1.0f}, TensorShape({2})));
}

TEST(DistributedVariableTest, BadSpecsAreErrors) {
  VariableSpec no_value;
  no_value.name = "x";
  EXPECT_EQ(MakeReplicatedVariable(no_value, {HostDevice()}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MakeReplicatedVariable(SpecOf("y", {1}), {}).status().code(),
            absl::StatusCode::kInvalidArgument);
  VariableSpec failing = SpecOf("z", {1});
  failing.initial_value = []() -> absl::StatusOr<Tensor> { return InvalidArgument("init"); };
  EXPECT_FALSE(MakeReplicatedVariable(failing, {HostDevice()}).ok());
}

TEST(ScopesTest, StrategyAndTrainingLoopScopesNest) {
  FakeReplicaContext ctx(0, 1);
  EXPECT_FALSE(InBuiltinTrainingLoop());
  {
    BuiltinTrainingLoopScope outer;
    {
      BuiltinTrainingLoopScope inner;
      EXPECT_TRUE(InBuiltinTrainingLoop());
    }
    EXPECT_TRUE(InBuiltinTrainingLoop());
  }
  EXPECT_FALSE(InBuiltinTrainingLoop());
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
