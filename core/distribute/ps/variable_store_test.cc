#include "core/distribute/ps/variable_store.h"

#include "core/framework/fake_gpu_kernels.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/placement.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace ps {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatNear;
using ::testing::HasSubstr;

OptimizerConfig Sgd(float lr, float momentum = 0, bool nesterov = false) {
  OptimizerConfig config;
  config.set_learning_rate(lr);
  config.set_momentum(momentum);
  config.set_nesterov(nesterov);
  return config;
}

Tensor Vec(std::vector<float> v) {
  return *Tensor::FromVector(v, TensorShape({static_cast<int64_t>(v.size())}));
}

std::vector<float> Values(const Tensor& t) { return {t.flat<float>().begin(), t.flat<float>().end()}; }

TEST(VariableStoreTest, PlainSgd) {
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1, 2}), Sgd(0.5f)).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({2, -4})).ok());
  EXPECT_THAT(Values(*store.Read("w")), ElementsAre(0.0f, 4.0f));
}

// State a layer updates (moving statistics): subtracted in place, the
// optimizer's slots and step untouched.
TEST(VariableStoreTest, AssignSubLeavesTheOptimizerAlone) {
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1, 2}), Sgd(0.1f, 0.9f)).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1, 1})).ok());
  ASSERT_TRUE(store.AssignSub("w", Vec({0.5f, -1})).ok());
  auto state = store.ReadState("w");
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_THAT(Values(state->value), ElementsAre(FloatNear(0.4f, 1e-6), FloatNear(2.9f, 1e-6)));
  EXPECT_EQ(state->step, 1);
  EXPECT_THAT(Values(state->slots[0]), ElementsAre(FloatNear(-0.1f, 1e-7), FloatNear(-0.1f, 1e-7)));
  EXPECT_EQ(store.AssignSub("w", Vec({1})).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.AssignSub("nope", Vec({1})).code(), absl::StatusCode::kNotFound);
}

// A ps keeps its values in host memory whatever the process's default
// device: a value handed in from a GPU is copied to the host, and the
// store's own ops run there. The FakeGpu counts the copies to and from it.
TEST(VariableStoreTest, ValuesStayInHostMemoryUnderADefaultGpu) {
  test::FakeGpu* gpu = test::FakeGpu::Get();
  // A GPU kernel for Sub, so that a default-device placement would take it.
  ASSERT_TRUE(test::RegisterFakeGpuKernels("Sub float32\n").ok());
  Device* const previous_default = DefaultDevice().value_or(nullptr);
  SetDefaultDevice(gpu);
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1, 2}), Sgd(0.1f)).ok());
  absl::StatusOr<Tensor> on_gpu = Vec({5, 6}).CopyTo(gpu);
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
  const int to_host = gpu->copies_to_host();
  ASSERT_TRUE(store.Assign("w", *on_gpu).ok());
  EXPECT_EQ(gpu->copies_to_host() - to_host, 1) << "the GPU value was not copied to the host";
  // On the GPU, Sub would first copy its two host inputs there.
  const int to_device = gpu->copies_to_device();
  ASSERT_TRUE(store.AssignSub("w", Vec({1, 1})).ok());
  EXPECT_EQ(gpu->copies_to_device(), to_device) << "AssignSub ran on the default GPU";
  absl::StatusOr<Tensor> read = store.Read("w");
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_TRUE(read->device()->host_memory());
  EXPECT_THAT(Values(*read), ElementsAre(4.0f, 5.0f));
  SetDefaultDevice(previous_default);
}

TEST(VariableStoreTest, GradientCarriesTheRuleOfALaterCompile) {
  // Created with plain SGD at lr 0 (the model was built before Compile);
  // the gradients bring SGD(0.1, momentum=0.9): w = 0.9, then 0.71.
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1}), Sgd(0)).ok());
  const OptimizerConfig momentum = Sgd(0.1f, 0.9f);
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1}), &momentum).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1}), &momentum).ok());
  EXPECT_THAT(Values(*store.Read("w")), ElementsAre(FloatNear(0.71f, 1e-6)));
  // Without a rule the last one stays.
  ASSERT_TRUE(store.ApplyGradient("w", Vec({0})).ok());
  EXPECT_THAT(Values(*store.Read("w")), ElementsAre(FloatNear(0.539f, 1e-6)));
  const OptimizerConfig bad = Sgd(-1);
  EXPECT_EQ(store.ApplyGradient("w", Vec({1}), &bad).code(), absl::StatusCode::kInvalidArgument);
}

TEST(VariableStoreTest, StateRoundTripsAndIsChecked) {
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1}), Sgd(0.1f, 0.9f)).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1})).ok());
  auto state = store.ReadState("w");
  ASSERT_TRUE(state.ok()) << state.status();
  EXPECT_EQ(state->step, 1);
  ASSERT_EQ(state->slots.size(), 1u);
  EXPECT_THAT(Values(state->slots[0]), ElementsAre(FloatNear(-0.1f, 1e-7)));
  // A fresh store given that state goes on as the first: w = 0.71.
  VariableStore restored;
  ASSERT_TRUE(restored.Create("w", Vec({5}), Sgd(0)).ok());
  ASSERT_TRUE(restored.AssignState("w", *state).ok());
  ASSERT_TRUE(restored.ApplyGradient("w", Vec({1})).ok());
  EXPECT_THAT(Values(*restored.Read("w")), ElementsAre(FloatNear(0.71f, 1e-6)));
  // Adam keeps two slots, not one.
  VariableStore::State wrong = *state;
  wrong.optimizer.set_kind(OptimizerConfig::ADAM);
  wrong.optimizer.set_beta_1(0.9f);
  wrong.optimizer.set_beta_2(0.999f);
  const absl::Status status = restored.AssignState("w", wrong);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("keeps 2 slots, got 1"));
}

TEST(VariableStoreTest, MomentumMatchesKerasSgd) {
  // tf.keras.optimizers.SGD(0.1, momentum=0.9) on w=[1], g=[1] twice:
  // w = 0.9, then 0.71.
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1}), Sgd(0.1f, 0.9f)).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1})).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1})).ok());
  EXPECT_THAT(Values(*store.Read("w")), ElementsAre(FloatNear(0.71f, 1e-6)));
}

TEST(VariableStoreTest, NesterovMatchesKerasSgd) {
  // tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=True), g=[1]
  // twice: w = 0.81, then 0.539.
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1}), Sgd(0.1f, 0.9f, true)).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1})).ok());
  EXPECT_THAT(Values(*store.Read("w")), ElementsAre(FloatNear(0.81f, 1e-6)));
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1})).ok());
  EXPECT_THAT(Values(*store.Read("w")), ElementsAre(FloatNear(0.539f, 1e-6)));
}

TEST(VariableStoreTest, AdamMatchesKeras) {
  // tf.keras.optimizers.Adam(0.1) on w=[1, -2], grads [1, 0.5] then
  // [0.25, -1]: w = [0.900001, -2.0999987], then [0.81694233, -2.0633888].
  OptimizerConfig adam;
  adam.set_kind(OptimizerConfig::ADAM);
  adam.set_learning_rate(0.1f);
  adam.set_beta_1(0.9f);
  adam.set_beta_2(0.999f);
  adam.set_epsilon(1e-7f);
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1, -2}), adam).ok());
  ASSERT_TRUE(store.ApplyGradient("w", Vec({1, 0.5f})).ok());
  EXPECT_THAT(Values(*store.Read("w")),
              ElementsAre(FloatNear(0.900001f, 1e-5), FloatNear(-2.0999987f, 1e-5)));
  ASSERT_TRUE(store.ApplyGradient("w", Vec({0.25f, -1})).ok());
  EXPECT_THAT(Values(*store.Read("w")),
              ElementsAre(FloatNear(0.81694233f, 1e-5), FloatNear(-2.0633888f, 1e-5)));
}

TEST(VariableStoreTest, AdamNeedsValidBetas) {
  OptimizerConfig adam;
  adam.set_kind(OptimizerConfig::ADAM);
  adam.set_learning_rate(0.1f);
  adam.set_beta_1(1.0f);
  adam.set_beta_2(0.999f);
  VariableStore store;
  EXPECT_EQ(store.Create("w", Vec({1}), adam).code(), absl::StatusCode::kInvalidArgument);
}

TEST(VariableStoreTest, RecreateKeepsValueAndRejectsOtherShape) {
  VariableStore store;
  ASSERT_TRUE(store.Create("w", Vec({1, 2}), Sgd(1)).ok());
  ASSERT_TRUE(store.Assign("w", Vec({5, 6})).ok());
  ASSERT_TRUE(store.Create("w", Vec({0, 0}), Sgd(1)).ok());
  EXPECT_THAT(Values(*store.Read("w")), ElementsAre(5.0f, 6.0f));
  EXPECT_EQ(store.Create("w", Vec({0}), Sgd(1)).code(), absl::StatusCode::kAlreadyExists);
}

TEST(VariableStoreTest, BadInputIsAClearError) {
  VariableStore store;
  EXPECT_EQ(store.Read("nope").status().code(), absl::StatusCode::kNotFound);
  ASSERT_TRUE(store.Create("w", Vec({1, 2}), Sgd(1)).ok());
  absl::Status s = store.ApplyGradient("w", Vec({1, 2, 3}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("expected shape"));
  EXPECT_EQ(store.Assign("w", Tensor(DT_INT32, TensorShape({2}))).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Create("v", Vec({1}), Sgd(-1)).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ps
}  // namespace tfd
