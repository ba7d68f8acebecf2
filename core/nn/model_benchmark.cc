// The Fashion-MNIST CNN through the layer API: inference (Call) and a
// training step's forward and backward pass (GradientTape over every
// trainable weight), float32, batch 32 and 128. It measures what the
// layers add around the kernels (tools/bench/conv_benchmark.cc times the
// convolutions alone).
//
//   bazel build -c opt //core/nn:model_benchmark && bazel-bin/core/nn/model_benchmark
#include <memory>

#include "benchmark/benchmark.h"
#include "core/autodiff/gradient_tape.h"
#include "core/framework/execute.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"
#include "core/nn/synthetic_images.h"

namespace tfd {
namespace nn {
namespace {

std::shared_ptr<Sequential> FashionCnn() {
  ConvOptions relu = ConvOptions().Activation("relu");
  return *Sequential::Make({MakeInputLayer({kNone, 28, 28, 1}),
                            std::make_shared<Conv2D>(32, std::vector<int64_t>{3}, relu),
                            std::make_shared<MaxPooling2D>(),
                            std::make_shared<Conv2D>(64, std::vector<int64_t>{3}, relu),
                            std::make_shared<MaxPooling2D>(), std::make_shared<Flatten>(),
                            std::make_shared<Dense>(64, DenseOptions().Activation("relu")),
                            std::make_shared<Dense>(10)});
}

void BM_FashionCnnInference(benchmark::State& state) {
  auto model = FashionCnn();
  Tensor x = SyntheticImages(state.range(0));
  for (auto _ : state) {
    auto y = model->Call(x);
    if (!y.ok()) state.SkipWithError(std::string(y.status().message()).c_str());
    benchmark::DoNotOptimize(y);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FashionCnnInference)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_FashionCnnForwardBackward(benchmark::State& state) {
  auto model = FashionCnn();
  Tensor x = SyntheticImages(state.range(0));
  const std::vector<const Variable*> sources = LocalVariables(model->TrainableVariables());
  const Tensor axes = *Tensor::FromVector<int32_t>({0, 1}, {2});
  for (auto _ : state) {
    GradientTape tape;
    auto y = model->Call(x, /*training=*/true);
    auto loss = Execute1("Sum", {*y, axes});
    auto grads = tape.Gradient(*loss, sources);
    if (!grads.ok()) state.SkipWithError(std::string(grads.status().message()).c_str());
    benchmark::DoNotOptimize(grads);
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_FashionCnnForwardBackward)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nn
}  // namespace tfd
