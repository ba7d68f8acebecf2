// Model::Fit throughput: examples/second of one epoch of the Fashion-MNIST
// CNN (Conv2D(32,3,relu) -> MaxPooling2D -> Conv2D(64,3,relu) ->
// MaxPooling2D -> Flatten -> Dense(64,relu) -> Dense(10), Adam,
// SparseCategoricalCrossentropy from logits) on synthetic 28x28 images,
// global batch 64, on one device and under MirroredStrategy with 1 and 2
// CPU replicas. The Mirrored(1) / one-device ratio is the cost of the
// strategy machinery (replica threads, all-reduce, distributed input).
// CPU is the whole process's CPU time per epoch, every thread included,
// which tells the cases apart on a machine that other work shares.
//
//   bazel build -c opt //core/nn:model_fit_benchmark && bazel-bin/core/nn/model_fit_benchmark
//
// Idle OpenMP threads sleep after 100 spins (core/device/cpu/openmp_spin.h)
// unless GOMP_SPINCOUNT or OMP_WAIT_POLICY is set, so every case, run first
// or not, gets the same wait policy.
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "core/data/transforms.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/nn/adam.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/losses.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"
#include "core/nn/synthetic_images.h"

namespace tfd {
namespace nn {
namespace {

constexpr int64_t kExamples = 1024;
constexpr int64_t kGlobalBatch = 64;

absl::StatusOr<std::shared_ptr<Sequential>> CompiledFashionCnn() {
  ConvOptions relu = ConvOptions().Activation("relu");
  TFD_ASSIGN_OR_RETURN(
      auto model,
      Sequential::Make({MakeInputLayer({kNone, 28, 28, 1}),
                        std::make_shared<Conv2D>(32, std::vector<int64_t>{3}, relu),
                        std::make_shared<MaxPooling2D>(),
                        std::make_shared<Conv2D>(64, std::vector<int64_t>{3}, relu),
                        std::make_shared<MaxPooling2D>(), std::make_shared<Flatten>(),
                        std::make_shared<Dense>(64, DenseOptions().Activation("relu")),
                        std::make_shared<Dense>(10)}));
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<Adam> adam, Adam::Create(AdamOptions()));
  SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  TFD_RETURN_IF_ERROR(model->Compile(
      {std::move(adam), std::make_shared<SparseCategoricalCrossentropy>(loss), {"accuracy"}}));
  return model;
}

// One Fit epoch per iteration; replicas 0 means no strategy (the default
// strategy: one device, the host with all its cores).
void BM_FitFashionCnn(benchmark::State& state) {
  const int replicas = static_cast<int>(state.range(0));
  std::unique_ptr<distribute::MirroredStrategy> strategy;
  std::unique_ptr<distribute::StrategyScope> scope;
  if (replicas > 0) {
    auto created = distribute::MirroredStrategy::WithCpuReplicas(replicas);
    if (!created.ok()) {
      state.SkipWithError(std::string(created.status().message()).c_str());
      return;
    }
    strategy = std::move(*created);
    scope = std::make_unique<distribute::StrategyScope>(strategy.get());
  }
  auto model = CompiledFashionCnn();
  auto ds = SyntheticImageBatches(kExamples, kGlobalBatch);
  if (!model.ok() || !ds.ok()) {
    state.SkipWithError("setup failed");
    return;
  }
  FitOptions options;
  options.verbose = 0;
  for (auto _ : state) {
    auto history = (*model)->Fit(*ds, options);
    if (!history.ok()) {
      state.SkipWithError(std::string(history.status().message()).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * kExamples);
  state.SetLabel(replicas == 0 ? "no strategy" : "Mirrored(" + std::to_string(replicas) + ")");
}
BENCHMARK(BM_FitFashionCnn)
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace nn
}  // namespace tfd
