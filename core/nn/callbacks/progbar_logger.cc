#include "core/nn/callbacks/progbar_logger.h"

#include "absl/strings/str_cat.h"

namespace tfd {
namespace nn {

void ProgbarLogger::AddStatefulMetrics(const std::set<std::string>& names) {
  stateful_metrics_.insert(names.begin(), names.end());
  if (progbar_) progbar_->AddStatefulMetrics(names);
}

void ProgbarLogger::SetParams(const CallbackParams& params) {
  Callback::SetParams(params);
  verbose_ = params.verbose;
  epochs_ = params.epochs;
  target_ = params.steps;
}

void ProgbarLogger::Reset() {
  seen_ = 0;
  progbar_.reset();
}

void ProgbarLogger::MaybeInit() {
  if (progbar_ == nullptr) {
    progbar_ = std::make_unique<Progbar>(target_, verbose_, stateful_metrics_, io_);
  }
}

void ProgbarLogger::BatchUpdate(int64_t batch, const Logs& logs) {
  MaybeInit();
  seen_ = batch + 1;
  if (verbose_ == 1) progbar_->Update(seen_, logs.entries(), /*finalize=*/false);
}

void ProgbarLogger::Finalize(const Logs& logs) {
  MaybeInit();
  if (!target_) {
    target_ = seen_;
    progbar_->set_target(target_);
  }
  progbar_->Update(*target_, logs.entries(), /*finalize=*/true);
}

absl::Status ProgbarLogger::OnTrainBegin(const Logs& logs) {
  called_in_fit_ = true;
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnEpochBegin(int epoch, const Logs& logs) {
  Reset();
  MaybeInit();
  if (verbose_ != 0 && epochs_ > 1) {
    io_.write(absl::StrCat("Epoch ", epoch + 1, "/", epochs_, "\n"));
  }
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnTrainBatchEnd(int64_t batch, Logs& logs) {
  BatchUpdate(batch, logs);
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnEpochEnd(int epoch, Logs& logs) {
  Finalize(logs);
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnTestBegin(const Logs& logs) {
  if (!called_in_fit_) {
    Reset();
    MaybeInit();
  }
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnTestBatchEnd(int64_t batch, Logs& logs) {
  if (!called_in_fit_) BatchUpdate(batch, logs);
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnTestEnd(Logs& logs) {
  if (!called_in_fit_) Finalize(logs);
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnPredictBegin(const Logs& logs) {
  Reset();
  MaybeInit();
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnPredictBatchEnd(int64_t batch, Logs& logs) {
  BatchUpdate(batch, Logs());
  return absl::OkStatus();
}

absl::Status ProgbarLogger::OnPredictEnd(Logs& logs) {
  Finalize(Logs());
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tfd
