// Tests of the optimizer base through SGD (whose update is the simplest):
// lazy building, the iteration counter, slot bookkeeping, undefined and
// mismatched gradients, unknown variables, clipping (each kind and their
// precedence), decoupled weight decay with exclusions, learning-rate
// schedules and setting the rate.
#include "core/nn/optimizer.h"

#include <cmath>
#include <string>

#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/placement.h"
#include "core/nn/adam.h"
#include "core/nn/optimizer_testutil.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using testing::ExpectNear;
using testing::NewVariable;
using testing::Read;
using testing::T;
using testing::Values;

// Plain gradient descent with rate `lr`: var -= lr * clipped grad.
std::unique_ptr<SGD> PlainSGD(float lr, OptimizerOptions base = {}) {
  SGDOptions options;
  static_cast<OptimizerOptions&>(options) = base;
  options.learning_rate = lr;
  auto sgd = SGD::Create(options);
  EXPECT_TRUE(sgd.ok()) << sgd.status();
  return sgd.ok() ? std::move(*sgd) : nullptr;
}

TEST(OptimizerTest, BuildsLazilyAndCountsIterations) {
  auto sgd = PlainSGD(0.5f);
  auto w = NewVariable("w", {1.0, 2.0});
  EXPECT_FALSE(sgd->built());
  EXPECT_EQ(sgd->iterations(), nullptr);
  EXPECT_EQ(*sgd->Iterations(), 0);
  ASSERT_TRUE(sgd->ApplyGradients({T({1.0, -1.0})}, {w}).ok());
  EXPECT_TRUE(sgd->built());
  ExpectNear(Read(*w), {0.5, 2.5}, 1e-7);
  for (int i = 2; i <= 4; ++i) ASSERT_TRUE(sgd->ApplyGradients({T({0.0, 0.0})}, {w}).ok());
  EXPECT_EQ(*sgd->Iterations(), 4);
  EXPECT_EQ(sgd->iterations()->dtype(), DT_INT64);
  EXPECT_EQ(sgd->iterations()->name(), "iteration");
  EXPECT_FALSE(sgd->iterations()->trainable());
  std::vector<std::string> names;
  for (const auto& v : sgd->variables()) names.push_back(v->name());
  EXPECT_EQ(names, (std::vector<std::string>{"iteration", "SGD/m/w"}));
}

// As TensorFlow: variables made under a default device live there, the
// step counter too, and slots live with their variable wherever that is.
// The fake GPU stands in for GPU:0 of TFD_DEFAULT_DEVICE.
TEST(OptimizerTest, SlotsLiveWithTheirVariableUnderADefaultDevice) {
  // Whatever default device the suite runs under, restored at the end.
  Device* const suite_default = DefaultDevice().value_or(nullptr);
  SetDefaultDevice(nullptr);
  auto on_host = NewVariable("on_host", {1.0, 2.0});
  Device* gpu = test::FakeGpu::Get();
  SetDefaultDevice(gpu);
  auto on_gpu = NewVariable("on_gpu", {3.0});
  auto adam = Adam::Create(AdamOptions());
  ASSERT_TRUE(adam.ok()) << adam.status();
  std::vector<DistributedVariable*> vars = {on_host.get(), on_gpu.get()};
  absl::Status built = (*adam)->Build(vars);
  SetDefaultDevice(suite_default);
  ASSERT_TRUE(built.ok()) << built;
  EXPECT_EQ(on_host->component(0).device(), HostDevice());
  EXPECT_EQ(on_gpu->component(0).device(), gpu);
  EXPECT_EQ((*adam)->iterations()->component(0).device(), gpu);
  for (const char* slot : {"m", "v"}) {
    ASSERT_NE((*adam)->GetSlot(*on_host, slot), nullptr) << slot;
    EXPECT_EQ((*adam)->GetSlot(*on_host, slot)->component(0).device(), HostDevice()) << slot;
    EXPECT_EQ((*adam)->GetSlot(*on_gpu, slot)->component(0).device(), gpu) << slot;
  }
}

TEST(OptimizerTest, EmptyCallIsANoOp) {
  auto sgd = PlainSGD(0.5f);
  EXPECT_TRUE(sgd->ApplyGradients(absl::Span<const Tensor>(),
                                  absl::Span<DistributedVariable* const>())
                  .ok());
  EXPECT_FALSE(sgd->built());
}

TEST(OptimizerTest, BuildHappensOnceAndUnknownVariablesAreRefused) {
  auto sgd = PlainSGD(0.5f);
  auto a = NewVariable("a", {1.0});
  auto b = NewVariable("b", {1.0});
  ASSERT_TRUE(sgd->Build({a.get()}).ok());
  ASSERT_TRUE(sgd->Build({a.get(), b.get()}).ok());  // No-op: already built.
  EXPECT_EQ(sgd->GetSlot(*b, "m"), nullptr);
  absl::Status s = sgd->ApplyGradients({T({1.0})}, {b});
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("The optimizer cannot recognize variable b"), std::string::npos) << s;
  ExpectNear(Read(*b), {1.0}, 0);
}

TEST(OptimizerTest, UndefinedGradientsSkipTheirVariables) {
  auto sgd = PlainSGD(1.0f);
  auto a = NewVariable("a", {1.0});
  auto b = NewVariable("b", {5.0});
  ASSERT_TRUE(sgd->ApplyGradients({T({0.25}), Tensor()}, {a, b}).ok());
  ExpectNear(Read(*a), {0.75}, 1e-7);
  ExpectNear(Read(*b), {5.0}, 0);
  // Built with every variable passed, as Keras does.
  EXPECT_NE(sgd->GetSlot(*b, "m"), nullptr);

  absl::Status none = sgd->ApplyGradients({Tensor(), Tensor()}, {a, b});
  EXPECT_EQ(none.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(none.message().find("No gradients provided for any variable: [a, b]"),
            std::string::npos)
      << none;
}

TEST(OptimizerTest, MismatchedGradientsAreRefusedBeforeAnyUpdate) {
  auto sgd = PlainSGD(1.0f);
  auto a = NewVariable("dense/kernel", {1.0, 2.0, 3.0, 4.0, 5.0, 6.0}, DT_FLOAT, {2, 3});
  absl::Status shape = sgd->ApplyGradients({T({1, 1, 1, 1, 1, 1}, DT_FLOAT, {3, 2})}, {a});
  EXPECT_EQ(shape.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(shape.message().find("'dense/kernel' is float32 [3,2] but the variable is float32 [2,3]"),
            std::string::npos)
      << shape;
  absl::Status dtype = sgd->ApplyGradients({T({1, 1, 1, 1, 1, 1}, DT_DOUBLE, {2, 3})}, {a});
  EXPECT_EQ(dtype.code(), absl::StatusCode::kInvalidArgument);
  absl::Status count = sgd->ApplyGradients({T({1.0}), T({1.0})}, {a});
  EXPECT_EQ(count.code(), absl::StatusCode::kInvalidArgument);
  ExpectNear(Read(*a), {1, 2, 3, 4, 5, 6}, 0);
  EXPECT_EQ(*sgd->Iterations(), 0);
}

TEST(OptimizerTest, ClipnormRescalesEachGradient) {
  OptimizerOptions base;
  base.clipnorm = 1.0;
  auto sgd = PlainSGD(1.0f, base);
  auto a = NewVariable("a", {0.0, 0.0});
  auto b = NewVariable("b", {0.0});
  // |[3, 4]| = 5 -> [0.6, 0.8]; |[0.5]| < 1 stays.
  ASSERT_TRUE(sgd->ApplyGradients({T({3.0, 4.0}), T({0.5})}, {a, b}).ok());
  ExpectNear(Read(*a), {-0.6, -0.8}, 1e-6);
  ExpectNear(Read(*b), {-0.5}, 1e-6);
}

TEST(OptimizerTest, GlobalClipnormScalesAllGradientsTogether) {
  OptimizerOptions base;
  base.global_clipnorm = 6.5;
  auto sgd = PlainSGD(1.0f, base);
  auto a = NewVariable("a", {0.0, 0.0});
  auto b = NewVariable("b", {0.0});
  // Global norm sqrt(9 + 16 + 144) = 13; everything scaled by 6.5 / 13.
  ASSERT_TRUE(sgd->ApplyGradients({T({3.0, 4.0}), T({12.0})}, {a, b}).ok());
  ExpectNear(Read(*a), {-1.5, -2.0}, 1e-6);
  ExpectNear(Read(*b), {-6.0}, 1e-6);
}

// tf.keras.optimizers.Optimizer's docstring: SGD(learning_rate=1,
// clipvalue=1) on gradients 2.0 from 2.0 gives 1.0.
TEST(OptimizerTest, ClipvalueKerasDocumentedExample) {
  OptimizerOptions base;
  base.clipvalue = 1.0;
  auto sgd = PlainSGD(1.0f, base);
  auto var1 = NewVariable("var1", {2.0});
  auto var2 = NewVariable("var2", {2.0});
  ASSERT_TRUE(sgd->ApplyGradients({T({2.0}), T({2.0})}, {var1, var2}).ok());
  ExpectNear(Read(*var1), {1.0}, 0);
  ExpectNear(Read(*var2), {1.0}, 0);
}

TEST(OptimizerTest, ClipnormTakesPrecedenceOverClipvalue) {
  OptimizerOptions base;
  base.clipnorm = 10.0;
  base.clipvalue = 0.1;  // Ignored, as in Keras, since clipnorm is set.
  auto sgd = PlainSGD(1.0f, base);
  auto a = NewVariable("a", {0.0, 0.0});
  ASSERT_TRUE(sgd->ApplyGradients({T({3.0, 4.0})}, {a}).ok());
  ExpectNear(Read(*a), {-3.0, -4.0}, 1e-7);
}

TEST(OptimizerTest, ClipnormAndGlobalClipnormConflict) {
  SGDOptions options;
  options.clipnorm = 1.0;
  options.global_clipnorm = 1.0;
  auto sgd = SGD::Create(options);
  EXPECT_EQ(sgd.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(sgd.status().message().find(
                "At most one of `clipnorm` and `global_clipnorm` can be set"),
            std::string::npos)
      << sgd.status();
}

// tf.keras.optimizers.Optimizer's docstring: SGD(1, weight_decay=0.004)
// with zero gradients takes 2.0 to 1.992; an excluded variable stays 2.0.
TEST(OptimizerTest, WeightDecayKerasDocumentedExample) {
  OptimizerOptions base;
  base.weight_decay = 0.004;
  base.exclude_from_weight_decay = {"var2"};
  auto sgd = PlainSGD(1.0f, base);
  auto var1 = NewVariable("var1", {2.0});
  auto var2 = NewVariable("var2", {2.0});
  ASSERT_TRUE(sgd->ApplyGradients({T({0.0}), T({0.0})}, {var1, var2}).ok());
  ExpectNear(Read(*var1), {1.992}, 1e-7);
  ExpectNear(Read(*var2), {2.0}, 0);
}

TEST(OptimizerTest, WeightDecayUsesTheScheduledRateBeforeTheUpdate) {
  OptimizerOptions base;
  base.weight_decay = 0.5;
  SGDOptions options;
  static_cast<OptimizerOptions&>(options) = base;
  options.learning_rate = *PiecewiseConstantDecay::Create({0}, {0.1f, 0.2f});
  auto sgd = SGD::Create(options);
  ASSERT_TRUE(sgd.ok());
  auto w = NewVariable("w", {4.0});
  // Step 0 (lr 0.1): 4 - 4 * 0.5 * 0.1 = 3.8, then - 0.1 * 1 = 3.7.
  ASSERT_TRUE((*sgd)->ApplyGradients({T({1.0})}, {w}).ok());
  ExpectNear(Read(*w), {3.7}, 1e-6);
  // Step 1 (lr 0.2): 3.7 - 3.7 * 0.5 * 0.2 = 3.33, then - 0.2 = 3.13.
  ASSERT_TRUE((*sgd)->ApplyGradients({T({1.0})}, {w}).ok());
  ExpectNear(Read(*w), {3.13}, 1e-6);
}

TEST(OptimizerTest, ScheduleIsEvaluatedAtTheIterationsBeforeEachUpdate) {
  SGDOptions options;
  options.learning_rate = *PiecewiseConstantDecay::Create({1}, {1.0f, 0.5f});
  auto sgd = SGD::Create(options);
  ASSERT_TRUE(sgd.ok());
  auto w = NewVariable("w", {0.0});
  const float want_lr[3] = {1.0f, 1.0f, 0.5f};
  double expected = 0.0;
  for (int step = 0; step < 3; ++step) {
    EXPECT_EQ(*(*sgd)->CurrentLearningRate(), want_lr[step]) << "step " << step;
    ASSERT_TRUE((*sgd)->ApplyGradients({T({1.0})}, {w}).ok());
    expected -= want_lr[step];
    ExpectNear(Read(*w), {expected}, 1e-7);
  }
  EXPECT_EQ((*sgd)->SetLearningRate(0.1f).code(), absl::StatusCode::kFailedPrecondition);
}

TEST(OptimizerTest, SetLearningRateChangesAConstantRate) {
  auto sgd = PlainSGD(1.0f);
  auto w = NewVariable("w", {0.0});
  ASSERT_TRUE(sgd->SetLearningRate(0.25f).ok());
  EXPECT_EQ(*sgd->CurrentLearningRate(), 0.25f);
  ASSERT_TRUE(sgd->ApplyGradients({T({1.0})}, {w}).ok());
  ExpectNear(Read(*w), {-0.25}, 0);
}

TEST(OptimizerTest, SizeZeroVariablesAreFine) {
  AdamOptions options;
  auto adam = Adam::Create(options);
  ASSERT_TRUE(adam.ok());
  auto empty = NewVariable("empty", {}, DT_FLOAT, {0, 4});
  ASSERT_TRUE((*adam)->ApplyGradients({T({}, DT_FLOAT, {0, 4})}, {empty}).ok());
  EXPECT_EQ((*adam)->GetSlot(*empty, "m")->shape(), TensorShape({0, 4}));
  EXPECT_EQ(*(*adam)->Iterations(), 1);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
