// NCCL all-reduce throughput between the GPUs of this machine: float32
// tensors of 1 KB to 256 MB, one rank per GPU (one thread each), through
// NcclAllReduce as MirroredStrategy calls it (one bucket: bytes_per_pack
// is the tensor's size). On one GPU the group has one rank and the figure
// is NCCL's copy, a floor for the launch and wait overhead.
//
// "algbw" is the bytes each rank contributes over the time of one
// all-reduce; "busbw" is algbw * 2(n-1)/n, the figure nccl-tests report,
// comparable across rank counts (0 for one rank). Each all-reduce is
// waited for on the device (Synchronize): Wait() alone returns before
// the GPU is done.
//
//   bazel build --config=cuda //core/distribute/collectives/nccl:nccl_all_reduce_benchmark
//   (run on a GPU machine, docs/GPU.md)
#include <thread>  // NOLINT(build/c++11): one thread per rank.
#include <vector>

#include "benchmark/benchmark.h"
#include "core/device/cuda/cuda_device.h"
#include "core/distribute/collectives/nccl/nccl_communicator.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace distribute {
namespace {

void BM_NcclAllReduce(benchmark::State& state) {
  const int64_t bytes = state.range(0);
  const int n = CudaDevice::DeviceCount();
  if (n == 0) {
    state.SkipWithError("no CUDA device");
    return;
  }
  std::vector<Device*> gpus;
  for (int i = 0; i < n; ++i) gpus.push_back(*CudaDevice::Get(i));
  auto comms = CreateNcclCommunicators(gpus);
  if (!comms.ok()) {
    state.SkipWithError(comms.status().ToString().c_str());
    return;
  }
  std::vector<Tensor> inputs;
  for (int r = 0; r < n; ++r) inputs.push_back(*Tensor::Zeros(DT_FLOAT, {bytes / 4}, gpus[r]));
  AllReduceOptions options;
  options.communication.bytes_per_pack = bytes;
  const int64_t iterations = state.max_iterations;
  std::vector<std::thread> others;
  for (int r = 1; r < n; ++r) {
    others.emplace_back([&, r] {
      for (int64_t i = 0; i < iterations; ++i) {
        if (!AllReduceAndWait(*(*comms)[r], {inputs[r]}, options).ok()) return;
        if (!(*comms)[r]->Synchronize(options.communication.timeout).ok()) return;
      }
    });
  }
  for (auto _ : state) {
    auto out = AllReduceAndWait(*(*comms)[0], {inputs[0]}, options);
    absl::Status done = out.ok() ? (*comms)[0]->Synchronize(options.communication.timeout)
                                 : out.status();
    if (!done.ok()) {
      state.SkipWithError(done.ToString().c_str());
      break;
    }
  }
  for (auto& t : others) t.join();
  const double gb = static_cast<double>(bytes) * 1e-9;
  state.counters["algbw_GBps"] =
      benchmark::Counter(gb, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["busbw_GBps"] =
      benchmark::Counter(gb * 2.0 * (n - 1) / n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["ranks"] = n;
}
BENCHMARK(BM_NcclAllReduce)->RangeMultiplier(16)->Range(1 << 10, 256 << 20)->UseRealTime();

}  // namespace
}  // namespace distribute
}  // namespace tfd
