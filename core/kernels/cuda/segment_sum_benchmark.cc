// UnsortedSegmentSum on the GPU with op determinism off (atomic adds) and
// on (sorted, in row order; sorted_segment_sum.cu), side by side, through
// Execute and synchronized: an embedding gradient (many segments, few
// rows each), a wide one, and a few segments of many rows (the sorted
// path's worst case).
//
//   bazel run --config=cuda //core/kernels/cuda:segment_sum_benchmark
// (on a GPU machine; see docs/GPU.md, "Determinism").
#include <algorithm>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/device/cuda/cuda_device.h"
#include "core/framework/determinism.h"
#include "core/framework/execute.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace {

// Args: deterministic (0/1), rows, inner, segments.
void BM_UnsortedSegmentSum(benchmark::State& state) {
  absl::StatusOr<CudaDevice*> gpu =
      CudaDevice::DeviceCount() > 0
          ? CudaDevice::Get(0)
          : absl::StatusOr<CudaDevice*>(absl::NotFoundError("no CUDA device"));
  if (!gpu.ok()) return state.SkipWithError(std::string(gpu.status().message()).c_str());
  const bool deterministic = state.range(0) != 0;
  const int64_t rows = state.range(1), inner = state.range(2), segments = state.range(3);
  std::vector<int32_t> ids(rows);
  // A fixed scatter of rows over the segments.
  for (int64_t i = 0; i < rows; ++i) ids[i] = static_cast<int32_t>((i * 2654435761u) % segments);
  absl::StatusOr<Tensor> data = Tensor::Zeros(DT_FLOAT, {rows, inner}, *gpu);
  Tensor host_ids = *Tensor::Allocate(DT_INT32, {rows}, HostDevice());
  std::copy(ids.begin(), ids.end(), host_ids.data<int32_t>());
  absl::StatusOr<Tensor> dev_ids = host_ids.CopyTo(*gpu);
  Tensor num = *Tensor::Allocate(DT_INT32, TensorShape({}), HostDevice());
  num.data<int32_t>()[0] = static_cast<int32_t>(segments);
  if (!data.ok() || !dev_ids.ok()) return state.SkipWithError("out of device memory");
  EnableOpDeterminism(deterministic);
  for (auto _ : state) {
    absl::StatusOr<Tensor> y = Execute1("UnsortedSegmentSum", {*data, *dev_ids, num});
    if (!y.ok()) return state.SkipWithError(std::string(y.status().message()).c_str());
    (void)(*gpu)->Synchronize();
  }
  EnableOpDeterminism(false);
  state.SetBytesProcessed(state.iterations() * rows * inner * sizeof(float));
}

BENCHMARK(BM_UnsortedSegmentSum)
    ->ArgNames({"deterministic", "rows", "inner", "segments"})
    ->ArgsProduct({{0, 1}, {65536}, {128}, {50000}})
    ->ArgsProduct({{0, 1}, {65536}, {1024}, {1000}})
    ->ArgsProduct({{0, 1}, {1 << 20}, {1}, {10}})
    ->UseRealTime();

}  // namespace
}  // namespace tfd
