// Benchmarks of FusedBatchNormV3 and FusedBatchNormGradV3 on the GPU
// through Execute, timed with CUDA events on the device's stream, at
// ResNet-50's batch-norm shapes (batch 256: 112x112x64, 56x56x256,
// 14x14x1024) in bfloat16 and float32: the training forward, the training
// gradient and the inference-mode gradient, each channels-last (nhwc 1:
// cuDNN's persistent kernels through the Ex calls) and channels-first
// (nhwc 0: CUDNN_BATCHNORM_SPATIAL) side by side. Bytes/s counts x read
// and y written (forward) or x and dy read and dx written (gradients).
//
//   bazel run --config=cuda //core/kernels/cuda:batch_norm_kernels_benchmark
// (on a GPU machine; see docs/GPU.md).
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_event.h"
#include "core/framework/execute.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace {

enum Which { kForward = 0, kGradient = 1, kInferenceGradient = 2 };

// state.range: batch, height (= width), channels, nhwc (0 or 1).
template <typename T, int kWhich>
void BM_BatchNorm(benchmark::State& state) {
  if (CudaDevice::DeviceCount() == 0) return state.SkipWithError("no CUDA device");
  absl::StatusOr<CudaDevice*> gpu = CudaDevice::Get(0);
  if (!gpu.ok()) return state.SkipWithError(std::string(gpu.status().message()).c_str());
  const int64_t n = state.range(0), hw = state.range(1), c = state.range(2);
  const bool nhwc = state.range(3) != 0;
  const DataType dt = DataTypeToEnum<T>::value;
  const TensorShape shape = nhwc ? TensorShape({n, hw, hw, c}) : TensorShape({n, c, hw, hw});
  absl::StatusOr<Tensor> x = Tensor::Zeros(dt, shape, *gpu);
  absl::StatusOr<Tensor> dy = Tensor::Zeros(dt, shape, *gpu);
  absl::StatusOr<Tensor> per_channel = Tensor::Zeros(DT_FLOAT, {c}, *gpu);
  absl::StatusOr<Tensor> empty = Tensor::Zeros(DT_FLOAT, {0}, *gpu);
  absl::StatusOr<CudaEvent> start = CudaEvent::Create(0, true);
  absl::StatusOr<CudaEvent> stop = CudaEvent::Create(0, true);
  if (!x.ok() || !dy.ok() || !per_channel.ok() || !empty.ok() || !start.ok() || !stop.ok()) {
    return state.SkipWithError("cannot set up the device");
  }
  AttrMap attrs;
  attrs.Set("data_format", std::string(nhwc ? "NHWC" : "NCHW"))
      .Set("is_training", kWhich != kInferenceGradient)
      .Set("epsilon", 0.001f);
  const Tensor& p = *per_channel;
  auto run = [&] {
    return kWhich == kForward
               ? Execute("FusedBatchNormV3", {*x, p, p, p, p}, attrs, *gpu)
               : Execute("FusedBatchNormGradV3", {*dy, *x, p, p, p, *empty}, attrs, *gpu);
  };
  absl::StatusOr<std::vector<Tensor>> first = run();
  if (!first.ok()) return state.SkipWithError(std::string(first.status().message()).c_str());
  for (auto _ : state) {
    (void)start->Record((*gpu)->stream());
    absl::StatusOr<std::vector<Tensor>> out = run();
    (void)stop->Record((*gpu)->stream());
    absl::StatusOr<float> ms = CudaEvent::ElapsedMs(*start, *stop);
    if (!out.ok()) return state.SkipWithError(std::string(out.status().message()).c_str());
    if (!ms.ok()) return state.SkipWithError(std::string(ms.status().message()).c_str());
    state.SetIterationTime(*ms / 1e3);
  }
  const double moved = (kWhich == kForward ? 2.0 : 3.0) * shape.num_elements() * sizeof(T);
  state.counters["bytes/s"] =
      benchmark::Counter(moved * state.iterations(), benchmark::Counter::kIsRate);
}

#define TFD_BATCH_NORM_BENCHMARKS(T, WHICH)                                                \
  BENCHMARK_TEMPLATE(BM_BatchNorm, T, WHICH)                                               \
      ->ArgsProduct({{256}, {112}, {64}, {0, 1}})                                          \
      ->UseManualTime();                                                                   \
  BENCHMARK_TEMPLATE(BM_BatchNorm, T, WHICH)                                               \
      ->ArgsProduct({{256}, {56}, {256}, {0, 1}})                                          \
      ->UseManualTime();                                                                   \
  BENCHMARK_TEMPLATE(BM_BatchNorm, T, WHICH)                                               \
      ->ArgsProduct({{256}, {14}, {1024}, {0, 1}})                                         \
      ->UseManualTime();
TFD_BATCH_NORM_BENCHMARKS(bfloat16, kForward)
TFD_BATCH_NORM_BENCHMARKS(bfloat16, kGradient)
TFD_BATCH_NORM_BENCHMARKS(bfloat16, kInferenceGradient)
TFD_BATCH_NORM_BENCHMARKS(float, kForward)
TFD_BATCH_NORM_BENCHMARKS(float, kGradient)
#undef TFD_BATCH_NORM_BENCHMARKS

}  // namespace
}  // namespace tfd
