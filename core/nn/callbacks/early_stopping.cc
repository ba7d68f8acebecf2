#include "core/nn/callbacks/early_stopping.h"

#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "core/framework/status.h"
#include "core/nn/model.h"

namespace tfd {
namespace nn {

EarlyStopping::EarlyStopping(EarlyStoppingOptions options) : options_(std::move(options)) {
  const std::string& m = options_.monitor;
  maximize_ = options_.mode == "max" ||
              (options_.mode == "auto" && (absl::EndsWith(m, "acc") ||
                                           absl::EndsWith(m, "accuracy") ||
                                           absl::EndsWith(m, "auc")));
  min_delta_ = maximize_ ? std::abs(options_.min_delta) : -std::abs(options_.min_delta);
}

absl::StatusOr<std::shared_ptr<EarlyStopping>> EarlyStopping::Create(
    EarlyStoppingOptions options) {
  if (options.monitor.empty()) return InvalidArgument("EarlyStopping: monitor must not be empty");
  if (options.mode != "auto" && options.mode != "min" && options.mode != "max") {
    return InvalidArgument("EarlyStopping: mode must be auto, min or max, got '", options.mode,
                           "'");
  }
  if (options.patience < 0 || options.start_from_epoch < 0) {
    return InvalidArgument("EarlyStopping: patience and start_from_epoch must be >= 0, got ",
                           options.patience, " and ", options.start_from_epoch);
  }
  return std::shared_ptr<EarlyStopping>(new EarlyStopping(std::move(options)));
}

bool EarlyStopping::IsImprovement(double current, double reference) const {
  return maximize_ ? current - min_delta_ > reference : current - min_delta_ < reference;
}

std::vector<Tensor> EarlyStopping::GetWeights() const {
  std::vector<Tensor> values;
  // Peek() is a snapshot: later updates never write into it.
  for (const Weight& w : model()->weights()) values.push_back(w->component(0).Peek());
  return values;
}

absl::Status EarlyStopping::OnTrainBegin(const Logs& logs) {
  wait_ = 0;
  stopped_epoch_ = 0;
  best_ = maximize_ ? -std::numeric_limits<double>::infinity()
                    : std::numeric_limits<double>::infinity();
  best_weights_.clear();
  have_best_weights_ = false;
  best_epoch_ = 0;
  return absl::OkStatus();
}

absl::Status EarlyStopping::OnEpochEnd(int epoch, Logs& logs) {
  const std::optional<double> current = logs.Get(options_.monitor);
  if (!current) {
    std::vector<std::string> keys;
    for (const Logs::Entry& e : logs.entries()) keys.push_back(e.first);
    std::fprintf(stderr,
                 "WARNING: Early stopping conditioned on metric `%s` which is not available. "
                 "Available metrics are: %s\n",
                 options_.monitor.c_str(), absl::StrJoin(keys, ",").c_str());
    return absl::OkStatus();
  }
  if (epoch < options_.start_from_epoch) return absl::OkStatus();
  if (model() == nullptr) return FailedPrecondition("EarlyStopping: no model");
  if (options_.restore_best_weights && !have_best_weights_) {
    best_weights_ = GetWeights();
    have_best_weights_ = true;
    best_epoch_ = epoch;
  }
  ++wait_;
  if (IsImprovement(*current, best_)) {
    best_ = *current;
    best_epoch_ = epoch;
    if (options_.restore_best_weights) best_weights_ = GetWeights();
    // Only an improvement that also beats the baseline resets the wait.
    if (!options_.baseline || IsImprovement(*current, *options_.baseline)) wait_ = 0;
    return absl::OkStatus();
  }
  if (wait_ >= options_.patience && epoch > 0) {
    stopped_epoch_ = epoch;
    model()->set_stop_training(true);
  }
  return absl::OkStatus();
}

absl::Status EarlyStopping::OnTrainEnd(Logs& logs) {
  if (stopped_epoch_ > 0 && options_.verbose > 0) {
    std::fprintf(options_.out, "Epoch %d: early stopping\n", stopped_epoch_ + 1);
  }
  if (!options_.restore_best_weights || !have_best_weights_) return absl::OkStatus();
  if (options_.verbose > 0) {
    std::fprintf(options_.out,
                 "Restoring model weights from the end of the best epoch: %d.\n",
                 best_epoch_ + 1);
  }
  const std::vector<Weight> weights = model()->weights();
  if (weights.size() != best_weights_.size()) {
    return FailedPrecondition("EarlyStopping: the model has ", weights.size(),
                              " weights, but ", best_weights_.size(), " were kept");
  }
  for (size_t i = 0; i < weights.size(); ++i) {
    if (weights[i]->shape() != best_weights_[i].shape()) {
      return FailedPrecondition("EarlyStopping: ", weights[i]->name(), " changed shape since ",
                                "its best value was kept");
    }
    TFD_RETURN_IF_ERROR(weights[i]->AssignAll(best_weights_[i]));
  }
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tfd
