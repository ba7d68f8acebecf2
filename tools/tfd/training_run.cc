#include "tools/tfd/training_run.h"

#include <chrono>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/data/distributed_dataset.h"
#include "core/distribute/worker_write_location.h"
#include "core/framework/status.h"
#include "core/kernels/random_seed.h"
#include "core/nn/adam.h"
#include "core/nn/callbacks/backup_and_restore.h"
#include "core/nn/callbacks/csv_logger.h"
#include "core/nn/callbacks/tensorboard.h"
#include "core/nn/losses.h"
#include "savedmodel/export/save_model.h"
#include "tools/tfd/custom_training_loop.h"
#include "tools/tfd/epoch_checkpoints.h"
#include "tools/tfd/fashion_mnist.h"
#include "tools/tfd/train_model.h"

namespace tfd {
namespace cli {
namespace {

// What both loops train on: global batches.
struct Inputs {
  data::DatasetPtr train;
  data::DatasetPtr test;
};

// LogCallbacks in the task's directory; none without one (no --logdir).
std::vector<std::shared_ptr<nn::Callback>> TaskLogCallbacks(
    const std::optional<distribute::WorkerWriteLocation>& logs) {
  if (!logs) return {};
  return LogCallbacks(logs->dir());
}

// Says where a restored backup resumes, once BackupAndRestore, called just
// before it, has restored one.
class BackupReport : public nn::Callback {
 public:
  BackupReport(std::shared_ptr<nn::BackupAndRestore> backup, std::FILE* out)
      : backup_(std::move(backup)), out_(out) {}

  absl::Status OnTrainBegin(const nn::Logs& logs) override {
    const std::optional<nn::BackupProgress>& restored = backup_->restored();
    if (!restored) return absl::OkStatus();
    if (restored->step < 0) {
      std::fprintf(out_, "Restored the backup taken after epoch %d\n", restored->epoch + 1);
    } else {
      std::fprintf(out_, "Restored the backup taken after step %lld of epoch %d\n",
                   static_cast<long long>(restored->step + 1), restored->epoch + 1);
    }
    std::fflush(out_);
    return absl::OkStatus();
  }

 private:
  const std::shared_ptr<nn::BackupAndRestore> backup_;
  std::FILE* const out_;
};

// BackupAndRestore in --backup_dir (every --save_freq steps, else every
// epoch) and its report.
absl::Status AddBackupCallbacks(const TrainFlags& flags, std::FILE* out,
                                std::vector<std::shared_ptr<nn::Callback>>* callbacks) {
  nn::BackupAndRestoreOptions options;
  options.backup_dir = flags.backup_dir;
  if (flags.save_freq > 0) options.save_freq_steps = flags.save_freq;
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::BackupAndRestore> backup,
                       nn::BackupAndRestore::Create(options));
  callbacks->push_back(backup);
  callbacks->push_back(std::make_shared<BackupReport>(backup, out));
  return absl::OkStatus();
}

// SaveModel to --export_dir on the chief. Another worker exports the same
// model to <parent of export_dir>/workertemp_<task>/<name>, as TensorFlow's
// multi-worker tutorial does, and removes it: the chief's directory is
// never touched by the others.
absl::Status Export(nn::Model& model, const std::string& export_dir,
                    const distribute::ClusterInfo& task, std::FILE* out) {
  const std::filesystem::path path(export_dir);
  std::string parent = path.parent_path().string();
  if (parent.empty()) parent = ".";
  TFD_ASSIGN_OR_RETURN(distribute::WorkerWriteLocation where,
                       distribute::WorkerWriteLocation::Create(parent, task));
  const std::string written = where.FilePath(path.filename().string());
  TFD_RETURN_IF_ERROR(savedmodel::SaveModel(model, where.is_chief() ? export_dir : written));
  if (where.is_chief()) {
    std::fprintf(out, "Exported SavedModel to %s\n", export_dir.c_str());
  } else {
    TFD_RETURN_IF_ERROR(where.CleanUp());
    std::fprintf(out, "Exported SavedModel to the temporary %s (removed)\n", written.c_str());
  }
  std::fflush(out);
  return absl::OkStatus();
}


// Keras's way: Compile, Fit (validating on the test set each epoch),
// Evaluate. With --checkpoint_dir, Fit resumes after the epochs the latest
// checkpoint holds and saves one each epoch.
absl::Status TrainWithFit(const TrainFlags& flags, distribute::Strategy& strategy,
                          const distribute::ClusterInfo& task,
                          const std::optional<distribute::WorkerWriteLocation>& logs,
                          std::shared_ptr<nn::Model> model_ptr, const Inputs& inputs,
                          std::FILE* out) {
  nn::Model& model = *model_ptr;
  TFD_RETURN_IF_ERROR(CompileForFit(model, strategy));
  nn::FitOptions fit;
  fit.epochs = flags.epochs;
  fit.validation_data = inputs.test;
  fit.callbacks = TaskLogCallbacks(logs);
  if (!flags.checkpoint_dir.empty()) {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<EpochCheckpoints> checkpoints,
                         EpochCheckpoints::Create(model_ptr, flags.checkpoint_dir, out, task));
    TFD_ASSIGN_OR_RETURN(fit.initial_epoch, checkpoints->RestoreLatest(strategy));
    fit.callbacks.push_back(checkpoints->SaveEachEpoch());
  }
  // After the checkpoints: a backup is newer than the last epoch's
  // checkpoint, and its resume point overrides initial_epoch.
  if (!flags.backup_dir.empty()) {
    TFD_RETURN_IF_ERROR(AddBackupCallbacks(flags, out, &fit.callbacks));
  }
  if (fit.initial_epoch < fit.epochs) {
    TFD_RETURN_IF_ERROR(model.Fit(inputs.train, fit).status());
  }
  TFD_ASSIGN_OR_RETURN(nn::Logs test, model.Evaluate(inputs.test));
  PrintTestResult(test.Get("loss").value_or(NAN), test.Get("accuracy").value_or(NAN), out);
  return absl::OkStatus();
}

// Every step of `test` through the loop's test step, into its test
// metrics.
absl::Status RunTestSteps(CustomTrainingLoop& loop, const data::DistributedDataset& test) {
  TFD_ASSIGN_OR_RETURN(auto it, test.MakeIterator());
  while (true) {
    TFD_ASSIGN_OR_RETURN(auto step, it->GetNext());
    if (!step) return absl::OkStatus();
    TFD_RETURN_IF_ERROR(loop.DistributedTestStep(*step));
  }
}

// TensorFlow's custom-training tutorial: strategy.Run of a train step per
// batch, the test set evaluated after each epoch, one line per epoch. The
// log callbacks get the same per-epoch logs as under Fit. Under
// MultiWorkerMirroredStrategy each worker iterates its share of the
// global batches (CustomTrainingLoop::DistributeDataset). With
// --checkpoint_dir, as TensorFlow's multi-worker custom-loop tutorial: the
// latest checkpoint is restored on start and training goes on after the
// epochs it holds; a checkpoint is saved after each epoch.
absl::Status TrainWithCustomLoop(const TrainFlags& flags, distribute::Strategy& strategy,
                                 const distribute::ClusterInfo& task,
                                 const std::optional<distribute::WorkerWriteLocation>& logs,
                                 std::shared_ptr<nn::Model> model, const Inputs& inputs,
                                 std::FILE* out) {
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<CustomTrainingLoop> loop,
                       CustomTrainingLoop::Create(&strategy, model));
  TFD_ASSIGN_OR_RETURN(data::DistributedDatasetPtr train, loop->DistributeDataset(inputs.train));
  TFD_ASSIGN_OR_RETURN(data::DistributedDatasetPtr test, loop->DistributeDataset(inputs.test));
  nn::CallbackList callbacks;
  for (auto& c : TaskLogCallbacks(logs)) TFD_RETURN_IF_ERROR(callbacks.Add(c));
  int initial_epoch = 0;
  if (!flags.checkpoint_dir.empty()) {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<EpochCheckpoints> checkpoints,
                         EpochCheckpoints::Create(model, &loop->optimizer(),
                                                  flags.checkpoint_dir, out, task));
    TFD_ASSIGN_OR_RETURN(initial_epoch, checkpoints->RestoreLatest(strategy));
    TFD_RETURN_IF_ERROR(callbacks.Add(checkpoints->SaveEachEpoch()));
  }
  callbacks.SetModel(model.get());
  TFD_RETURN_IF_ERROR(callbacks.OnTrainBegin(nn::Logs()));
  for (int epoch = initial_epoch; epoch < flags.epochs; ++epoch) {
    const auto start = std::chrono::steady_clock::now();
    double total_loss = 0;
    int64_t num_batches = 0;
    TFD_ASSIGN_OR_RETURN(auto train_it, train->MakeIterator());
    while (true) {
      TFD_ASSIGN_OR_RETURN(auto step, train_it->GetNext());
      if (!step) break;
      TFD_ASSIGN_OR_RETURN(float loss, loop->DistributedTrainStep(*step));
      total_loss += loss;
      ++num_batches;
    }
    TFD_RETURN_IF_ERROR(RunTestSteps(*loop, *test));
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double train_loss = total_loss / std::max<int64_t>(num_batches, 1);
    // Collectives under MultiWorkerMirroredStrategy: every worker reads
    // them in this order.
    TFD_ASSIGN_OR_RETURN(double train_accuracy, loop->MetricResult(loop->train_accuracy()));
    TFD_ASSIGN_OR_RETURN(double test_loss, loop->MetricResult(loop->test_loss()));
    TFD_ASSIGN_OR_RETURN(double test_accuracy, loop->MetricResult(loop->test_accuracy()));
    std::fprintf(out,
                 "Epoch %d, Loss: %.4f, Accuracy: %.2f, Test Loss: %.4f, Test Accuracy: %.2f "
                 "(%.0fs)\n",
                 epoch + 1, train_loss, 100 * train_accuracy, test_loss, 100 * test_accuracy,
                 seconds);
    std::fflush(out);
    nn::Logs logs{{"loss", train_loss},
                  {"accuracy", train_accuracy},
                  {"val_loss", test_loss},
                  {"val_accuracy", test_accuracy}};
    TFD_RETURN_IF_ERROR(callbacks.OnEpochEnd(epoch, logs));
    if (epoch + 1 == flags.epochs) PrintTestResult(test_loss, test_accuracy, out);
    TFD_RETURN_IF_ERROR(loop->train_accuracy().Reset());
    TFD_RETURN_IF_ERROR(loop->test_loss().Reset());
    TFD_RETURN_IF_ERROR(loop->test_accuracy().Reset());
  }
  if (initial_epoch >= flags.epochs) {
    // The checkpoint holds every epoch: only the final evaluation is left.
    TFD_RETURN_IF_ERROR(RunTestSteps(*loop, *test));
    TFD_ASSIGN_OR_RETURN(double test_loss, loop->MetricResult(loop->test_loss()));
    TFD_ASSIGN_OR_RETURN(double test_accuracy, loop->MetricResult(loop->test_accuracy()));
    PrintTestResult(test_loss, test_accuracy, out);
  }
  nn::Logs end;
  return callbacks.OnTrainEnd(end);
}

// "Dtype policy: mixed_bfloat16 (compute bfloat16, variables float32)":
// what --policy made of the model; then the layers whose policy differs
// (the float32 output layer, the policies a --model_json names), and a
// warning when layers compute in float16 without the loss scaling that
// only a mixed_float16 model gets.
void PrintDtypePolicy(const nn::Model& model, std::FILE* out) {
  const nn::DTypePolicy& policy = model.dtype_policy();
  std::fprintf(out, "Dtype policy: %s (compute %s, variables %s)\n", policy.name().c_str(),
               DataTypeName(policy.compute_dtype()).c_str(),
               DataTypeName(policy.variable_dtype()).c_str());
  std::vector<std::string> own;
  bool float16 = false;
  for (const auto& layer : model.layers()) {
    if (layer->dtype_policy() != policy) {
      own.push_back(absl::StrCat(layer->name(), " (", layer->dtype_policy().name(), ")"));
    }
    float16 = float16 || layer->compute_dtype() == DT_HALF;
  }
  if (!own.empty()) {
    std::fprintf(out, "Layers with their own dtype policy: %s\n", absl::StrJoin(own, ", ").c_str());
  }
  if (float16 && policy.name() != "mixed_float16") {
    std::fprintf(out,
                 "Warning: layers compute in float16 but the model's policy is %s, so there is "
                 "no loss scaling; --policy=mixed_float16 adds it\n",
                 policy.name().c_str());
  }
}

}  // namespace

void PrintTestResult(double loss, double accuracy, std::FILE* out) {
  std::fprintf(out, "test_loss: %.4f - test_accuracy: %.4f\n", loss, accuracy);
  std::fflush(out);
}

std::vector<std::shared_ptr<nn::Callback>> LogCallbacks(const std::string& dir) {
  return {std::make_shared<nn::TensorBoard>(dir),
          std::make_shared<nn::CSVLogger>((std::filesystem::path(dir) / "training.csv").string())};
}

absl::Status CompileForFit(nn::Model& model, distribute::Strategy& strategy) {
  nn::CompileOptions compile;
  nn::SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  compile.loss = std::make_shared<nn::SparseCategoricalCrossentropy>(loss);
  compile.metrics = {"accuracy"};
  distribute::StrategyScope scope(&strategy);
  TFD_ASSIGN_OR_RETURN(compile.optimizer, nn::Adam::Create(nn::AdamOptions()));
  return model.Compile(compile);
}

absl::Status TrainUnderStrategy(const TrainFlags& flags, distribute::Strategy& strategy,
                                const distribute::ClusterInfo& task, std::FILE* out) {
  TFD_ASSIGN_OR_RETURN(FashionMnistSplit train, LoadFashionMnist(flags.data_dir, "train"));
  TFD_ASSIGN_OR_RETURN(FashionMnistSplit test, LoadFashionMnist(flags.data_dir, "t10k"));
  const int replicas = strategy.num_replicas_in_sync();
  std::fprintf(out, "%s with %d replica%s; %lld training and %lld test images, global batch %lld\n",
               strategy.name().c_str(), replicas, replicas == 1 ? "" : "s",
               static_cast<long long>(train.labels.dim(0)),
               static_cast<long long>(test.labels.dim(0)),
               static_cast<long long>(flags.batch_size));

  // The global seed makes the initial weights reproducible, as
  // tf.random.set_seed does; the dataset's shuffle takes the same seed.
  SetRandomSeed(flags.seed);
  std::shared_ptr<nn::Model> model;
  {
    distribute::StrategyScope scope(&strategy);
    TFD_ASSIGN_OR_RETURN(model, MakeTrainModel(flags));
  }
  TFD_RETURN_IF_ERROR(model->Summary([out](const std::string& line) {
    std::fprintf(out, "%s\n", line.c_str());
  }));
  PrintDtypePolicy(*model, out);
  std::fflush(out);

  TFD_RETURN_IF_ERROR(ShapeImagesFor(*model, &train));
  TFD_RETURN_IF_ERROR(ShapeImagesFor(*model, &test));
  Inputs inputs;
  TFD_ASSIGN_OR_RETURN(inputs.train, TrainingDataset(train, flags.batch_size, flags.seed));
  TFD_ASSIGN_OR_RETURN(inputs.test, EvaluationDataset(test, flags.batch_size));
  // The chief logs to --logdir, another worker to a temporary directory
  // in it, removed once training is done (as Keras's TensorBoard does).
  std::optional<distribute::WorkerWriteLocation> logs;
  if (!flags.logdir.empty()) {
    TFD_ASSIGN_OR_RETURN(distribute::WorkerWriteLocation where,
                         distribute::WorkerWriteLocation::Create(flags.logdir, task));
    logs.emplace(std::move(where));
  }
  if (flags.loop == "custom") {
    TFD_RETURN_IF_ERROR(TrainWithCustomLoop(flags, strategy, task, logs, model, inputs, out));
  } else {
    TFD_RETURN_IF_ERROR(TrainWithFit(flags, strategy, task, logs, model, inputs, out));
  }
  if (logs) TFD_RETURN_IF_ERROR(logs->CleanUp());
  if (!flags.export_dir.empty()) TFD_RETURN_IF_ERROR(Export(*model, flags.export_dir, task, out));
  return absl::OkStatus();
}

}  // namespace cli
}  // namespace tfd
