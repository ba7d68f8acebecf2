// LossScaleOptimizer::Minimize under MirroredStrategy(2) on CPU replicas
// with the mixed_float16 policy, the gradient all-reduce overlapping the
// backward pass against the same steps without overlap: the same loss
// scales, counters, iterations and weights to the bit. The model's float16
// gradients overflow at the large initial scale, so the run has skipped
// steps (scale halved, weights unchanged), applied steps and growth steps
// (growth every 2 finite steps). The replicas see different inputs, so
// the all-reduce sums different gradients.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/autodiff/gradient_tape.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/random_seed.h"
#include "core/nn/dense.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/gradient_all_reduce.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using test::Values;

constexpr int kSteps = 14;
constexpr int kRowsPerReplica = 4;
constexpr double kInitialScale = 1 << 20;

// What one step left behind.
struct StepState {
  float loss_scale;
  int64_t good_steps;
  int64_t iterations;
  std::vector<std::vector<double>> weights;  // component 0 of each
  bool operator==(const StepState& o) const {
    return loss_scale == o.loss_scale && good_steps == o.good_steps &&
           iterations == o.iterations && weights == o.weights;
  }
};

// Replica r's rows at `step`: values of a few units, three times larger on
// replica 1.
Tensor Rows(int step, int replica) {
  std::vector<float> x(kRowsPerReplica * 4);
  for (size_t i = 0; i < x.size(); ++i) {
    x[i] = (1.0f + 2.0f * replica) * std::sin(0.7f * static_cast<float>(i + 5 * step) + 0.3f);
  }
  return tfd::test::AsTensor<float>(x, {kRowsPerReplica, 4});
}

// sum(cast(y, float32)^2) / global batch: the replica's share of a mean
// over the global batch, as a custom loop computes it.
absl::StatusOr<Tensor> ReplicaLoss(const Tensor& y) {
  TFD_ASSIGN_OR_RETURN(Tensor y32, Execute1("Cast", {y}, AttrMap().Set("DstT", DT_FLOAT)));
  TFD_ASSIGN_OR_RETURN(Tensor sq, Execute1("Mul", {y32, y32}));
  TFD_ASSIGN_OR_RETURN(Tensor axes, Tensor::FromVector(std::vector<int32_t>{0, 1}, {2}));
  TFD_ASSIGN_OR_RETURN(Tensor sum, Execute1("Sum", {sq, axes}));
  return Execute1("Mul", {sum, Tensor::Scalar<float>(1.0f / (2 * kRowsPerReplica))});
}

// kSteps Minimize steps of a fresh mixed_float16 MLP under
// MirroredStrategy(2); the state after each. `overlapped` says whether
// Minimize could overlap (WhyNotOverlap) on every replica and step.
std::vector<StepState> Train(bool overlap, int64_t bytes_per_pack, bool* overlapped) {
  std::vector<StepState> states;
  ClearSession();
  ScopedGlobalPolicy policy(*DTypePolicy::FromName("mixed_float16"));
  distribute::ReplicatedStrategyOptions options;
  options.communication.overlap_backward_pass = overlap;
  options.communication.bytes_per_pack = bytes_per_pack;
  auto strategy = distribute::MirroredStrategy::WithCpuReplicas(2, options);
  EXPECT_TRUE(strategy.ok()) << strategy.status();
  if (!strategy.ok()) return states;
  std::shared_ptr<Sequential> model;
  std::shared_ptr<LossScaleOptimizer> opt;
  {
    distribute::StrategyScope scope(strategy->get());
    SetRandomSeed(7);
    auto made = Sequential::Make({MakeInputLayer({kNone, 4}),
                                  std::make_shared<Dense>(16, DenseOptions().Activation("relu")),
                                  std::make_shared<Dense>(8, DenseOptions().Activation("relu")),
                                  std::make_shared<Dense>(3)});
    EXPECT_TRUE(made.ok()) << made.status();
    if (!made.ok()) return states;
    model = *made;
    SGDOptions sgd;
    sgd.learning_rate = 0.01f;
    LossScaleOptions scaling;
    scaling.initial_scale = kInitialScale;
    scaling.dynamic_growth_steps = 2;
    auto created = LossScaleOptimizer::Create(std::shared_ptr<Optimizer>(*SGD::Create(sgd)),
                                              scaling);
    EXPECT_TRUE(created.ok()) << created.status();
    if (!created.ok()) return states;
    opt = *created;
  }
  *overlapped = true;
  for (int step = 0; step < kSteps; ++step) {
    auto out = (*strategy)->Run([&](distribute::ReplicaContext& ctx)
                                    -> absl::StatusOr<std::vector<Tensor>> {
      GradientTape tape;
      TFD_ASSIGN_OR_RETURN(Tensor y,
                           model->Call(Rows(step, ctx.replica_id_in_sync_group()), true));
      if (y.dtype() != DT_HALF) return Internal("expected float16 outputs");
      TFD_ASSIGN_OR_RETURN(Tensor loss, ReplicaLoss(y));
      const std::vector<Weight> vars = model->TrainableVariables();
      std::vector<distribute::DistributedVariable*> raw;
      for (const Weight& w : vars) raw.push_back(w.get());
      TFD_ASSIGN_OR_RETURN(std::optional<std::string> why, WhyNotOverlap(ctx, tape, loss, raw));
      if (why.has_value()) *overlapped = false;
      TFD_RETURN_IF_ERROR(opt->Minimize(loss, vars, tape));
      return std::vector<Tensor>();
    });
    EXPECT_TRUE(out.ok()) << out.status();
    if (!out.ok()) return states;
    StepState s{*opt->LossScale(), *opt->DynamicCounter(), *opt->Iterations(), {}};
    for (const Weight& w : model->weights()) {
      s.weights.push_back(Values(w->component(0).Peek()));
      EXPECT_EQ(s.weights.back(), Values(w->component(1).Peek()))
          << w->name() << " step " << step << ": the mirrored copies differ";
    }
    states.push_back(std::move(s));
  }
  return states;
}

TEST(LossScaleOverlapTest, OverlapChangesNoBitThroughSkippedAndGrowthSteps) {
  for (int64_t bytes : {int64_t{0}, int64_t{256}}) {
    SCOPED_TRACE(absl::StrCat("bytes_per_pack ", bytes));
    bool off_overlapped = true, on_overlapped = false;
    const std::vector<StepState> off = Train(/*overlap=*/false, bytes, &off_overlapped);
    const std::vector<StepState> on = Train(/*overlap=*/true, bytes, &on_overlapped);
    ASSERT_EQ(off.size(), static_cast<size_t>(kSteps));
    ASSERT_EQ(on.size(), off.size());
    EXPECT_FALSE(off_overlapped);
    EXPECT_TRUE(on_overlapped);

    // The run covers what it must: skipped steps (the scale halves and the
    // weights stay), applied steps (the weights move) and growth steps.
    int skipped = 0, applied = 0, grown = 0;
    float scale = kInitialScale;
    const std::vector<std::vector<double>>* weights = nullptr;
    for (int step = 0; step < kSteps; ++step) {
      const StepState& s = off[step];
      EXPECT_EQ(s.iterations, step + 1);  // skipped steps count too
      if (s.loss_scale < scale) {
        ++skipped;
        EXPECT_EQ(s.loss_scale, scale / 2) << "step " << step;
        if (weights != nullptr) {
          EXPECT_EQ(s.weights, *weights) << "step " << step;
        }
      } else {
        ++applied;
        if (weights != nullptr) {
          EXPECT_NE(s.weights, *weights) << "step " << step;
        }
        if (s.loss_scale > scale) ++grown;
      }
      scale = s.loss_scale;
      weights = &s.weights;
    }
    EXPECT_GE(skipped, 2);
    EXPECT_GE(applied, 2);
    EXPECT_GE(grown, 1);

    for (int step = 0; step < kSteps; ++step) {
      EXPECT_EQ(on[step].loss_scale, off[step].loss_scale) << "step " << step;
      EXPECT_EQ(on[step].good_steps, off[step].good_steps) << "step " << step;
      EXPECT_EQ(on[step].iterations, off[step].iterations) << "step " << step;
      EXPECT_TRUE(on[step].weights == off[step].weights) << "step " << step;
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace tfd
