#include "core/distribute/ps/update_rule.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace ps {
namespace {

using ::testing::HasSubstr;
using ::testing::Pointwise;
using ::testing::FloatNear;

Tensor Vec(std::vector<float> v) {
  return *Tensor::FromVector(v, TensorShape({static_cast<int64_t>(v.size())}));
}

std::vector<float> Values(const Tensor& t) { return {t.flat<float>().begin(), t.flat<float>().end()}; }

// Two steps of `rule` from var = [1, -2] with the gradients [0.5, -1] and
// [0.2, 0.4]; the slots as the store makes them.
struct Trained {
  Tensor value;
  std::vector<Tensor> slots;
};
Trained TwoSteps(const OptimizerConfig& rule) {
  Trained t{Vec({1, -2}), {}};
  for (int i = 0; i < NumSlots(rule); ++i) {
    const float init = SlotInitialValue(rule, i);
    t.slots.push_back(Vec({init, init}));
  }
  const absl::Status first = ApplyUpdateRule(rule, 0, Vec({0.5f, -1}), t.value, t.slots);
  EXPECT_TRUE(first.ok()) << first;
  const absl::Status second = ApplyUpdateRule(rule, 1, Vec({0.2f, 0.4f}), t.value, t.slots);
  EXPECT_TRUE(second.ok()) << second;
  return t;
}

OptimizerConfig RmsProp(float momentum, bool centered) {
  OptimizerConfig rule;
  rule.set_kind(OptimizerConfig::RMSPROP);
  rule.set_learning_rate(0.1f);
  rule.set_rho(0.9f);
  rule.set_momentum(momentum);
  rule.set_centered(centered);
  rule.set_epsilon(1e-7f);
  return rule;
}

// The golden values are tf-keras 2.21's: opt.apply_gradients twice with
// the same gradients.
TEST(UpdateRuleTest, RmsPropAsKeras) {
  const Trained plain = TwoSteps(RmsProp(0, false));
  ASSERT_EQ(plain.slots.size(), 1u);
  EXPECT_THAT(Values(plain.value), Pointwise(FloatNear(1e-6), {0.56091398f, -1.80663133f}));
  EXPECT_THAT(Values(plain.slots[0]), Pointwise(FloatNear(1e-7), {0.0265f, 0.106f}));

  // velocity, momentum, average_gradient.
  const Trained full = TwoSteps(RmsProp(0.5f, true));
  ASSERT_EQ(full.slots.size(), 3u);
  EXPECT_THAT(Values(full.value), Pointwise(FloatNear(1e-6), {0.36599636f, -1.62433422f}));
  EXPECT_THAT(Values(full.slots[1]), Pointwise(FloatNear(1e-6), {0.30067104f, -0.04233266f}));
  EXPECT_THAT(Values(full.slots[2]), Pointwise(FloatNear(1e-7), {0.065f, -0.05f}));
}

TEST(UpdateRuleTest, AdagradStartsFromTheInitialAccumulator) {
  OptimizerConfig rule;
  rule.set_kind(OptimizerConfig::ADAGRAD);
  rule.set_learning_rate(0.1f);
  rule.set_initial_accumulator_value(0.1f);
  rule.set_epsilon(1e-7f);
  EXPECT_EQ(SlotInitialValue(rule, 0), 0.1f);
  const Trained t = TwoSteps(rule);
  EXPECT_THAT(Values(t.value), Pointwise(FloatNear(1e-6), {0.88345897f, -1.94028866f}));
  EXPECT_THAT(Values(t.slots[0]), Pointwise(FloatNear(1e-6), {0.39f, 1.26f}));
}

OptimizerConfig Adam(bool amsgrad, float weight_decay) {
  OptimizerConfig rule;
  rule.set_kind(OptimizerConfig::ADAM);
  rule.set_learning_rate(0.1f);
  rule.set_beta_1(0.9f);
  rule.set_beta_2(0.999f);
  rule.set_epsilon(1e-7f);
  rule.set_amsgrad(amsgrad);
  rule.set_weight_decay(weight_decay);
  return rule;
}

// AdamW(learning_rate=0.1, weight_decay=0.05): the weight decays before
// each Adam step; the slots are Adam's. The tolerances are the local
// Adam's against Keras (adam_test.cc): the fused op forms 1 - beta_2 from
// float32 beta_2, Keras in Python doubles, which moves v by ~1e-5
// relative.
TEST(UpdateRuleTest, AdamWDecaysTheWeightAsKeras) {
  const Trained t = TwoSteps(Adam(false, 0.05f));
  ASSERT_EQ(t.slots.size(), 2u);
  EXPECT_THAT(Values(t.value), Pointwise(FloatNear(2e-6), {0.80067021f, -1.84599102f}));
  EXPECT_THAT(Values(t.slots[0]), Pointwise(FloatNear(1e-7), {0.065f, -0.05f}));
  EXPECT_THAT(Values(t.slots[1]), Pointwise(FloatNear(2e-8), {0.00028975f, 0.001159f}));
}

// SGD(learning_rate=0.1, momentum=0.5, weight_decay=0.2).
TEST(UpdateRuleTest, WeightDecayAppliesToEveryKind) {
  OptimizerConfig rule;
  rule.set_kind(OptimizerConfig::SGD);
  rule.set_learning_rate(0.1f);
  rule.set_momentum(0.5f);
  rule.set_weight_decay(0.2f);
  const Trained t = TwoSteps(rule);
  EXPECT_THAT(Values(t.value), Pointwise(FloatNear(1e-6), {0.8664f, -1.8128f}));
  EXPECT_THAT(Values(t.slots[0]), Pointwise(FloatNear(1e-7), {-0.045f, 0.01f}));
}

// Adam(learning_rate=0.1, amsgrad=True) with a third, zero gradient: v
// shrinks, vhat keeps its largest value and drives the step.
TEST(UpdateRuleTest, AmsgradKeepsTheLargestSecondMoment) {
  const OptimizerConfig rule = Adam(true, 0);
  ASSERT_EQ(NumSlots(rule), 3);
  EXPECT_FALSE(SameSlots(Adam(false, 0), rule));
  Trained t = TwoSteps(rule);
  ASSERT_TRUE(ApplyUpdateRule(rule, 2, Vec({0, 0}), t.value, t.slots).ok());
  EXPECT_THAT(Values(t.value), Pointwise(FloatNear(2e-6), {0.74072051f, -1.83873904f}));
  EXPECT_THAT(Values(t.slots[1]), Pointwise(FloatNear(2e-8), {0.00028946f, 0.00115784f}));
  EXPECT_THAT(Values(t.slots[2]), Pointwise(FloatNear(2e-8), {0.00028975f, 0.001159f}));
  // The largest v: step 2's, not step 3's.
  EXPECT_GT(t.slots[2].flat<float>()[0], t.slots[1].flat<float>()[0]);
}

TEST(UpdateRuleTest, SlotsOfAnotherLayoutAreNotReused) {
  EXPECT_TRUE(SameSlots(RmsProp(0.5f, true), RmsProp(0.5f, true)));
  OptimizerConfig faster = RmsProp(0.5f, true);
  faster.set_learning_rate(1);
  EXPECT_TRUE(SameSlots(RmsProp(0.5f, true), faster));
  EXPECT_FALSE(SameSlots(RmsProp(0, true), RmsProp(0.5f, true)));
  EXPECT_FALSE(SameSlots(RmsProp(0.5f, false), RmsProp(0.5f, true)));
  OptimizerConfig adagrad;
  adagrad.set_kind(OptimizerConfig::ADAGRAD);
  EXPECT_FALSE(SameSlots(RmsProp(0, false), adagrad));
}

TEST(UpdateRuleTest, BadRulesAreRefused) {
  OptimizerConfig rule = RmsProp(0, false);
  rule.set_rho(-1);
  EXPECT_THAT(CheckUpdateRule("w", rule).message(), HasSubstr("rho"));
  OptimizerConfig adagrad;
  adagrad.set_kind(OptimizerConfig::ADAGRAD);
  adagrad.set_initial_accumulator_value(-0.1f);
  EXPECT_THAT(CheckUpdateRule("w", adagrad).message(), HasSubstr("initial_accumulator_value"));
  EXPECT_THAT(CheckUpdateRule("w", Adam(false, -0.1f)).message(), HasSubstr("weight decay"));
  OptimizerConfig sgd_amsgrad;
  sgd_amsgrad.set_amsgrad(true);
  EXPECT_THAT(CheckUpdateRule("w", sgd_amsgrad).message(), HasSubstr("amsgrad"));
  OptimizerConfig unknown;
  unknown.set_kind(static_cast<OptimizerConfig::Kind>(9));
  EXPECT_THAT(CheckUpdateRule("w", unknown).message(), HasSubstr("unknown optimizer kind"));
  // A slot list that does not match the rule.
  Tensor value = Vec({1});
  std::vector<Tensor> none;
  EXPECT_EQ(ApplyUpdateRule(RmsProp(0, false), 0, Vec({1}), value, none).code(),
            absl::StatusCode::kInternal);
}

}  // namespace
}  // namespace ps
}  // namespace tfd
