// The host-side cost of one op through Execute, on tensors so small that
// the kernel's arithmetic is a few nanoseconds: what is measured is the
// dispatch (op lookup, attr binding and defaults, the shape function,
// placement, kernel lookup, output allocation, observers). On a GPU this
// cost is paid on the host for every kernel launch, so it bounds how fast
// a small model (the Fashion-MNIST CNN) can step.
//
// Each op runs in four modes (the benchmark's name ends with it):
//   plain      no observer, no scope;
//   idle_tape  a GradientTape is alive but watches nothing, so it is told
//              of every op and records none;
//   recording  the tape watches the inputs and records every op (the tape
//              is replaced every kOpsPerTape ops, its teardown timed too);
//   scope      under DeviceScope(HostDevice()), the placement a strategy's
//              scope makes.
//
// tools/bench/op_dispatch_torch.py measures the same calls in PyTorch.
//
//   bazel build //tools/bench:op_dispatch_benchmark &&
//   bazel-bin/tools/bench/op_dispatch_benchmark --benchmark_repetitions=5
//       --benchmark_report_aggregates_only=true
#include <optional>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/autodiff/gradient_tape.h"
#include "core/framework/execute.h"

namespace tfd {
namespace {

enum class Mode { kPlain, kIdleTape, kRecording, kScope };

// Ops recorded by one tape before it is replaced: enough to amortize the
// tape's construction, few enough to keep its memory small.
constexpr int kOpsPerTape = 1024;

Tensor Filled(const TensorShape& shape, float value) {
  Tensor t(DT_FLOAT, shape);
  for (float& v : t.flat<float>()) v = value;
  return t;
}

// Runs `op` on `inputs` once per iteration in the benchmark's mode. The
// attrs are built by `make_attrs` inside the loop, as a layer builds them
// for every call.
template <typename MakeAttrs>
void RunOp(benchmark::State& state, Mode mode, const char* op,
           const std::vector<Tensor>& inputs, MakeAttrs make_attrs) {
  std::optional<GradientTape> tape;
  std::optional<DeviceScope> scope;
  if (mode == Mode::kScope) scope.emplace(HostDevice());
  int recorded = 0;
  for (auto _ : state) {
    const bool wants_tape = mode == Mode::kIdleTape || mode == Mode::kRecording;
    if (wants_tape && (!tape || recorded == kOpsPerTape)) {
      tape.reset();
      tape.emplace();
      if (mode == Mode::kRecording) {
        for (const Tensor& t : inputs) tape->Watch(t);
      }
      recorded = 0;
    }
    absl::StatusOr<std::vector<Tensor>> outputs = Execute(op, inputs, make_attrs());
    if (!outputs.ok()) {
      state.SkipWithError(std::string(outputs.status().message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(outputs->data());
    ++recorded;
  }
}

AttrMap NoAttrs() { return AttrMap(); }

void BM_AddScalars(benchmark::State& state, Mode mode) {
  RunOp(state, mode, "AddV2", {Filled({}, 1.0f), Filled({}, 2.0f)}, NoAttrs);
}

void BM_MatMul1x1(benchmark::State& state, Mode mode) {
  RunOp(state, mode, "MatMul", {Filled({1, 1}, 1.0f), Filled({1, 1}, 2.0f)}, NoAttrs);
}

void BM_Relu4(benchmark::State& state, Mode mode) {
  RunOp(state, mode, "Relu", {Filled({4}, -1.0f)}, NoAttrs);
}

// Two inputs of different ranks and a defaulted string attr (data_format).
void BM_BiasAdd1x4(benchmark::State& state, Mode mode) {
  RunOp(state, mode, "BiasAdd", {Filled({1, 4}, 1.0f), Filled({4}, 0.5f)}, NoAttrs);
}

// Several attrs, three of them given by the caller as Conv layers give
// them; the kernel itself is not free (it sets up a convolution).
void BM_Conv2D1x1x1x1(benchmark::State& state, Mode mode) {
  RunOp(state, mode, "Conv2D", {Filled({1, 1, 1, 1}, 1.0f), Filled({1, 1, 1, 1}, 2.0f)}, [] {
    return AttrMap()
        .Set("strides", {1, 1, 1, 1})
        .Set("dilations", {1, 1, 1, 1})
        .Set("padding", "VALID");
  });
}

// The floor under every op above: allocating its one scalar output.
void BM_AllocateScalar(benchmark::State& state) {
  for (auto _ : state) {
    absl::StatusOr<Tensor> t = Tensor::Allocate(DT_FLOAT, TensorShape());
    benchmark::DoNotOptimize(t->raw_data());
  }
}

// Registers `fn` once per mode: BM_Relu4/plain, BM_Relu4/idle_tape, ...
#define TFD_BENCHMARK_MODES(fn)                               \
  BENCHMARK_CAPTURE(fn, plain, Mode::kPlain);                 \
  BENCHMARK_CAPTURE(fn, idle_tape, Mode::kIdleTape);          \
  BENCHMARK_CAPTURE(fn, recording, Mode::kRecording);         \
  BENCHMARK_CAPTURE(fn, scope, Mode::kScope)

TFD_BENCHMARK_MODES(BM_AddScalars);
TFD_BENCHMARK_MODES(BM_MatMul1x1);
TFD_BENCHMARK_MODES(BM_Relu4);
TFD_BENCHMARK_MODES(BM_BiasAdd1x4);
TFD_BENCHMARK_MODES(BM_Conv2D1x1x1x1);
BENCHMARK(BM_AllocateScalar);

}  // namespace
}  // namespace tfd
