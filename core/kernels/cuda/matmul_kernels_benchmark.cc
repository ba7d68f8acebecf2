// Benchmarks of MatMul on the GPU through Execute (dispatch, allocation
// from the cache and cuBLAS), timed with CUDA events on the device's
// stream, for square products in float32, half and bfloat16 of uniform
// random matrices in [-1, 1) (torch_reference.py multiplies the same).
//
//   bazel run --config=cuda //core/kernels/cuda:matmul_kernels_benchmark
// (on a GPU machine; see docs/GPU.md).
#include <string>

#include "benchmark/benchmark.h"
#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_event.h"
#include "core/framework/execute.h"
#include "core/framework/tensor.h"
#include "core/kernels/cuda/benchmark_inputs.h"

namespace tfd {
namespace {

template <typename T>
void BM_MatMul(benchmark::State& state) {
  if (CudaDevice::DeviceCount() == 0) return state.SkipWithError("no CUDA device");
  absl::StatusOr<CudaDevice*> gpu = CudaDevice::Get(0);
  if (!gpu.ok()) return state.SkipWithError(std::string(gpu.status().message()).c_str());
  const int64_t n = state.range(0);
  // Uniform [-1, 1) made on the device, as torch_reference.py's inputs:
  // Hopper multiplies zeros faster than data (benchmark_inputs.h).
  absl::StatusOr<Tensor> a = RandomUniformOn(*gpu, DataTypeToEnum<T>::value, {n, n}, 1);
  absl::StatusOr<Tensor> b = RandomUniformOn(*gpu, DataTypeToEnum<T>::value, {n, n}, 3);
  absl::StatusOr<CudaEvent> start = CudaEvent::Create(0, true);
  absl::StatusOr<CudaEvent> stop = CudaEvent::Create(0, true);
  if (!a.ok()) return state.SkipWithError(std::string(a.status().message()).c_str());
  if (!b.ok()) return state.SkipWithError(std::string(b.status().message()).c_str());
  if (!start.ok() || !stop.ok()) return state.SkipWithError("cannot create CUDA events");
  for (auto _ : state) {
    (void)start->Record((*gpu)->stream());
    absl::StatusOr<Tensor> c = Execute1("MatMul", {*a, *b});
    (void)stop->Record((*gpu)->stream());
    absl::StatusOr<float> ms = CudaEvent::ElapsedMs(*start, *stop);
    if (!c.ok()) return state.SkipWithError(std::string(c.status().message()).c_str());
    if (!ms.ok()) return state.SkipWithError(std::string(ms.status().message()).c_str());
    state.SetIterationTime(*ms / 1e3);
  }
  state.counters["FLOP/s"] = benchmark::Counter(
      2.0 * n * n * n * state.iterations(), benchmark::Counter::kIsRate);
}

BENCHMARK_TEMPLATE(BM_MatMul, float)->RangeMultiplier(4)->Range(256, 8192)->UseManualTime();
BENCHMARK_TEMPLATE(BM_MatMul, half)->RangeMultiplier(4)->Range(256, 8192)->UseManualTime();
BENCHMARK_TEMPLATE(BM_MatMul, bfloat16)->RangeMultiplier(4)->Range(256, 8192)->UseManualTime();

}  // namespace
}  // namespace tfd
