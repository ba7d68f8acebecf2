// One process of a multi-worker Model::Fit job: compiles the Fashion-MNIST
// MLP (784 -> 64 relu -> 10, SGD) and Fits it for --epochs epochs of
// --steps global batches of --global_batch rows (the first rows of the
// test split), under
//   --strategy=multi_worker   MultiWorkerMirroredStrategy from TF_CONFIG
//                             with --replicas local replicas per worker, or
//   --strategy=mirrored       MirroredStrategy with --replicas CPU replicas,
// optionally with a BackupAndRestore callback (--backup_dir, --save_freq: 0
// for every epoch, else every N steps). --step_delay_ms pauses after each
// step so that a test can kill a worker mid-epoch. --overlap (1 by
// default) and --bytes_per_pack set the strategy's CommunicationOptions.
//
// Writes to --out (".worker<rank>" appended under multi_worker): "loss
// <epoch> <value>" for each epoch of the History, "steps_trained <n>" (the
// steps this process ran, fewer when a restart resumed from a backup), then
// "<weight> <n>" and n values, with 9 significant digits. Exit status 0 on
// success; otherwise the error goes to stderr with its code and the exit
// status is 1.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/data/transforms.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/multi_worker_mirrored_strategy.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/framework/status.h"
#include "tests/multiworker/worker_common.h"
#include "core/kernels/random_seed.h"
#include "core/nn/callbacks/backup_and_restore.h"
#include "core/nn/dense.h"
#include "core/nn/input_layer.h"
#include "core/nn/losses.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"

namespace tfd {
namespace {

struct Flags {
  std::string strategy = "multi_worker";
  int replicas = 1;
  int epochs = 2;
  int steps = 4;
  int global_batch = 32;
  int startup_timeout_s = 30;
  int step_delay_ms = 0;
  int save_freq = 0;
  int overlap = 1;
  int bytes_per_pack = 0;
  std::string backup_dir;
  std::string out;
};

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  TFD_RETURN_IF_ERROR(multiworker_test::ParseNamedFlags(
      argc, argv,
      {{"replicas", &flags.replicas},
       {"epochs", &flags.epochs},
       {"steps", &flags.steps},
       {"global_batch", &flags.global_batch},
       {"startup_timeout_s", &flags.startup_timeout_s},
       {"step_delay_ms", &flags.step_delay_ms},
       {"save_freq", &flags.save_freq},
       {"overlap", &flags.overlap},
       {"bytes_per_pack", &flags.bytes_per_pack}},
      {{"strategy", &flags.strategy}, {"backup_dir", &flags.backup_dir}, {"out", &flags.out}}));
  if (flags.out.empty()) return InvalidArgument("--out is required");
  return flags;
}

// Counts the steps run and pauses after each.
class StepCounter : public nn::Callback {
 public:
  explicit StepCounter(int delay_ms) : delay_ms_(delay_ms) {}
  absl::Status OnTrainBatchEnd(int64_t batch, nn::Logs& logs) override {
    ++steps;
    if (delay_ms_ > 0) absl::SleepFor(absl::Milliseconds(delay_ms_));
    return absl::OkStatus();
  }
  int64_t steps = 0;

 private:
  const int delay_ms_;
};

absl::Status Train(const Flags& flags) {
  distribute::MultiWorkerMirroredStrategy* multi_worker = nullptr;
  distribute::CommunicationOptions communication;
  communication.overlap_backward_pass = flags.overlap != 0;
  communication.bytes_per_pack = flags.bytes_per_pack;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::Strategy> strategy,
                       multiworker_test::MakeWorkerStrategy(flags.strategy, flags.replicas,
                                                            flags.startup_timeout_s, &multi_worker,
                                                            communication));

  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> xy,
                       multiworker_test::LoadFashionMnistTestRows(static_cast<int64_t>(flags.steps) * flags.global_batch));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr rows, data::FromTensorSlices(xy));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr batches, data::Batch(rows, flags.global_batch, true));

  std::shared_ptr<nn::Sequential> model;
  {
    distribute::StrategyScope scope(strategy.get());
    SetRandomSeed(7);  // The same initial weights in every run.
    TFD_ASSIGN_OR_RETURN(
        model, nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 784}),
                                     std::make_shared<nn::Dense>(
                                         64, nn::DenseOptions().Activation("relu")),
                                     std::make_shared<nn::Dense>(10)}));
    nn::SGDOptions sgd;
    sgd.learning_rate = 0.1f;
    sgd.momentum = 0.9;
    TFD_ASSIGN_OR_RETURN(std::unique_ptr<nn::SGD> optimizer, nn::SGD::Create(sgd));
    nn::SparseCategoricalCrossentropy::Options loss;
    loss.from_logits = true;
    TFD_RETURN_IF_ERROR(model->Compile({std::shared_ptr<nn::Optimizer>(std::move(optimizer)),
                                        std::make_shared<nn::SparseCategoricalCrossentropy>(loss)}));
  }

  nn::FitOptions fit;
  fit.epochs = flags.epochs;
  fit.verbose = 0;
  if (!flags.backup_dir.empty()) {
    nn::BackupAndRestoreOptions backup;
    backup.backup_dir = flags.backup_dir;
    if (flags.save_freq > 0) backup.save_freq_steps = flags.save_freq;
    TFD_ASSIGN_OR_RETURN(auto callback, nn::BackupAndRestore::Create(backup));
    fit.callbacks.push_back(callback);
  }
  auto counter = std::make_shared<StepCounter>(flags.step_delay_ms);
  fit.callbacks.push_back(counter);
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::History> history, model->Fit(batches, fit));

  // Every worker writes its own copy: the test compares them all.
  std::string path = flags.out;
  if (multi_worker != nullptr) {
    path = absl::StrCat(flags.out, ".worker", multi_worker->worker_rank());
  }
  TFD_RETURN_IF_ERROR(
      multiworker_test::WriteResults(path, history->Get("loss"), counter->steps,
                                     model->TrainableVariables()));
  if (multi_worker != nullptr) TFD_RETURN_IF_ERROR(multi_worker->Shutdown());
  return absl::OkStatus();
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) {
  absl::StatusOr<tfd::Flags> flags = tfd::ParseFlags(argc, argv);
  absl::Status status = flags.ok() ? tfd::Train(*flags) : flags.status();
  if (!status.ok()) {
    std::cerr << status << std::endl;
    return 1;
  }
  return 0;
}
