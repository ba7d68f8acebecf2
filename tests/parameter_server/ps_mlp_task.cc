// One task of a parameter-server test job training the Fashion-MNIST MLP
// (784 -> 64 relu -> 10), its role taken from TF_CONFIG:
//   ps      serves variables until killed;
//   worker  creates the model's variables on the ps tasks, then serves the
//           step function "train_step" until killed: read the variables,
//           compute the gradients of one batch of its own shuffled,
//           repeated copy of the training rows, send them to the ps (SGD
//           runs there), return the batch's loss;
//   chief   creates the variables, schedules --steps train steps through
//           the ClusterCoordinator, prints "loss <step> <value>" as each
//           result arrives (stderr), and with --eval prints the test
//           accuracy of the variables on the ps at the end
//           ("test_accuracy <value>").
//
// Exit status 0 on success; otherwise the error goes to stderr (with its
// code, e.g. "DEADLINE_EXCEEDED: ...") and the exit status is 1.
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "core/autodiff/gradient_tape.h"
#include "core/data/dataset.h"
#include "core/data/idx_file.h"
#include "core/data/transforms.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/distribute/ps/ps_server.h"
#include "core/distribute/ps/worker_server.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/framework/status.h"
#include "core/kernels/random_seed.h"
#include "core/nn/dense.h"
#include "core/nn/input_layer.h"
#include "core/nn/losses.h"
#include "core/nn/losses_utils.h"
#include "core/nn/sequential.h"

namespace tfd {
namespace {

struct Flags {
  int steps = 20;
  int train_rows = 60000;  // The first rows of the training split.
  int batch = 64;
  int step_delay_ms = 0;  // A pause in each step, to kill a worker mid-job.
  int ps_timeout_s = 30;
  bool eval = false;
  float learning_rate = 0.1f;
};

absl::StatusOr<Flags> ParseFlags(int argc, char** argv) {
  Flags flags;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--eval") {
      flags.eval = true;
      continue;
    }
    const size_t eq = arg.find('=');
    if (arg.rfind("--", 0) != 0 || eq == std::string::npos) {
      return InvalidArgument("expected --name=value, got ", arg);
    }
    const std::string name = arg.substr(2, eq - 2), value = arg.substr(eq + 1);
    int* number = name == "steps"           ? &flags.steps
                  : name == "train_rows"    ? &flags.train_rows
                  : name == "batch"         ? &flags.batch
                  : name == "step_delay_ms" ? &flags.step_delay_ms
                  : name == "ps_timeout_s"  ? &flags.ps_timeout_s
                                            : nullptr;
    if (number != nullptr) {
      if (!absl::SimpleAtoi(value, number)) return InvalidArgument("--", name, ": not a number");
    } else if (name == "learning_rate") {
      if (!absl::SimpleAtof(value, &flags.learning_rate)) return InvalidArgument("--learning_rate: not a number");
    } else {
      return InvalidArgument("unknown flag --", name);
    }
  }
  return flags;
}

// The first `rows` images of a split as float [rows, 784] in [0, 1], and
// int32 labels.
absl::StatusOr<std::vector<Tensor>> LoadSplit(const std::string& prefix, int64_t rows) {
  const std::string dir = data::kFashionMnistDir;
  TFD_ASSIGN_OR_RETURN(Tensor images, data::ReadIdxFile(dir + "/" + prefix + "-images-idx3-ubyte.gz"));
  TFD_ASSIGN_OR_RETURN(Tensor labels, data::ReadIdxFile(dir + "/" + prefix + "-labels-idx1-ubyte.gz"));
  rows = std::min<int64_t>(rows, images.dim(0));
  Tensor x(DT_FLOAT, {rows, 784});
  Tensor y(DT_INT32, {rows});
  const uint8_t* px = images.data<uint8_t>();
  for (int64_t i = 0; i < rows * 784; ++i) x.data<float>()[i] = px[i] / 255.0f;
  for (int64_t i = 0; i < rows; ++i) y.data<int32_t>()[i] = labels.data<uint8_t>()[i];
  return std::vector<Tensor>{x, y};
}

// The MLP with seeded initial weights, its variables created on the ps
// (every task creates them in the same order; the first creation wins).
absl::StatusOr<std::shared_ptr<nn::Sequential>> MakeModel(distribute::ParameterServerStrategy& strategy,
                                                          float learning_rate) {
  SetRandomSeed(7);
  TFD_ASSIGN_OR_RETURN(
      auto model, nn::Sequential::Make({nn::MakeInputLayer({nn::kNone, 784}),
                                        std::make_shared<nn::Dense>(64, nn::DenseOptions().Activation("relu")),
                                        std::make_shared<nn::Dense>(10)}));
  ps::OptimizerConfig sgd;
  sgd.set_learning_rate(learning_rate);
  for (const nn::Weight& w : model->TrainableVariables()) {
    TFD_RETURN_IF_ERROR(strategy.parameter_servers().CreateVariable(w->name(), w->component(0).Peek(), sgd));
  }
  return model;
}

// Copies the ps's current values into the local model.
absl::Status PullVariables(distribute::ParameterServerStrategy& strategy, nn::Sequential& model) {
  for (const nn::Weight& w : model.TrainableVariables()) {
    TFD_ASSIGN_OR_RETURN(Tensor value, strategy.parameter_servers().Read(w->name()));
    TFD_RETURN_IF_ERROR(w->component(0).Assign(value));
  }
  return absl::OkStatus();
}

absl::Status RunWorker(const Flags& flags, distribute::ParameterServerStrategy& strategy,
                       const std::string& address) {
  TFD_ASSIGN_OR_RETURN(auto model, MakeModel(strategy, flags.learning_rate));
  // The worker's own dataset: its shuffle seed is its index.
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> xy, LoadSplit("train", flags.train_rows));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr rows, data::FromTensorSlices(xy));
  TFD_ASSIGN_OR_RETURN(rows, data::Shuffle(rows, 4096, /*seed=*/strategy.worker_index() + 1));
  TFD_ASSIGN_OR_RETURN(rows, data::Repeat(rows));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr batches, data::Batch(rows, flags.batch, true));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<data::Iterator> it, batches->MakeIterator());

  nn::SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  auto loss_fn = std::make_shared<nn::SparseCategoricalCrossentropy>(loss_options);
  ps::WorkerFunctions functions;
  functions.steps["train_step"] = [&](data::Iterator*, const std::vector<Tensor>&)
      -> absl::StatusOr<std::vector<Tensor>> {
    TFD_ASSIGN_OR_RETURN(std::optional<data::Element> batch, it->GetNext());
    if (!batch) return absl::OutOfRangeError("the worker's dataset is exhausted");
    TFD_RETURN_IF_ERROR(PullVariables(strategy, *model));
    GradientTape tape;
    TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call((*batch)[0], /*training=*/true));
    TFD_ASSIGN_OR_RETURN(Tensor loss, loss_fn->Call((*batch)[1], logits));
    const std::vector<nn::Weight> weights = model->TrainableVariables();
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads, tape.Gradient(loss, nn::LocalVariables(weights)));
    for (size_t i = 0; i < weights.size(); ++i) {
      TFD_RETURN_IF_ERROR(strategy.parameter_servers().ApplyGradient(weights[i]->name(), grads[i]));
    }
    if (flags.step_delay_ms > 0) absl::SleepFor(absl::Milliseconds(flags.step_delay_ms));
    return std::vector<Tensor>{loss};
  };
  TFD_ASSIGN_OR_RETURN(auto server, ps::StartWorkerServer(address, std::move(functions)));
  std::cerr << "worker " << strategy.worker_index() << " serving on " << address << std::endl;
  server->Wait();
  return absl::OkStatus();
}

absl::Status RunChief(const Flags& flags, distribute::ParameterServerStrategy& strategy) {
  TFD_ASSIGN_OR_RETURN(auto model, MakeModel(strategy, flags.learning_rate));
  TFD_ASSIGN_OR_RETURN(auto coordinator, strategy.MakeCoordinator());
  std::vector<std::shared_ptr<distribute::RemoteValue>> losses;
  for (int s = 0; s < flags.steps; ++s) losses.push_back(coordinator->Schedule("train_step"));
  for (int s = 0; s < flags.steps; ++s) {
    absl::StatusOr<std::vector<Tensor>> out = losses[s]->Fetch();
    if (!out.ok()) {
      // The step that failed first says why (later ones were cancelled).
      const absl::Status first = coordinator->Join();
      return first.ok() ? out.status() : first;
    }
    std::cerr << "loss " << s << " " << absl::StrFormat("%.6g", out->at(0).scalar<float>()) << std::endl;
  }
  TFD_RETURN_IF_ERROR(coordinator->Join());
  std::cerr << "live_workers " << coordinator->num_live_workers() << std::endl;
  if (!flags.eval) return absl::OkStatus();

  TFD_RETURN_IF_ERROR(PullVariables(strategy, *model));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> test, LoadSplit("t10k", 10000));
  TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(test[0], /*training=*/false));
  int64_t correct = 0;
  for (int64_t i = 0; i < logits.dim(0); ++i) {
    const float* row = logits.data<float>() + i * 10;
    const int predicted = static_cast<int>(std::max_element(row, row + 10) - row);
    correct += predicted == test[1].data<int32_t>()[i];
  }
  std::cerr << "test_accuracy " << absl::StrFormat("%.4f", double(correct) / logits.dim(0)) << std::endl;
  return absl::OkStatus();
}

absl::Status Run(int argc, char** argv) {
  TFD_ASSIGN_OR_RETURN(Flags flags, ParseFlags(argc, argv));
  distribute::TfConfigClusterResolver resolver;
  TFD_ASSIGN_OR_RETURN(distribute::ClusterInfo info, resolver.Resolve());
  TFD_ASSIGN_OR_RETURN(std::string address,
                       info.cluster_spec.TaskAddress(distribute::TaskTypeName(info.task_type),
                                                     info.task_index));
  if (info.task_type == distribute::TaskType::kPs) {
    TFD_ASSIGN_OR_RETURN(auto server, ps::StartParameterServer(address));
    std::cerr << "ps " << info.task_index << " serving on " << address << std::endl;
    server->Wait();
    return absl::OkStatus();
  }
  distribute::ParameterServerStrategyOptions options;
  options.ps.connect_timeout = absl::Seconds(flags.ps_timeout_s);
  options.ps.rpc_timeout = absl::Seconds(30);
  options.coordinator.step_timeout = absl::Seconds(60);
  TFD_ASSIGN_OR_RETURN(auto strategy, distribute::ParameterServerStrategy::FromClusterResolver(resolver, options));
  if (info.task_type == distribute::TaskType::kWorker) return RunWorker(flags, *strategy, address);
  return RunChief(flags, *strategy);
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) {
  const absl::Status status = tfd::Run(argc, argv);
  if (!status.ok()) {
    std::cerr << status << std::endl;
    return 1;
  }
  return 0;
}
