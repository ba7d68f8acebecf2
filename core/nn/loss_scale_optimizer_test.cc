// LossScaleOptimizer against tf-keras 2.21: the loss-scale sequence of a
// float16 Dense whose gradient overflows (numbers from
// testdata/mixed_precision_golden.py), halving to at least 1, growth
// without overflow, fixed scales, delegation to the wrapped optimizer, and
// two replicas that skip together when only one of them overflows or when
// only their sum does (Keras tests the all-reduced gradients).
#include "core/nn/loss_scale_optimizer.h"

#include <cmath>
#include <limits>
#include <memory>

#include "core/autodiff/gradient_tape.h"
#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/optimizer_test_strategy.h"
#include "core/nn/optimizer_testutil.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using distribute::ReplicaContext;
using distribute::StrategyScope;
using test::ExpectError;
using testing::NewVariable;
using testing::Read;
using testing::T;
using testing::TestStrategy;

std::shared_ptr<Optimizer> Sgd(float lr) {
  SGDOptions options;
  options.learning_rate = lr;
  return std::shared_ptr<Optimizer>(*SGD::Create(options));
}

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(LossScaleOptimizerTest, Float16OverflowSequenceMatchesKeras) {
  // mixed_float16 Dense(1, use_bias=False, kernel ones) on x = [[300] * 4],
  // loss = sum(cast(y, float32)), SGD(0.001), dynamic_growth_steps=2. The
  // float16 kernel gradient 300 * scale overflows until the scale is 128.
  ScopedGlobalPolicy policy(*DTypePolicy::FromName("mixed_float16"));
  Dense dense(1, Dense::Options().UseBias(false).KernelInitializer(Ones()));
  LossScaleOptions options;
  options.dynamic_growth_steps = 2;
  ASSERT_OK_AND_ASSIGN(auto opt, LossScaleOptimizer::Create(Sgd(0.001f), options));
  const Tensor x = T({300, 300, 300, 300}, DT_FLOAT, {1, 4});
  // (loss scale, good steps, iterations, kernel) after each step, from Keras.
  const double golden[12][4] = {
      {16384, 0, 1, 1.0},       {8192, 0, 2, 1.0},  {4096, 0, 3, 1.0},
      {2048, 0, 4, 1.0},        {1024, 0, 5, 1.0},  {512, 0, 6, 1.0},
      {256, 0, 7, 1.0},         {128, 0, 8, 1.0},   {128, 1, 9, 0.699999988079071},
      {256, 0, 10, 0.3999999761581421}, {128, 0, 11, 0.3999999761581421},
      {128, 1, 12, 0.09999996423721313}};
  for (int step = 0; step < 12; ++step) {
    GradientTape tape;
    ASSERT_OK_AND_ASSIGN(Tensor y, dense.Call(x));
    ASSERT_EQ(y.dtype(), DT_HALF);
    ASSERT_OK_AND_ASSIGN(Tensor y32, Execute1("Cast", {y}, AttrMap().Set("DstT", DT_FLOAT)));
    ASSERT_OK_AND_ASSIGN(Tensor loss,
                         Execute1("Sum", {y32, *Tensor::FromVector<int32_t>({0, 1}, {2})}));
    ASSERT_OK_AND_ASSIGN(auto grads, ComputeScaledGradients(*opt, tape, loss,
                                                            LocalVariables(dense.weights())));
    ASSERT_OK(opt->ApplyGradients(grads, dense.trainable_weights()));
    EXPECT_EQ(*opt->LossScale(), golden[step][0]) << "step " << step;
    EXPECT_EQ(*opt->DynamicCounter(), golden[step][1]) << "step " << step;
    EXPECT_EQ(*opt->Iterations(), golden[step][2]) << "step " << step;
    EXPECT_FLOAT_EQ(Read(*dense.kernel())[0], golden[step][3]) << "step " << step;
  }
}

Tensor Half(const Tensor& t) { return *Execute1("Cast", {t}, AttrMap().Set("DstT", DT_HALF)); }

TEST(LossScaleOptimizerTest, DefaultsScaleAndUnscaleAsKeras) {
  ASSERT_OK_AND_ASSIGN(auto opt, LossScaleOptimizer::Create(Sgd(0.1f)));
  EXPECT_TRUE(opt->dynamic());
  EXPECT_EQ(*opt->LossScale(), 32768.0f);
  EXPECT_EQ(opt->dynamic_growth_steps(), 2000);
  ASSERT_OK_AND_ASSIGN(Tensor scaled, opt->GetScaledLoss(Half(T({0.5}, DT_FLOAT, {}))));
  EXPECT_EQ(scaled.dtype(), DT_HALF);
  EXPECT_EQ(Read(scaled)[0], 16384.0);
  ASSERT_OK_AND_ASSIGN(auto unscaled,
                       opt->GetUnscaledGradients({T({32768, -65536}), Tensor(),
                                                  Half(T({16384}))}));
  EXPECT_EQ(Read(unscaled[0]), (std::vector<double>{1, -2}));
  EXPECT_FALSE(unscaled[1].defined());
  EXPECT_EQ(unscaled[2].dtype(), DT_HALF);
  EXPECT_EQ(Read(unscaled[2])[0], 0.5);
}

TEST(LossScaleOptimizerTest, NonFiniteStepsAreSkippedAndScaleStaysAtLeastOne) {
  LossScaleOptions options;
  options.initial_scale = 2;
  options.dynamic_growth_steps = 3;
  ASSERT_OK_AND_ASSIGN(auto opt, LossScaleOptimizer::Create(Sgd(1.0f), options));
  auto w = NewVariable("w", {1, 2});
  auto b = NewVariable("b", {5});
  const double nan = std::nan("");
  // (gradient of w, scale after, w after)
  struct Step {
    std::vector<double> gw;
    float scale;
    std::vector<double> w;
  } steps[] = {{{kInf, 0}, 1, {1, 2}},  {{0, nan}, 1, {1, 2}},  {{1, 1}, 1, {0, 1}},
               {{1, 1}, 1, {-1, 0}},   {{1, 1}, 2, {-2, -1}}, {{-kInf, 1}, 1, {-2, -1}}};
  for (const Step& s : steps) {
    ASSERT_OK(opt->ApplyGradients({T(s.gw), T({0})},
                                  std::vector<std::shared_ptr<DistributedVariable>>{w, b}));
    EXPECT_EQ(*opt->LossScale(), s.scale);
    EXPECT_EQ(Read(*w), s.w);
  }
  EXPECT_EQ(*opt->Iterations(), 6);  // skipped steps count too
  // An undefined gradient is left out of the test, as Keras filters it.
  ASSERT_OK(opt->ApplyGradients({Tensor(), T({1})},
                                std::vector<std::shared_ptr<DistributedVariable>>{w, b}));
  EXPECT_EQ(Read(*b)[0], 4.0);
}

TEST(LossScaleOptimizerTest, GrowthThatWouldOverflowKeepsTheScale) {
  LossScaleOptions options;
  options.initial_scale = 3e38;
  options.dynamic_growth_steps = 1;
  ASSERT_OK_AND_ASSIGN(auto opt, LossScaleOptimizer::Create(Sgd(1.0f), options));
  auto w = NewVariable("w", {1});
  ASSERT_OK(opt->ApplyGradients({T({0})}, std::vector<std::shared_ptr<DistributedVariable>>{w}));
  EXPECT_EQ(*opt->LossScale(), 3e38f);
  EXPECT_EQ(*opt->DynamicCounter(), 0);
}

TEST(LossScaleOptimizerTest, FixedScaleAppliesEveryStep) {
  LossScaleOptions options;
  options.dynamic = false;
  options.initial_scale = 128;
  ASSERT_OK_AND_ASSIGN(auto opt, LossScaleOptimizer::Create(Sgd(1.0f), options));
  auto w = NewVariable("w", {1});
  ASSERT_OK(opt->ApplyGradients({T({0.5})}, std::vector<std::shared_ptr<DistributedVariable>>{w}));
  EXPECT_EQ(Read(*w)[0], 0.5);
  EXPECT_EQ(*opt->LossScale(), 128.0f);
  EXPECT_EQ(opt->good_steps(), nullptr);
}

TEST(LossScaleOptimizerTest, BadOptionsAreRefused) {
  LossScaleOptions fixed;
  fixed.dynamic = false;
  ExpectError(LossScaleOptimizer::Create(Sgd(1), fixed).status(),
              absl::StatusCode::kInvalidArgument,
              {"\"initial_scale\" must be specified if \"dynamic\" is False"});
  fixed.initial_scale = 4;
  fixed.dynamic_growth_steps = 10;
  ExpectError(LossScaleOptimizer::Create(Sgd(1), fixed).status(),
              absl::StatusCode::kInvalidArgument, {"\"dynamic_growth_steps\" must be None"});
  LossScaleOptions small;
  small.initial_scale = 0.5;
  ExpectError(LossScaleOptimizer::Create(Sgd(1), small).status(),
              absl::StatusCode::kInvalidArgument, {"initial_scale", "at least 1"});
  ExpectError(LossScaleOptimizer::Create(nullptr).status(), absl::StatusCode::kInvalidArgument,
              {"null"});
  ASSERT_OK_AND_ASSIGN(auto opt, LossScaleOptimizer::Create(Sgd(1)));
  ExpectError(LossScaleOptimizer::Create(opt).status(), absl::StatusCode::kInvalidArgument,
              {"cannot wrap another LossScaleOptimizer"});
  auto w = NewVariable("w", {1});
  ExpectError(opt->ApplyGradients({T({1}), T({2})},
                                  std::vector<std::shared_ptr<DistributedVariable>>{w}),
              absl::StatusCode::kInvalidArgument, {"2 gradients for 1 variables"});
}

TEST(LossScaleOptimizerTest, DelegatesToTheWrappedOptimizerAndWrapsForMixedFloat16) {
  std::shared_ptr<Optimizer> sgd = Sgd(0.25f);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Optimizer> wrapped,
                       WrapOptimizerForPolicy(sgd, *DTypePolicy::FromName("mixed_float16")));
  ASSERT_NE(dynamic_cast<LossScaleOptimizer*>(wrapped.get()), nullptr);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Optimizer> again,
                       WrapOptimizerForPolicy(wrapped, *DTypePolicy::FromName("mixed_float16")));
  EXPECT_EQ(again, wrapped);
  for (const char* name : {"float32", "mixed_bfloat16"}) {
    ASSERT_OK_AND_ASSIGN(auto same, WrapOptimizerForPolicy(sgd, *DTypePolicy::FromName(name)));
    EXPECT_EQ(same, sgd) << name;
  }
  EXPECT_EQ(*wrapped->CurrentLearningRate(), 0.25f);
  ASSERT_OK(wrapped->SetLearningRate(0.5f));
  EXPECT_EQ(*sgd->CurrentLearningRate(), 0.5f);
  auto w = NewVariable("w", {1, 1});
  ASSERT_OK(wrapped->ApplyGradients({T({2, 4})},
                                    std::vector<std::shared_ptr<DistributedVariable>>{w}));
  EXPECT_EQ(Read(*w), (std::vector<double>{0, -1}));
  EXPECT_TRUE(wrapped->built());
  EXPECT_EQ(wrapped->iterations(), sgd->iterations());
  EXPECT_EQ(wrapped->variables().size(), sgd->variables().size());
}

TEST(LossScaleOptimizerTest, ReplicasSkipTogetherWhenOneOverflows) {
  TestStrategy strategy(2, TestStrategy::Placement::kMirrored);
  std::shared_ptr<DistributedVariable> w;
  std::shared_ptr<LossScaleOptimizer> opt;
  {
    StrategyScope scope(&strategy);
    w = NewVariable("w", {1, 1});
    opt = *LossScaleOptimizer::Create(Sgd(1.0f));
  }
  // Step 1: replica 1's gradient is Inf; step 2: both finite, summed.
  for (int step = 0; step < 2; ++step) {
    auto out = strategy.Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
      const int r = ctx.replica_id_in_sync_group();
      const double g = (step == 0 && r == 1) ? kInf : 0.25;
      TFD_RETURN_IF_ERROR(opt->ApplyGradients({T({g, g})},
                                              std::vector<std::shared_ptr<DistributedVariable>>{w}));
      return std::vector<Tensor>();
    });
    ASSERT_OK(out.status());
  }
  for (int c = 0; c < 2; ++c) EXPECT_EQ(Read(*w, c), (std::vector<double>{0.5, 0.5})) << c;
  EXPECT_EQ(*opt->LossScale(), 16384.0f);
  EXPECT_EQ(*opt->DynamicCounter(), 1);
  EXPECT_EQ(*opt->Iterations(), 2);
}

TEST(LossScaleOptimizerTest, FiniteGradientsWhoseSumOverflowsSkipTheStep) {
  // Keras tests the all-reduced gradients: 3e38 on each replica is finite,
  // their sum is not.
  TestStrategy strategy(2, TestStrategy::Placement::kMirrored);
  std::shared_ptr<DistributedVariable> w;
  std::shared_ptr<LossScaleOptimizer> opt;
  {
    StrategyScope scope(&strategy);
    w = NewVariable("w", {1, 1});
    opt = *LossScaleOptimizer::Create(Sgd(1.0f));
  }
  auto out = strategy.Run([&](ReplicaContext&) -> absl::StatusOr<std::vector<Tensor>> {
    TFD_RETURN_IF_ERROR(opt->ApplyGradients({T({3e38, 1})},
                                            std::vector<std::shared_ptr<DistributedVariable>>{w}));
    return std::vector<Tensor>();
  });
  ASSERT_OK(out.status());
  for (int c = 0; c < 2; ++c) EXPECT_EQ(Read(*w, c), (std::vector<double>{1, 1})) << c;
  EXPECT_EQ(*opt->LossScale(), 16384.0f);
  EXPECT_EQ(*opt->Iterations(), 1);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
