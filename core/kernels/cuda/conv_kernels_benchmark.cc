// Benchmarks of the cuDNN convolutions through Execute, timed with CUDA
// events on the device's stream: the 3x3 convolution of a ResNet-50 stage
// (batch 256, 56x56x64 -> 64, channels-last) and the first convolution of
// the Fashion-MNIST CNN (batch 256, 28x28x1 -> 32), forward and both
// backprops, in float32 and bfloat16, on uniform random data, each with
// cuDNN's heuristic algorithm (autotune 0) and the autotuned one
// (autotune 1) side by side; an untimed first call tunes. Plus one
// multi-tensor Adam launch over the 161 variables of a ResNet-50 (about
// 25.6M parameters; memory-bound, on zeros).
//
//   bazel run --config=cuda //core/kernels/cuda:conv_kernels_benchmark
// (on a GPU machine; see docs/GPU.md).
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_event.h"
#include "core/framework/execute.h"
#include "core/framework/tensor.h"
#include "core/kernels/cuda/benchmark_inputs.h"
#include "core/kernels/cuda/cudnn_conv_autotune.h"
#include "core/kernels/cuda/optimizer_updates.h"

namespace tfd {
namespace {

// state.range: batch, height (= width), in channels, out channels, kernel,
// autotune (0 or 1). which: 0 forward, 1 backprop input, 2 backprop filter.
template <typename T, int kWhich>
void BM_Conv2D(benchmark::State& state) {
  if (CudaDevice::DeviceCount() == 0) return state.SkipWithError("no CUDA device");
  absl::StatusOr<CudaDevice*> gpu = CudaDevice::Get(0);
  if (!gpu.ok()) return state.SkipWithError(std::string(gpu.status().message()).c_str());
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2), k = state.range(3),
                r = state.range(4);
  const DataType dt = DataTypeToEnum<T>::value;
  // Uniform random data made on the device: zeros would run faster than
  // data on the tensor cores (benchmark_inputs.h).
  absl::StatusOr<Tensor> x = RandomUniformOn(*gpu, dt, {n, hw, hw, c}, 1);
  absl::StatusOr<Tensor> w = RandomUniformOn(*gpu, dt, {r, r, c, k}, 3);
  absl::StatusOr<Tensor> dy = RandomUniformOn(*gpu, dt, {n, hw, hw, k}, 5);
  absl::StatusOr<CudaEvent> start = CudaEvent::Create(0, true);
  absl::StatusOr<CudaEvent> stop = CudaEvent::Create(0, true);
  for (const absl::StatusOr<Tensor>* t : {&x, &w, &dy}) {
    if (!t->ok()) return state.SkipWithError(std::string(t->status().message()).c_str());
  }
  if (!start.ok() || !stop.ok()) return state.SkipWithError("cannot create CUDA events");
  AttrMap attrs;
  attrs.Set("strides", std::vector<int64_t>{1, 1, 1, 1}).Set("padding", std::string("SAME"));
  std::vector<int32_t> in_sizes = {static_cast<int32_t>(n), static_cast<int32_t>(hw),
                                   static_cast<int32_t>(hw), static_cast<int32_t>(c)};
  std::vector<int32_t> filter_sizes = {static_cast<int32_t>(r), static_cast<int32_t>(r),
                                       static_cast<int32_t>(c), static_cast<int32_t>(k)};
  const Tensor in_sizes_t = *Tensor::FromVector(in_sizes, {4});
  const Tensor filter_sizes_t = *Tensor::FromVector(filter_sizes, {4});
  cuda_kernels::SetConvAutotuneEnabled(state.range(5) != 0);
  auto run = [&] {
    return kWhich == 0   ? Execute1("Conv2D", {*x, *w}, attrs)
           : kWhich == 1 ? Execute1("Conv2DBackpropInput", {in_sizes_t, *w, *dy}, attrs)
                         : Execute1("Conv2DBackpropFilter", {*x, filter_sizes_t, *dy}, attrs);
  };
  // Untimed: the autotuned side tunes here.
  absl::StatusOr<Tensor> first = run();
  if (!first.ok()) return state.SkipWithError(std::string(first.status().message()).c_str());
  for (auto _ : state) {
    (void)start->Record((*gpu)->stream());
    absl::StatusOr<Tensor> out = run();
    (void)stop->Record((*gpu)->stream());
    absl::StatusOr<float> ms = CudaEvent::ElapsedMs(*start, *stop);
    if (!out.ok()) return state.SkipWithError(std::string(out.status().message()).c_str());
    if (!ms.ok()) return state.SkipWithError(std::string(ms.status().message()).c_str());
    state.SetIterationTime(*ms / 1e3);
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * n * hw * hw * k * c * r * r * state.iterations(), benchmark::Counter::kIsRate);
}

#define TFD_CONV_BENCHMARKS(T, WHICH)                                  \
  BENCHMARK_TEMPLATE(BM_Conv2D, T, WHICH)                              \
      ->ArgsProduct({{256}, {56}, {64}, {64}, {3}, {0, 1}})            \
      ->UseManualTime();                                               \
  BENCHMARK_TEMPLATE(BM_Conv2D, T, WHICH)                              \
      ->ArgsProduct({{256}, {28}, {1}, {32}, {3}, {0, 1}})             \
      ->UseManualTime();
TFD_CONV_BENCHMARKS(float, 0)
TFD_CONV_BENCHMARKS(float, 1)
TFD_CONV_BENCHMARKS(float, 2)
TFD_CONV_BENCHMARKS(bfloat16, 0)
TFD_CONV_BENCHMARKS(bfloat16, 1)
TFD_CONV_BENCHMARKS(bfloat16, 2)
#undef TFD_CONV_BENCHMARKS

// One multi-tensor Adam step over `state.range(0)` float32 variables
// holding 25.6M elements in all.
void BM_MultiTensorAdam(benchmark::State& state) {
  if (CudaDevice::DeviceCount() == 0) return state.SkipWithError("no CUDA device");
  absl::StatusOr<CudaDevice*> gpu = CudaDevice::Get(0);
  if (!gpu.ok()) return state.SkipWithError(std::string(gpu.status().message()).c_str());
  const int64_t vars = state.range(0), each = 25'600'000 / vars;
  std::vector<Tensor> buffers;
  std::vector<cuda_kernels::UpdateTensors<float>> table(vars);
  for (int64_t i = 0; i < vars; ++i) {
    for (int b = 0; b < 4; ++b) {
      absl::StatusOr<Tensor> t = Tensor::Zeros(DT_FLOAT, {each}, *gpu);
      if (!t.ok()) return state.SkipWithError("cannot set up the device");
      buffers.push_back(*t);
    }
    table[i].var = buffers[4 * i].data<float>();
    table[i].slot0 = buffers[4 * i + 1].data<float>();
    table[i].slot1 = buffers[4 * i + 2].data<float>();
    table[i].grad = buffers[4 * i + 3].data<float>();
    table[i].n = each;
  }
  cuda_kernels::AdamParams p{1e-3, 0.9, 0.999, 1e-7, false, false};
  absl::StatusOr<CudaEvent> start = CudaEvent::Create(0, true);
  absl::StatusOr<CudaEvent> stop = CudaEvent::Create(0, true);
  if (!start.ok() || !stop.ok() || !(*gpu)->Activate().ok()) {
    return state.SkipWithError("cannot set up the device");
  }
  for (auto _ : state) {
    (void)start->Record((*gpu)->stream());
    const cudaError_t err = cuda_kernels::LaunchAdam<float>(table.data(), static_cast<int>(vars),
                                                            p, (*gpu)->stream());
    (void)stop->Record((*gpu)->stream());
    absl::StatusOr<float> ms = CudaEvent::ElapsedMs(*start, *stop);
    if (err != cudaSuccess || !ms.ok()) return state.SkipWithError("launch failed");
    state.SetIterationTime(*ms / 1e3);
  }
  // var, m, v read and written, grad read: 7 float moves per element.
  state.counters["bytes/s"] = benchmark::Counter(7.0 * 4 * each * vars * state.iterations(),
                                                 benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MultiTensorAdam)->Arg(161)->UseManualTime();

}  // namespace
}  // namespace tfd
