// Checkpoint throughput for a 200 MB model (three Dense(4096) layers on 4096
// features: 50.3M float32 weights, 201 MB), next to a plain copy of the
// same bytes, so the numbers say how close Save/Restore come to the disk:
//   BM_CheckpointWrite    Checkpoint::Write: values to a new bundle, both
//                         files synced and renamed into place
//   BM_CheckpointRestore  Checkpoint::Restore: index, object graph, every
//                         value read, checksummed and assigned
//   BM_FileCopy           read the .data file and write it to a new file
//                         with 1 MiB buffers, then fsync (the floor for Write)
//   BM_FileRead           read the .data file into memory (the floor for
//                         Restore; from the page cache once warm, as Restore)
// Bytes/s count the model's bytes. Files go to $TEST_TMPDIR or /tmp.
//
//   bazel build -c opt //savedmodel/checkpoint:checkpoint_benchmark
//   bazel-bin/savedmodel/checkpoint/checkpoint_benchmark --benchmark_repetitions=5
//       (add --benchmark_report_aggregates_only=true for medians only)
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/nn/dense.h"
#include "core/nn/input_layer.h"
#include "core/nn/sequential.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint.h"

namespace tfd {
namespace savedmodel {
namespace {

constexpr int64_t kWidth = 4096;
constexpr int kLayers = 3;

std::string WorkDir() {
  const char* root = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(root ? root : "/tmp") + "/tfd_checkpoint_benchmark";
  std::filesystem::create_directories(dir);
  return dir;
}

// The model, built once (its random initialization takes seconds).
std::shared_ptr<nn::Model> Model() {
  static std::shared_ptr<nn::Model> model = [] {
    std::vector<std::shared_ptr<nn::Layer>> layers = {nn::MakeInputLayer({nn::kNone, kWidth})};
    for (int i = 0; i < kLayers; ++i) layers.push_back(std::make_shared<nn::Dense>(kWidth));
    return std::shared_ptr<nn::Model>(nn::Sequential::Make(layers).value());
  }();
  return model;
}

int64_t ModelBytes() {
  int64_t bytes = 0;
  for (const nn::Weight& w : Model()->weights()) bytes += w->shape().num_elements() * 4;
  return bytes;
}

// A checkpoint of the model at a fixed prefix, written once.
const std::string& SavedPrefix() {
  static const std::string prefix = [] {
    const std::string p = WorkDir() + "/saved";
    if (!Checkpoint(Model(), nullptr).Write(p).ok()) std::abort();
    return p;
  }();
  return prefix;
}

void BM_CheckpointWrite(benchmark::State& state) {
  Checkpoint checkpoint(Model(), nullptr);
  const std::string prefix = WorkDir() + "/write";
  for (auto _ : state) {
    absl::Status s = checkpoint.Write(prefix);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetBytesProcessed(state.iterations() * ModelBytes());
}

void BM_CheckpointRestore(benchmark::State& state) {
  Checkpoint checkpoint(Model(), nullptr);
  const std::string& prefix = SavedPrefix();
  for (auto _ : state) {
    absl::Status s = checkpoint.Restore(prefix);
    if (!s.ok()) state.SkipWithError(std::string(s.message()).c_str());
  }
  state.SetBytesProcessed(state.iterations() * ModelBytes());
}

void BM_FileCopy(benchmark::State& state) {
  const std::string from = DataFilename(SavedPrefix(), 0, 1);
  const std::string to = WorkDir() + "/copy";
  std::vector<char> buffer(1 << 20);
  for (auto _ : state) {
    const int in = open(from.c_str(), O_RDONLY);
    const int out = open(to.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ssize_t n;
    while ((n = read(in, buffer.data(), buffer.size())) > 0) {
      if (write(out, buffer.data(), n) != n) state.SkipWithError("short write");
    }
    fsync(out);
    close(out);
    close(in);
  }
  state.SetBytesProcessed(state.iterations() * ModelBytes());
}

void BM_FileRead(benchmark::State& state) {
  const std::string from = DataFilename(SavedPrefix(), 0, 1);
  std::vector<char> data(ModelBytes() + (1 << 20));
  for (auto _ : state) {
    const int in = open(from.c_str(), O_RDONLY);
    size_t total = 0;
    ssize_t n;
    while ((n = read(in, data.data() + total, data.size() - total)) > 0) total += n;
    close(in);
    benchmark::DoNotOptimize(data.data());
  }
  state.SetBytesProcessed(state.iterations() * ModelBytes());
}

BENCHMARK(BM_CheckpointWrite)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_CheckpointRestore)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_FileCopy)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);
BENCHMARK(BM_FileRead)->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(3);

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
