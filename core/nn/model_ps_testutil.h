// The job of the Model-under-ParameterServerStrategy tests, every task in
// one process: two ps servers (each variable split in two shards, one on
// each), two workers (or one, see num_workers_) serving the model's
// steps, and the chief, over real gRPC on localhost. (Jobs of real processes are in tests/parameter_server.)
//
// The model: a 4 -> 16 (relu) -> 3 MLP named so that the tasks agree on
// its variables' names, compiled with sparse categorical crossentropy
// from logits and "accuracy".
#ifndef TFD_CORE_NN_MODEL_PS_TESTUTIL_H_
#define TFD_CORE_NN_MODEL_PS_TESTUTIL_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "core/data/dataset.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/distribute/ps/partitioner.h"
#include "core/distribute/ps/ps_server.h"
#include "core/distribute/testing/free_port.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/nn/dataset_creator.h"
#include "core/nn/optimizer.h"
#include "core/nn/sequential.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {

constexpr int kRows = 512;

// x uniform in [-1, 1)^4, y = the argmax of x's first three columns: a
// problem a small MLP learns within a few hundred batches. Shuffled with
// `seed`, repeated forever, in batches of 16.
absl::StatusOr<data::DatasetPtr> Rows(int seed);

// The training data: each worker shuffles with its own seed.
DatasetCreator Creator();

// 16 fixed rows, labelled as Rows labels them, `repeats` times (-1:
// forever) in batches of 16: every batch the same, whichever worker reads
// it.
absl::StatusOr<data::DatasetPtr> FixedBatch(int64_t repeats);

// Builds and compiles the model in the current strategy's scope.
absl::StatusOr<std::shared_ptr<Sequential>> BuildModel(std::shared_ptr<Optimizer> optimizer);
// BuildModel, compiled with `steps_per_execution`.
absl::StatusOr<std::shared_ptr<Sequential>> BuildModelExecuting(
    std::shared_ptr<Optimizer> optimizer, int steps_per_execution);

class PsJobTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 0; i < 2; ++i) {
      auto ps = ps::StartParameterServer("127.0.0.1:0");
      ASSERT_TRUE(ps.ok()) << ps.status();
      ps_ports_.push_back((*ps)->port());
      ps_.push_back(*std::move(ps));
    }
    auto ports = tfd::testing::PickFreePorts(3);
    ASSERT_TRUE(ports.ok()) << ports.status();
    ports_ = *ports;
  }

  std::string Cluster() const {
    // 127.0.0.1, not localhost: PickFreePorts checks IPv4 ports, and a
    // client of "localhost" tries ::1 first, where another process may
    // serve on the same port number.
    std::string workers = absl::StrCat(R"("127.0.0.1:)", ports_[1], R"(")");
    if (num_workers_ == 2) absl::StrAppend(&workers, R"(, "127.0.0.1:)", ports_[2], R"(")");
    return absl::StrCat(R"({"chief": ["127.0.0.1:)", ports_[0], R"("], "worker": [)", workers,
                        R"(], "ps": ["127.0.0.1:)", ps_ports_[0], R"(", "127.0.0.1:)",
                        ps_ports_[1], R"("]})");
  }

  std::unique_ptr<distribute::ParameterServerStrategy> Strategy(const std::string& type, int index) {
    distribute::TfConfigClusterResolver resolver(
        {}, distribute::EnvFromMap({{"TF_CONFIG", absl::StrCat(R"({"cluster": )", Cluster(),
                                                               R"(, "task": {"type": ")", type,
                                                               R"(", "index": )", index, "}}")}}));
    distribute::ParameterServerStrategyOptions options;
    options.ps.connect_timeout = absl::Seconds(5);
    options.ps.rpc_timeout = absl::Seconds(10);
    // Two shards of every variable: one on each ps.
    options.ps.partitioner = ps::FixedShardsPartitioner(2);
    options.coordinator.step_timeout = absl::Seconds(20);
    auto strategy = distribute::ParameterServerStrategy::FromClusterResolver(resolver, options);
    EXPECT_TRUE(strategy.ok()) << strategy.status();
    return strategy.ok() ? *std::move(strategy) : nullptr;
  }

  // Starts every worker: each builds and compiles the model in its
  // strategy's scope and serves its train step over `train`, its test
  // step and the datasets of `evaluation`.
  void StartWorkers(std::function<std::shared_ptr<Optimizer>()> optimizer,
                    const std::vector<DatasetCreator>& evaluation = {},
                    const DatasetCreator& train = Creator()) {
    for (int i = 0; i < num_workers_; ++i) {
      workers_.push_back(Strategy("worker", i));
      ASSERT_NE(workers_.back(), nullptr);
      distribute::StrategyScope scope(workers_.back().get());
      auto model = build_model_(optimizer());
      ASSERT_TRUE(model.ok()) << model.status();
      auto serving = (*model)->ServeTrainSteps(train, evaluation);
      ASSERT_TRUE(serving.ok()) << serving.status();
      worker_models_.push_back(*model);
      serving_.push_back(*std::move(serving));
    }
  }

  // 2, or 1 for a job whose steps run one after another (set it before
  // StartWorkers and Strategy).
  int num_workers_ = 2;
  // How every task builds the model (the chief's test calls it too).
  std::function<absl::StatusOr<std::shared_ptr<Sequential>>(std::shared_ptr<Optimizer>)>
      build_model_ = BuildModel;
  std::vector<std::unique_ptr<ps::ServiceHost>> ps_;
  std::vector<int> ps_ports_, ports_;
  std::vector<std::unique_ptr<distribute::ParameterServerStrategy>> workers_;
  std::vector<std::shared_ptr<Sequential>> worker_models_;
  std::vector<std::unique_ptr<distribute::WorkerServing>> serving_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_MODEL_PS_TESTUTIL_H_
