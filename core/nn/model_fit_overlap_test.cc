// Model::Fit under MirroredStrategy(2) (and CentralStorageStrategy(2)) with the gradient all-reduce
// overlapping the backward pass (CommunicationOptions::
// overlap_backward_pass) against the same Fit without overlap: the same
// losses and weights to the bit, for an MLP and a CNN, with buckets of
// the default size and of a few hundred bytes (many buckets, a kernel
// spanning several). A model with synchronized batch normalization,
// whose backward pass communicates, falls back to the plain path and
// still trains. Under mixed_float16 with a LossScaleOptimizer whose
// scale makes the gradients overflow, overlap changes no bit either.
#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/data/transforms.h"
#include "core/distribute/central_storage_strategy.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/random_seed.h"
#include "core/nn/activation_layer.h"
#include "core/nn/batch_normalization.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/gradient_all_reduce.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/model_fit_testutil.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using test::Values;
using namespace fit_test;  // NOLINT(build/namespaces): the shared fixtures

using ModelFn = std::function<absl::StatusOr<std::shared_ptr<Sequential>>()>;
using OptimizerFn = std::function<std::shared_ptr<Optimizer>()>;

absl::StatusOr<std::shared_ptr<Sequential>> Mlp() {
  return Sequential::Make({MakeInputLayer({kNone, 4}),
                           std::make_shared<Dense>(16, DenseOptions().Activation("relu")),
                           std::make_shared<Dense>(8, DenseOptions().Activation("relu")),
                           std::make_shared<Dense>(2)});
}

absl::StatusOr<std::shared_ptr<Sequential>> Cnn() {
  return Sequential::Make(
      {MakeInputLayer({kNone, 6, 6, 1}),
       std::make_shared<Conv2D>(4, std::vector<int64_t>{3}, ConvOptions().Activation("relu")),
       std::make_shared<MaxPooling2D>(), std::make_shared<Flatten>(),
       std::make_shared<Dense>(2)});
}

absl::StatusOr<std::shared_ptr<Sequential>> SyncBatchNormMlp() {
  return Sequential::Make(
      {MakeInputLayer({kNone, 4}), std::make_shared<Dense>(8),
       std::make_shared<BatchNormalization>(BatchNormalizationOptions().Synchronized(true)),
       std::make_shared<Activation>("relu"), std::make_shared<Dense>(2)});
}

// 16 rows of 6x6x1 images with labels 0/1, in global batches of 4.
absl::StatusOr<data::DatasetPtr> ImageDataset() {
  std::vector<float> x(16 * 36);
  std::vector<int32_t> y(16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>((i * 7) % 13) / 13.0f - 0.4f;
  for (int i = 0; i < 16; ++i) y[i] = (i * 5) % 3 == 0 ? 1 : 0;
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr ds,
                       data::FromTensorSlices({tfd::test::AsTensor<float>(x, {16, 6, 6, 1}),
                                               tfd::test::AsTensor<int32_t>(y, {16})}));
  return data::Batch(ds, 4, /*drop_remainder=*/false);
}

struct FitResult {
  std::vector<double> losses;
  std::vector<std::vector<double>> weights;  // component 0 of each
  std::vector<double> optimizer_state;       // the optimizer's variables, component 0
  float loss_scale = 0;                      // a LossScaleOptimizer's, at the end
};

// Fits a fresh model (seeded initial weights) under MirroredStrategy(2),
// or CentralStorageStrategy(2) when `central`, with `make_optimizer`'s
// optimizer (Adam when null), made in the strategy's scope.
FitResult FitMirrored(const ModelFn& make, const data::DatasetPtr& ds, bool overlap,
                      int64_t bytes_per_pack, bool central = false,
                      const OptimizerFn& make_optimizer = nullptr) {
  FitResult out;
  ClearSession();
  distribute::ReplicatedStrategyOptions options;
  options.communication.overlap_backward_pass = overlap;
  options.communication.bytes_per_pack = bytes_per_pack;
  absl::StatusOr<std::unique_ptr<distribute::ReplicatedStrategy>> strategy;
  if (central) {
    strategy = distribute::CentralStorageStrategy::WithCpuReplicas(2, options);
  } else {
    strategy = distribute::MirroredStrategy::WithCpuReplicas(2, options);
  }
  EXPECT_TRUE(strategy.ok()) << strategy.status();
  if (!strategy.ok()) return out;
  std::shared_ptr<Sequential> model;
  {
    distribute::StrategyScope scope(strategy->get());
    SetRandomSeed(11);
    auto made = make();
    EXPECT_TRUE(made.ok()) << made.status();
    if (!made.ok()) return out;
    model = *made;
    std::shared_ptr<Optimizer> optimizer = make_optimizer ? make_optimizer() : MakeAdam();
    EXPECT_TRUE(model->Compile({optimizer, LogitsLoss(), {}}).ok());
  }
  auto history = QuietFit(*model, ds, 3);
  EXPECT_TRUE(history.ok()) << history.status();
  if (!history.ok()) return out;
  out.losses = (*history)->Get("loss");
  for (const Weight& w : model->weights()) {
    out.weights.push_back(Values(w->component(0).Peek()));
    // The mirrored copies stay bit-identical.
    EXPECT_EQ(out.weights.back(), Values(w->component(w->num_components() - 1).Peek()))
        << w->name();
  }
  for (const Weight& v : model->optimizer()->variables()) {
    for (double x : Values(v->component(0).Peek())) out.optimizer_state.push_back(x);
  }
  if (auto* lso = dynamic_cast<LossScaleOptimizer*>(model->optimizer())) {
    out.loss_scale = *lso->LossScale();
  }
  return out;
}

void ExpectOverlapChangesNoBit(const ModelFn& make, const data::DatasetPtr& ds,
                               bool central = false) {
  for (int64_t bytes : {int64_t{0}, int64_t{256}}) {
    SCOPED_TRACE(absl::StrCat("bytes_per_pack ", bytes));
    const FitResult off = FitMirrored(make, ds, /*overlap=*/false, bytes, central);
    const FitResult on = FitMirrored(make, ds, /*overlap=*/true, bytes, central);
    ASSERT_EQ(off.losses.size(), 3u);
    // It learns, so agreeing means something.
    EXPECT_LT(off.losses.back(), off.losses.front());
    if (central) {
      // CentralStorageStrategy keeps the loss tracker in one component
      // that both replicas add into in the order they arrive, so the
      // logged loss may differ in its last bits from run to run, overlap
      // or not; the weights may not.
      ASSERT_EQ(on.losses.size(), off.losses.size());
      for (size_t i = 0; i < on.losses.size(); ++i) {
        EXPECT_NEAR(on.losses[i], off.losses[i], 1e-6 * off.losses[i]);
      }
    } else {
      EXPECT_EQ(on.losses, off.losses);
    }
    ASSERT_EQ(on.weights.size(), off.weights.size());
    for (size_t i = 0; i < on.weights.size(); ++i) EXPECT_EQ(on.weights[i], off.weights[i]) << i;
  }
}

// What Minimize decides on each replica of MirroredStrategy(2) for a
// model's loss: the reason it would not overlap, or "" when it overlaps.
std::vector<std::string> OverlapDecisions(const ModelFn& make, const Tensor& x) {
  ClearSession();
  auto strategy = distribute::MirroredStrategy::WithCpuReplicas(2);
  EXPECT_TRUE(strategy.ok()) << strategy.status();
  if (!strategy.ok()) return {};
  std::shared_ptr<Sequential> model;
  {
    distribute::StrategyScope scope(strategy->get());
    auto made = make();
    EXPECT_TRUE(made.ok()) << made.status();
    if (!made.ok()) return {};
    model = *made;
  }
  std::vector<std::string> decisions(2);
  auto out = (*strategy)->Run([&](distribute::ReplicaContext& ctx)
                                  -> absl::StatusOr<std::vector<Tensor>> {
    GradientTape tape;
    TFD_ASSIGN_OR_RETURN(Tensor y, model->Call(x, /*training=*/true));
    TFD_ASSIGN_OR_RETURN(Tensor axes, Tensor::FromVector(std::vector<int32_t>{0, 1}, {2}));
    TFD_ASSIGN_OR_RETURN(Tensor loss, Execute1("Sum", {y, axes}));
    std::vector<distribute::DistributedVariable*> vars;
    for (const Weight& w : model->TrainableVariables()) vars.push_back(w.get());
    TFD_ASSIGN_OR_RETURN(std::optional<std::string> why, WhyNotOverlap(ctx, tape, loss, vars));
    decisions[ctx.replica_id_in_sync_group()] = why.value_or("");
    return std::vector<Tensor>();
  });
  EXPECT_TRUE(out.ok()) << out.status();
  return decisions;
}

TEST(FitOverlapTest, TheModelsOverlapUnlessTheirBackwardPassCommunicates) {
  Tensor rows(DT_FLOAT, TensorShape({2, 4}));
  for (int i = 0; i < 8; ++i) rows.data<float>()[i] = 0.1f * i;
  Tensor images(DT_FLOAT, TensorShape({2, 6, 6, 1}));
  for (int i = 0; i < 72; ++i) images.data<float>()[i] = 0.01f * i;
  EXPECT_EQ(OverlapDecisions(Mlp, rows), std::vector<std::string>({"", ""}));
  EXPECT_EQ(OverlapDecisions(Cnn, images), std::vector<std::string>({"", ""}));
  for (const std::string& why : OverlapDecisions(SyncBatchNormMlp, rows)) {
    EXPECT_EQ(why, "the backward pass runs collectives of its own");
  }
}

TEST(FitOverlapTest, MlpIsBitIdenticalWithOverlapOnAndOff) {
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(16, 4));
  ExpectOverlapChangesNoBit(Mlp, ds);
}

TEST(FitOverlapTest, CentralStorageMlpIsBitIdenticalWithOverlapOnAndOff) {
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(16, 4));
  ExpectOverlapChangesNoBit(Mlp, ds, /*central=*/true);
}

TEST(FitOverlapTest, CnnIsBitIdenticalWithOverlapOnAndOff) {
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, ImageDataset());
  ExpectOverlapChangesNoBit(Cnn, ds);
}

TEST(FitOverlapTest, MixedFloat16LossScalingIsBitIdenticalWithOverlapOnAndOff) {
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(16, 4));
  ScopedGlobalPolicy policy(*DTypePolicy::FromName("mixed_float16"));
  // A scale at which the float16 gradients overflow, and growth after 2
  // finite steps: Fit's 12 steps skip some and grow the scale in others.
  constexpr double kInitialScale = 1 << 24;
  auto make_optimizer = [&]() -> std::shared_ptr<Optimizer> {
    LossScaleOptions options;
    options.initial_scale = kInitialScale;
    options.dynamic_growth_steps = 2;
    auto lso = LossScaleOptimizer::Create(MakeAdam(), options);
    EXPECT_TRUE(lso.ok()) << lso.status();
    return lso.ok() ? std::shared_ptr<Optimizer>(*lso) : MakeAdam();
  };
  const FitResult off = FitMirrored(Mlp, ds, /*overlap=*/false, 256, false, make_optimizer);
  const FitResult on = FitMirrored(Mlp, ds, /*overlap=*/true, 256, false, make_optimizer);
  ASSERT_EQ(off.losses.size(), 3u);
  // Steps were skipped (the scale came down) and applied (it learns).
  EXPECT_LT(off.loss_scale, kInitialScale);
  EXPECT_LT(off.losses.back(), off.losses.front());
  EXPECT_EQ(on.loss_scale, off.loss_scale);
  EXPECT_EQ(on.losses, off.losses);
  EXPECT_EQ(on.optimizer_state, off.optimizer_state);
  ASSERT_EQ(on.weights.size(), off.weights.size());
  for (size_t i = 0; i < on.weights.size(); ++i) EXPECT_EQ(on.weights[i], off.weights[i]) << i;
}

TEST(FitOverlapTest, SynchronizedBatchNormFallsBackAndTrains) {
  ASSERT_OK_AND_ASSIGN(data::DatasetPtr ds, MakeDataset(16, 4));
  // Its backward pass all-reduces too, so Minimize takes the plain path
  // (gradient_all_reduce_test checks the choice itself); the step still
  // runs, learns, and matches the run without overlap.
  ExpectOverlapChangesNoBit(SyncBatchNormMlp, ds);
  const FitResult on = FitMirrored(SyncBatchNormMlp, ds, /*overlap=*/true, 0);
  for (double loss : on.losses) EXPECT_TRUE(std::isfinite(loss));
}

}  // namespace
}  // namespace nn
}  // namespace tfd
