#include "tools/tfd/epoch_checkpoints.h"

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/numbers.h"
#include "core/distribute/reduce_op.h"
#include "core/distribute/worker_write_location.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "core/nn/loss_scale_optimizer.h"

namespace tfd {
namespace cli {
namespace {

class SaveCallback : public nn::Callback {
 public:
  explicit SaveCallback(std::function<absl::Status(int)> save) : save_(std::move(save)) {}
  absl::Status OnEpochEnd(int epoch, nn::Logs& logs) override { return save_(epoch); }

 private:
  std::function<absl::Status(int)> save_;
};

// Every worker of a job must resume from the same checkpoint: one that
// cannot see the chief's directory (no shared file system) would start
// afresh and run other steps than the rest. Checked before restoring,
// since restoring creates the optimizer's slots, which is collective. The
// workers' numbers x are all equal exactly when n * sum(x^2) == sum(x)^2,
// which two sums across the job tell every worker alike.
absl::Status CheckEveryWorkerSeesIt(distribute::Strategy& strategy, int64_t number,
                                    const std::string& dir) {
  const int workers = strategy.num_workers();
  if (workers == 1) return absl::OkStatus();
  std::vector<Tensor> per_replica(strategy.num_local_replicas());
  for (size_t r = 0; r < per_replica.size(); ++r) {
    // This worker's (x, x^2), once: the other local replicas add zeros.
    const float x = r == 0 ? static_cast<float>(number) : 0.f;
    TFD_ASSIGN_OR_RETURN(per_replica[r], Tensor::FromVector<float>({x, x * x}, TensorShape({2})));
  }
  TFD_ASSIGN_OR_RETURN(Tensor sums, strategy.Reduce(distribute::ReduceOp::kSum, per_replica));
  const double sum = sums.flat<float>()[0], sum_of_squares = sums.flat<float>()[1];
  if (workers * sum_of_squares == sum * sum) return absl::OkStatus();
  return FailedPrecondition("the workers see different latest checkpoints in ", dir,
                            ": this one ckpt-", number, " (0: none), the job's mean is ckpt-",
                            sum / workers,
                            "; every worker must see the chief's checkpoint directory (a file "
                            "system they share)");
}

}  // namespace

int64_t CheckpointNumber(const std::string& prefix) {
  int64_t number = 0;
  const size_t dash = prefix.rfind('-');
  if (dash == std::string::npos || !absl::SimpleAtoi(prefix.substr(dash + 1), &number)) return 0;
  return number;
}

EpochCheckpoints::EpochCheckpoints(std::shared_ptr<nn::Model> model, nn::Optimizer* optimizer,
                                   std::FILE* out, const distribute::ClusterInfo& task)
    : checkpoint_(std::move(model), optimizer), optimizer_(optimizer), out_(out), task_(task) {}

absl::StatusOr<std::shared_ptr<EpochCheckpoints>> EpochCheckpoints::Create(
    std::shared_ptr<nn::Model> model, const std::string& dir, std::FILE* out,
    const distribute::ClusterInfo& task) {
  if (model == nullptr || model->optimizer() == nullptr) {
    return FailedPrecondition("checkpoints need a compiled model");
  }
  nn::Optimizer* optimizer = model->optimizer();
  return Create(std::move(model), optimizer, dir, out, task);
}

absl::StatusOr<std::shared_ptr<EpochCheckpoints>> EpochCheckpoints::Create(
    std::shared_ptr<nn::Model> model, nn::Optimizer* optimizer, const std::string& dir,
    std::FILE* out, const distribute::ClusterInfo& task) {
  if (model == nullptr || optimizer == nullptr) {
    return FailedPrecondition("checkpoints need a model and its optimizer");
  }
  std::shared_ptr<EpochCheckpoints> checkpoints(
      new EpochCheckpoints(std::move(model), optimizer, out, task));
  TFD_ASSIGN_OR_RETURN(checkpoints->manager_,
                       savedmodel::CheckpointManager::Create(
                           &checkpoints->checkpoint_, dir, savedmodel::CheckpointManager::Options()));
  return checkpoints;
}

absl::StatusOr<int> EpochCheckpoints::RestoreLatest(distribute::Strategy& strategy) {
  const std::optional<std::string>& latest = manager_->latest_checkpoint();
  TFD_RETURN_IF_ERROR(CheckEveryWorkerSeesIt(strategy, latest ? CheckpointNumber(*latest) : 0,
                                             manager_->directory()));
  if (!latest) return 0;
  {
    distribute::StrategyScope scope(&strategy);
    TFD_RETURN_IF_ERROR(checkpoint_.Restore(*latest));
  }
  const int epochs = static_cast<int>(checkpoint_.save_counter());
  std::fprintf(out_, "Restored from %s: %d epoch%s done\n", latest->c_str(), epochs,
               epochs == 1 ? "" : "s");
  // Under mixed_float16 training resumes with the saved loss scale and
  // count of finite steps (not Keras's 2^15 and 0): say which.
  const auto* scaled = dynamic_cast<const nn::LossScaleOptimizer*>(optimizer_);
  if (scaled != nullptr && scaled->dynamic()) {
    TFD_ASSIGN_OR_RETURN(const float scale, scaled->LossScale());
    TFD_ASSIGN_OR_RETURN(const int64_t good_steps, scaled->DynamicCounter());
    std::fprintf(out_, "Restored loss scale %g (good steps: %lld)\n", scale,
                 static_cast<long long>(good_steps));
  }
  std::fflush(out_);
  return epochs;
}

absl::StatusOr<std::string> EpochCheckpoints::SaveToTemporaryLocation() {
  TFD_ASSIGN_OR_RETURN(distribute::WorkerWriteLocation where,
                       distribute::WorkerWriteLocation::Create(manager_->directory(), task_));
  // A manager of its own over the temporary directory: it numbers the
  // checkpoint from the same save_counter as the chief's.
  TFD_ASSIGN_OR_RETURN(auto manager,
                       savedmodel::CheckpointManager::Create(
                           &checkpoint_, where.dir(), savedmodel::CheckpointManager::Options()));
  TFD_ASSIGN_OR_RETURN(std::string path, manager->Save());
  TFD_RETURN_IF_ERROR(where.CleanUp());
  return path;
}

absl::Status EpochCheckpoints::Save(int epoch) {
  if (!task_.is_chief) {
    TFD_ASSIGN_OR_RETURN(std::string path, SaveToTemporaryLocation());
    std::fprintf(out_, "Saved checkpoint for epoch %d to the temporary %s (removed)\n", epoch + 1,
                 path.c_str());
  } else {
    TFD_ASSIGN_OR_RETURN(std::string path, manager_->Save());
    std::fprintf(out_, "Saved checkpoint for epoch %d: %s\n", epoch + 1, path.c_str());
  }
  std::fflush(out_);
  return absl::OkStatus();
}

std::shared_ptr<nn::Callback> EpochCheckpoints::SaveEachEpoch() {
  std::shared_ptr<EpochCheckpoints> self = shared_from_this();
  return std::make_shared<SaveCallback>([self](int epoch) { return self->Save(epoch); });
}

}  // namespace cli
}  // namespace tfd
