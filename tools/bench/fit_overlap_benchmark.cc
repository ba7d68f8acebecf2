// Model::Fit steps under MirroredStrategy(2) CPU replicas with the
// gradient all-reduce overlapping the backward pass
// (CommunicationOptions::overlap_backward_pass, Optimizer::Minimize) and
// without, for two models and two bucket sizes:
//   model 0  MLP  784 -> 512 relu -> 512 relu -> 10 (Adam): large kernels,
//            a few big gradients
//   model 1  CNN  the Fashion-MNIST CNN (Conv2D 32 -> pool -> Conv2D 64 ->
//            pool -> Dense 64 -> Dense 10, Adam)
//   bytes_per_pack 64 KiB (many buckets) and 4 MiB (the default)
//   policy 0 float32, 1 mixed_float16 (MLP only): Compile wraps Adam in a
//            LossScaleOptimizer, whose Minimize overlaps as well
// Each iteration is one Fit epoch of 8 global batches of 64 synthetic
// 28x28 images; time is wall-clock per epoch, CPU the whole process's CPU
// time per epoch (every thread). Compare overlap 1 against overlap 0 of the
// same model and bucket size, measured side by side:
//
//   bazel build -c opt //tools/bench:fit_overlap_benchmark
//   bazel-bin/tools/bench/fit_overlap_benchmark --benchmark_repetitions=7
//       --benchmark_enable_random_interleaving=true
//       --benchmark_report_aggregates_only=true   (one command line)
//
// On CPU replicas the all-reduce (ShmAllReduce) is done by the replica
// threads themselves, so hiding it behind the backward pass buys less than
// on GPUs, where NCCL runs on its own stream.
#include <memory>
#include <string>

#include "benchmark/benchmark.h"
#include "core/data/transforms.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/kernels/random_seed.h"
#include "core/nn/adam.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/losses.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"
#include "core/nn/synthetic_images.h"

namespace tfd {
namespace nn {
namespace {

constexpr int64_t kGlobalBatch = 64;
constexpr int64_t kSteps = 8;

absl::StatusOr<std::shared_ptr<Sequential>> MakeModel(int which) {
  DenseOptions relu = DenseOptions().Activation("relu");
  if (which == 0) {
    return Sequential::Make({MakeInputLayer({kNone, 28, 28, 1}), std::make_shared<Flatten>(),
                             std::make_shared<Dense>(512, relu), std::make_shared<Dense>(512, relu),
                             std::make_shared<Dense>(10)});
  }
  ConvOptions conv_relu = ConvOptions().Activation("relu");
  return Sequential::Make({MakeInputLayer({kNone, 28, 28, 1}),
                           std::make_shared<Conv2D>(32, std::vector<int64_t>{3}, conv_relu),
                           std::make_shared<MaxPooling2D>(),
                           std::make_shared<Conv2D>(64, std::vector<int64_t>{3}, conv_relu),
                           std::make_shared<MaxPooling2D>(), std::make_shared<Flatten>(),
                           std::make_shared<Dense>(64, relu), std::make_shared<Dense>(10)});
}

// Args: model (0 MLP, 1 CNN), bytes_per_pack in KiB, overlap (0 or 1),
// policy (0 float32, 1 mixed_float16).
void BM_FitOverlap(benchmark::State& state) {
  const int which = static_cast<int>(state.range(0));
  const bool mixed = state.range(3) != 0;
  auto policy = DTypePolicy::FromName(mixed ? "mixed_float16" : "float32");
  if (!policy.ok()) return state.SkipWithError(policy.status().ToString().c_str());
  // Layers take the global policy when they are made.
  ScopedGlobalPolicy policy_scope(*policy);
  distribute::ReplicatedStrategyOptions options;
  options.communication.bytes_per_pack = state.range(1) * 1024;
  options.communication.overlap_backward_pass = state.range(2) != 0;
  auto strategy = distribute::MirroredStrategy::WithCpuReplicas(2, options);
  if (!strategy.ok()) return state.SkipWithError(strategy.status().ToString().c_str());
  std::shared_ptr<Sequential> model;
  {
    distribute::StrategyScope scope(strategy->get());
    SetRandomSeed(1);
    auto made = MakeModel(which);
    if (!made.ok()) return state.SkipWithError(made.status().ToString().c_str());
    model = *made;
    auto adam = Adam::Create(AdamOptions());
    if (!adam.ok()) return state.SkipWithError(adam.status().ToString().c_str());
    SparseCategoricalCrossentropy::Options loss;
    loss.from_logits = true;
    absl::Status compiled = model->Compile(
        {*std::move(adam), std::make_shared<SparseCategoricalCrossentropy>(loss), {}});
    if (!compiled.ok()) return state.SkipWithError(compiled.ToString().c_str());
  }
  auto ds = SyntheticImageBatches(kGlobalBatch * kSteps, kGlobalBatch);
  if (!ds.ok()) return state.SkipWithError(ds.status().ToString().c_str());
  FitOptions fit;
  fit.verbose = 0;
  // One epoch outside the timing: first calls pick oneDNN primitives.
  auto warmup = model->Fit(*ds, fit);
  if (!warmup.ok()) return state.SkipWithError(warmup.status().ToString().c_str());
  for (auto _ : state) {
    auto history = model->Fit(*ds, fit);
    if (!history.ok()) return state.SkipWithError(history.status().ToString().c_str());
  }
  state.SetItemsProcessed(state.iterations() * kGlobalBatch * kSteps);
  state.SetLabel(std::string(which == 0 ? "MLP" : "CNN") + (mixed ? " mixed_float16" : "") +
                 " overlap " + (state.range(2) != 0 ? "on" : "off"));
}
BENCHMARK(BM_FitOverlap)
    ->ArgsProduct({{0, 1}, {64, 4096}, {0, 1}, {0}})
    ->ArgsProduct({{0}, {64, 4096}, {0, 1}, {1}})
    ->ArgNames({"model", "pack_kib", "overlap", "policy"})
    ->Unit(benchmark::kMillisecond)
    ->MeasureProcessCPUTime()
    ->UseRealTime();

}  // namespace
}  // namespace nn
}  // namespace tfd
