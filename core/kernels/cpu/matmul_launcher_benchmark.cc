// A square float product [s, s] x [s, s] on the direct loop and on the
// library (oneDNN), side by side per size: kDirectMatMulMaxMacs belongs
// where the two cross. Also with y transposed, the loop's slower layout.
//
//   bazel run -c opt //core/kernels/cpu:matmul_launcher_benchmark
#include <string>

#include "benchmark/benchmark.h"
#include "core/device/cpu/cpu_device.h"
#include "core/kernels/cpu/matmul_launcher.h"

namespace tfd {
namespace {

void BM_SquareMatMul(benchmark::State& state, MatMulEngine engine, bool adj_y) {
  const int64_t s = state.range(0);
  Tensor x(DT_FLOAT, {s, s}), y(DT_FLOAT, {s, s}), out(DT_FLOAT, {s, s});
  for (float& v : x.flat<float>()) v = 0.5f;
  for (float& v : y.flat<float>()) v = 0.25f;
  ThreadPool* pool = HostDevice()->thread_pool();
  for (auto _ : state) {
    const absl::Status st = LaunchBatchMatMul(pool, x, y, false, adj_y, &out, engine);
    if (!st.ok()) {
      state.SkipWithError(std::string(st.message()).c_str());
      return;
    }
    benchmark::DoNotOptimize(out.raw_data());
  }
  state.counters["macs"] = static_cast<double>(s * s * s);
}

BENCHMARK_CAPTURE(BM_SquareMatMul, direct, MatMulEngine::kDirect, false)
    ->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Arg(24)->Arg(32);
BENCHMARK_CAPTURE(BM_SquareMatMul, library, MatMulEngine::kLibrary, false)
    ->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Arg(24)->Arg(32);
BENCHMARK_CAPTURE(BM_SquareMatMul, direct_adj_y, MatMulEngine::kDirect, true)
    ->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Arg(24)->Arg(32);
BENCHMARK_CAPTURE(BM_SquareMatMul, library_adj_y, MatMulEngine::kLibrary, true)
    ->Arg(1)->Arg(4)->Arg(8)->Arg(16)->Arg(24)->Arg(32);

}  // namespace
}  // namespace tfd
