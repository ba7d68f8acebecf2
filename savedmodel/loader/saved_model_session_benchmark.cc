// Inference of the Fashion-MNIST CNN through a loaded SavedModel next to
// the same model called eagerly, batch 32 and 128: what the graph executor
// (feeds, per-node dispatch, resource reads) adds around the kernels.
//
//   bazel build -c opt //savedmodel/loader:saved_model_session_benchmark
//   bazel-bin/savedmodel/loader/saved_model_session_benchmark
#include <unistd.h>

#include <cstdlib>
#include <string>

#include "benchmark/benchmark.h"
#include "core/framework/tensor_testutil.h"
#include "savedmodel/export/fashion_cnn_testutil.h"
#include "savedmodel/export/save_model.h"
#include "savedmodel/loader/saved_model_session.h"

namespace tfd {
namespace savedmodel {
namespace {

std::shared_ptr<nn::Sequential> Model() {
  static auto* model = new std::shared_ptr<nn::Sequential>(*MakeFashionCnn(1));
  return *model;
}

const SavedModelSession& Session() {
  static const SavedModelSession* session = [] {
    const std::string dir = "/tmp/tfd_saved_model_benchmark_" + std::to_string(getpid());
    if (!SaveModel(*Model(), dir).ok()) std::abort();
    auto loaded = SavedModelSession::Load(dir);
    if (!loaded.ok()) std::abort();
    // Everything is in memory now; leave nothing behind.
    for (const char* f : {"/saved_model.pb", "/variables/variables.index",
                          "/variables/variables.data-00000-of-00001"}) {
      unlink((dir + f).c_str());
    }
    rmdir((dir + "/variables").c_str());
    rmdir(dir.c_str());
    return loaded->release();
  }();
  return *session;
}

void BM_EagerCall(benchmark::State& state) {
  Tensor images = test::RandomUniformTensor(DT_FLOAT, {state.range(0), 28, 28, 1}, 1);
  for (auto _ : state) benchmark::DoNotOptimize(Model()->Call(images, false));
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_EagerCall)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_SavedModelRunSignature(benchmark::State& state) {
  Tensor images = test::RandomUniformTensor(DT_FLOAT, {state.range(0), 28, 28, 1}, 1);
  const SavedModelSession& session = Session();
  const std::string key =
      session.meta_graph_def().signature_def().at("serving_default").inputs().begin()->first;
  for (auto _ : state) {
    benchmark::DoNotOptimize(session.RunSignature("serving_default", {{key, images}}));
  }
  state.SetItemsProcessed(state.iterations() * state.range(0));
}
BENCHMARK(BM_SavedModelRunSignature)->Arg(32)->Arg(128)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
