// What the watchdog costs the host: handing a collective over (Watch,
// which is all an NCCL Wait() now does besides recording an event), and,
// for a host that needs the results, the round trip of Watch + WaitAll on
// work the device has already finished (one wake-up of the watchdog's
// thread and one look).
//
//   bazel run -c opt //core/distribute/collectives/nccl:collective_watchdog_benchmark
#include <memory>

#include "absl/time/clock.h"
#include "benchmark/benchmark.h"
#include "core/distribute/collectives/nccl/collective_watchdog.h"

namespace tfd {
namespace distribute {
namespace {

// Work the device has finished.
class FinishedWork : public OutstandingWork {
 public:
  absl::StatusOr<bool> IsDone() override { return true; }
  absl::Status AsyncError() override { return absl::OkStatus(); }
};

WorkInfo Info() { return {0, "AllReduce", absl::Now() + absl::Minutes(5), absl::Minutes(5)}; }

void BM_Watch(benchmark::State& state) {
  CollectiveWatchdog watchdog("Bench", [](const absl::Status&) {});
  for (auto _ : state) {
    absl::Status s = watchdog.Watch(Info(), std::make_unique<FinishedWork>());
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
  // Untimed: the loop is over.
  watchdog.WaitAll(0, absl::Now() + absl::Seconds(10)).IgnoreError();
}
BENCHMARK(BM_Watch)->UseRealTime();

void BM_WatchThenWaitAll(benchmark::State& state) {
  CollectiveWatchdog watchdog("Bench", [](const absl::Status&) {});
  for (auto _ : state) {
    absl::Status s = watchdog.Watch(Info(), std::make_unique<FinishedWork>());
    if (s.ok()) s = watchdog.WaitAll(0, absl::Now() + absl::Seconds(10));
    if (!s.ok()) state.SkipWithError(s.ToString().c_str());
  }
}
BENCHMARK(BM_WatchThenWaitAll)->UseRealTime();

}  // namespace
}  // namespace distribute
}  // namespace tfd
