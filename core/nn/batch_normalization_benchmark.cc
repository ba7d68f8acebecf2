// One training step of a BatchNormalization layer on a float32 NHWC
// activation, fused (one FusedBatchNormV3 forward, one
// FusedBatchNormGradV3 backward) and composed (the elementwise ops and
// their gradients), side by side: forward in training mode, the moving
// statistics' update, and the gradients of sum(y) with respect to the
// input, gamma and beta. Args: batch, height = width, channels.
//
//   bazel build -c opt //core/nn:batch_normalization_benchmark
//   bazel-bin/core/nn/batch_normalization_benchmark
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/autodiff/gradient_tape.h"
#include "core/framework/execute.h"
#include "core/nn/batch_normalization.h"

namespace tfd {
namespace nn {
namespace {

Tensor Activations(int64_t n, int64_t hw, int64_t c) {
  Tensor t(DT_FLOAT, TensorShape({n, hw, hw, c}));
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = static_cast<float>(i % 251) / 125.0f - 1.0f;
  return t;
}

void TrainingStep(benchmark::State& state, bool fused) {
  BatchNormalization bn(BatchNormalizationOptions().Fused(fused));
  const Tensor x = Activations(state.range(0), state.range(1), state.range(2));
  const Tensor axes = *Tensor::FromVector<int32_t>({0, 1, 2, 3}, {4});
  if (absl::Status s = bn.Build(ShapeOf(x)); !s.ok()) {
    state.SkipWithError(std::string(s.message()).c_str());
    return;
  }
  // The input as a variable: one Gradient() call gives dx, dgamma, dbeta.
  Variable input("x", x);
  std::vector<const Variable*> sources = LocalVariables(bn.trainable_weights());
  sources.push_back(&input);
  for (auto _ : state) {
    GradientTape tape;
    absl::StatusOr<Tensor> y = bn.Call(input.Read(), /*training=*/true);
    absl::StatusOr<Tensor> loss = y.ok() ? Execute1("Sum", {*y, axes}) : y;
    absl::StatusOr<std::vector<Tensor>> grads =
        loss.ok() ? tape.Gradient(*loss, sources) : loss.status();
    if (!grads.ok()) {
      state.SkipWithError(std::string(grads.status().message()).c_str());
      break;
    }
    benchmark::DoNotOptimize(grads);
  }
  state.SetItemsProcessed(state.iterations() * x.NumElements());
}

void BM_BatchNormStepFused(benchmark::State& state) { TrainingStep(state, true); }
void BM_BatchNormStepComposed(benchmark::State& state) { TrainingStep(state, false); }

// The Fashion-MNIST CNN's activations after its first convolution, and a
// deeper, wider one.
#define TFD_BN_SHAPES Args({32, 26, 32})->Args({128, 26, 32})->Args({32, 12, 64})
BENCHMARK(BM_BatchNormStepFused)->TFD_BN_SHAPES->Unit(benchmark::kMillisecond);
BENCHMARK(BM_BatchNormStepComposed)->TFD_BN_SHAPES->Unit(benchmark::kMillisecond);
#undef TFD_BN_SHAPES

}  // namespace
}  // namespace nn
}  // namespace tfd
