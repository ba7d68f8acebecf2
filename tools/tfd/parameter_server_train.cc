#include "tools/tfd/parameter_server_train.h"

#include <cmath>
#include <memory>
#include <string>
#include <utility>

#include "core/data/transforms.h"
#include "core/distribute/parameter_server_strategy.h"
#include "core/distribute/ps/partitioner.h"
#include "core/distribute/ps/ps_server.h"
#include "core/distribute/tf_config_resolver.h"
#include "core/framework/status.h"
#include "core/kernels/random_seed.h"
#include "savedmodel/export/save_model.h"
#include "tools/tfd/epoch_checkpoints.h"
#include "tools/tfd/fashion_mnist.h"
#include "tools/tfd/fashion_models.h"
#include "tools/tfd/training_run.h"

namespace tfd {
namespace cli {
namespace {

constexpr int64_t kTrainImages = 60000;

// The model every task builds the same way (same seed, same order), so
// they agree on the variables' names and placement.
absl::StatusOr<std::shared_ptr<nn::Sequential>> BuildAndCompile(
    const TrainFlags& flags, distribute::ParameterServerStrategy& strategy) {
  SetRandomSeed(flags.seed);
  std::shared_ptr<nn::Sequential> model;
  {
    distribute::StrategyScope scope(&strategy);
    TFD_ASSIGN_OR_RETURN(model, MakeFashionModel(flags.model));
  }
  TFD_RETURN_IF_ERROR(CompileForFit(*model, strategy));
  return model;
}

// Each worker's training data: the whole training set, shuffled with the
// seed plus the worker's index, in batches of --batch_size, repeated.
nn::DatasetCreator TrainingData(const TrainFlags& flags) {
  return {"fashion_mnist_train",
          [flags](const data::InputContext& context) -> absl::StatusOr<data::DatasetPtr> {
            TFD_ASSIGN_OR_RETURN(FashionMnistSplit train, LoadFashionMnist(flags.data_dir, "train"));
            TFD_ASSIGN_OR_RETURN(
                data::DatasetPtr batches,
                TrainingDataset(train, flags.batch_size, flags.seed + context.input_pipeline_id()));
            return data::Repeat(batches);
          }};
}

absl::Status RunChief(const TrainFlags& flags, distribute::ParameterServerStrategy& strategy,
                      std::FILE* out) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Sequential> model, BuildAndCompile(flags, strategy));
  TFD_RETURN_IF_ERROR(model->Summary([out](const std::string& line) {
    std::fprintf(out, "%s\n", line.c_str());
  }));
  nn::FitOptions fit;
  fit.epochs = flags.epochs;
  fit.steps_per_epoch = flags.steps_per_epoch > 0
                            ? flags.steps_per_epoch
                            : (kTrainImages + flags.batch_size - 1) / flags.batch_size;
  // Only the chief logs, as under Keras the chief runs the callbacks; the
  // workers write nothing.
  if (!flags.logdir.empty()) fit.callbacks = LogCallbacks(flags.logdir);
  if (!flags.checkpoint_dir.empty()) {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<EpochCheckpoints> checkpoints,
                         EpochCheckpoints::Create(model, flags.checkpoint_dir, out));
    TFD_ASSIGN_OR_RETURN(fit.initial_epoch, checkpoints->RestoreLatest(strategy));
    fit.callbacks.push_back(checkpoints->SaveEachEpoch());
  }
  std::fprintf(out, "ParameterServerStrategy: %d workers, %d ps; %lld steps per epoch\n",
               strategy.num_worker_tasks(), strategy.num_ps(),
               static_cast<long long>(*fit.steps_per_epoch));
  std::fflush(out);
  if (fit.initial_epoch < fit.epochs) {
    TFD_RETURN_IF_ERROR(model->Fit(TrainingData(flags), fit).status());
  }
  std::fprintf(out, "live workers: %d\n", strategy.num_live_workers());
  TFD_ASSIGN_OR_RETURN(FashionMnistSplit test, LoadFashionMnist(flags.data_dir, "t10k"));
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr test_data, EvaluationDataset(test, flags.batch_size));
  nn::EvaluateOptions evaluate;
  evaluate.verbose = 0;
  TFD_ASSIGN_OR_RETURN(nn::Logs logs, model->Evaluate(test_data, evaluate));
  PrintTestResult(logs.Get("loss").value_or(NAN), logs.Get("accuracy").value_or(NAN), out);
  if (!flags.export_dir.empty()) {
    TFD_RETURN_IF_ERROR(savedmodel::SaveModel(*model, flags.export_dir));
    std::fprintf(out, "Exported SavedModel to %s\n", flags.export_dir.c_str());
  }
  return absl::OkStatus();
}

absl::Status RunWorker(const TrainFlags& flags, distribute::ParameterServerStrategy& strategy,
                       std::FILE* out) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Sequential> model, BuildAndCompile(flags, strategy));
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::WorkerServing> serving,
                       model->ServeTrainSteps(TrainingData(flags)));
  std::fprintf(out, "worker %d serving train steps\n", strategy.worker_index());
  std::fflush(out);
  serving->Wait();
  return absl::OkStatus();
}

}  // namespace

absl::Status RunParameterServerTrain(const TrainFlags& flags, std::FILE* out,
                                     const distribute::EnvLookup& env) {
  if (flags.loop != "fit") {
    return Unimplemented("--strategy=parameter_server trains with --loop=fit only");
  }
  if (!flags.model_json.empty()) {
    return Unimplemented("--model_json is not supported with --strategy=parameter_server yet");
  }
  // The ps tasks hold and update float32 values; mixed precision on the
  // workers is not wired up (and tf-keras refuses mixed_float16's loss
  // scaling under ParameterServerStrategy).
  if (flags.policy != "float32") {
    return Unimplemented("--policy=", flags.policy,
                         " is not supported with --strategy=parameter_server yet (float32 only)");
  }
  distribute::TfConfigClusterResolver resolver({}, env);
  TFD_ASSIGN_OR_RETURN(distribute::ClusterInfo info, resolver.Resolve());
  if (info.task_type == distribute::TaskType::kPs) {
    TFD_ASSIGN_OR_RETURN(std::string address, info.cluster_spec.TaskAddress("ps", info.task_index));
    TFD_ASSIGN_OR_RETURN(std::unique_ptr<ps::ServiceHost> server,
                         ps::StartParameterServer(address));
    std::fprintf(out, "ps %d serving variables on %s\n", info.task_index, address.c_str());
    std::fflush(out);
    server->Wait();
    return absl::OkStatus();
  }
  if (info.task_type == distribute::TaskType::kEvaluator) {
    return InvalidArgument("--strategy=parameter_server runs chief, worker and ps tasks, not an "
                           "evaluator");
  }
  distribute::ParameterServerStrategyOptions options;
  options.ps.connect_timeout = absl::Seconds(flags.startup_timeout_s);
  if (flags.ps_shards > 1) options.ps.partitioner = ps::FixedShardsPartitioner(flags.ps_shards);
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::ParameterServerStrategy> strategy,
                       distribute::ParameterServerStrategy::FromClusterResolver(resolver, options));
  if (info.task_type == distribute::TaskType::kWorker) return RunWorker(flags, *strategy, out);
  return RunChief(flags, *strategy, out);
}

}  // namespace cli
}  // namespace tfd
