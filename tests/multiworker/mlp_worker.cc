// One process of a multi-worker test job: trains the Fashion-MNIST MLP
// (784 -> 64 relu -> 10) for a few SGD steps on the first rows of the
// test split, under
//   --strategy=multi_worker   MultiWorkerMirroredStrategy from TF_CONFIG
//                             with --replicas local replicas per worker, or
//   --strategy=mirrored       MirroredStrategy with --replicas CPU replicas,
// and writes the final weights and the per-step global losses to --out (a
// text file: "loss <step> <value>" lines, then "<weight> <n>" and n values,
// all with 9 significant digits). Both runs start from the same seeded
// initial values and feed each global batch of --global_batch rows to the
// same replicas, so their weights must agree.
//
// Exit status 0 on success; otherwise the error goes to stderr (with its
// code, e.g. "DEADLINE_EXCEEDED: ...") and the exit status is 1.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "core/autodiff/gradient_tape.h"
#include "core/data/distributed_dataset.h"
#include "core/data/transforms.h"
#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/multi_worker_mirrored_strategy.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/framework/status.h"
#include "tests/multiworker/worker_common.h"
#include "core/kernels/random_seed.h"
#include "core/nn/dense.h"
#include "core/nn/input_layer.h"
#include "core/nn/losses.h"
#include "core/nn/losses_utils.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"

namespace tfd {
namespace {

struct Flags {
  std::string strategy = "multi_worker";
  int replicas = 1;
  int steps = 5;
  int global_batch = 64;
  int startup_timeout_s = 30;
  int step_delay_ms = 0;  // A pause after each step, to kill a worker mid-job.
  std::string out;
};

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  TFD_RETURN_IF_ERROR(multiworker_test::ParseNamedFlags(
      argc, argv,
      {{"replicas", &flags.replicas},
       {"steps", &flags.steps},
       {"global_batch", &flags.global_batch},
       {"startup_timeout_s", &flags.startup_timeout_s},
       {"step_delay_ms", &flags.step_delay_ms}},
      {{"strategy", &flags.strategy}, {"out", &flags.out}}));
  if (flags.out.empty()) return InvalidArgument("--out is required");
  return flags;
}

absl::Status Train(const Flags& flags) {
  distribute::MultiWorkerMirroredStrategy* multi_worker = nullptr;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::Strategy> strategy,
                       multiworker_test::MakeWorkerStrategy(flags.strategy, flags.replicas,
                                                            flags.startup_timeout_s, &multi_worker));

  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> xy,
                       multiworker_test::LoadFashionMnistTestRows(static_cast<int64_t>(flags.steps) * flags.global_batch));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr rows, data::FromTensorSlices(xy));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr batches, data::Batch(rows, flags.global_batch, true));
  data::DistributedDatasetPtr dist;
  if (multi_worker != nullptr) {
    TFD_ASSIGN_OR_RETURN(dist, multi_worker->ExperimentalDistributeDataset(batches));
  } else {
    TFD_ASSIGN_OR_RETURN(dist, data::DistributeDataset(batches, strategy->num_replicas_in_sync()));
  }

  std::shared_ptr<nn::Sequential> model;
  std::unique_ptr<nn::SGD> optimizer;
  {
    distribute::StrategyScope scope(strategy.get());
    SetRandomSeed(7);  // The same initial weights in every run.
    TFD_ASSIGN_OR_RETURN(
        model, nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 784}),
                                     std::make_shared<nn::Dense>(64, nn::DenseOptions().Activation("relu")),
                                     std::make_shared<nn::Dense>(10)}));
    nn::SGDOptions sgd;
    sgd.learning_rate = 0.1f;
    TFD_ASSIGN_OR_RETURN(optimizer, nn::SGD::Create(sgd));
  }
  nn::SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  loss_options.reduction = nn::Reduction::kNone;
  nn::SparseCategoricalCrossentropy loss_fn(loss_options);

  std::vector<double> losses;
  TFD_ASSIGN_OR_RETURN(auto it, dist->MakeIterator());
  while (true) {
    TFD_ASSIGN_OR_RETURN(std::optional<std::vector<data::Element>> step, it->GetNext());
    if (!step) break;
    TFD_ASSIGN_OR_RETURN(
        distribute::PerReplica out,
        strategy->Run([&](distribute::ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
          const data::Element& batch =
              (*step)[ctx.replica_id_in_sync_group() % strategy->num_local_replicas()];
          GradientTape tape;
          TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(batch[0], /*training=*/true));
          TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_fn.Call(batch[1], logits));
          TFD_ASSIGN_OR_RETURN(Tensor loss, nn::ComputeAverageLoss(per_example));
          TFD_RETURN_IF_ERROR(optimizer->Minimize(loss, model->TrainableVariables(), tape));
          return std::vector<Tensor>{loss};
        }));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> local_losses, strategy->ExperimentalLocalResults(out, 0));
    TFD_ASSIGN_OR_RETURN(Tensor loss, strategy->Reduce(distribute::ReduceOp::kSum, local_losses));
    losses.push_back(loss.scalar<float>());
    if (flags.step_delay_ms > 0) absl::SleepFor(absl::Milliseconds(flags.step_delay_ms));
  }

  // Every worker writes its own copy: the test compares them all.
  std::string path = flags.out;
  if (multi_worker != nullptr) {
    path = absl::StrCat(flags.out, ".worker", multi_worker->worker_rank());
  }
  TFD_RETURN_IF_ERROR(
      multiworker_test::WriteResults(path, losses, /*steps=*/-1, model->TrainableVariables()));
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
