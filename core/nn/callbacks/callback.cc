#include "core/nn/callbacks/callback.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tfd {
namespace nn {

Logs::Logs(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) Set(e.first, e.second);
}

void Logs::Set(absl::string_view key, double value) {
  for (Entry& e : entries_) {
    if (e.first == key) {
      e.second = value;
      return;
    }
  }
  entries_.emplace_back(std::string(key), value);
}

std::optional<double> Logs::Get(absl::string_view key) const {
  for (const Entry& e : entries_) {
    if (e.first == key) return e.second;
  }
  return std::nullopt;
}

std::string Logs::DebugString() const {
  std::string out;
  for (const Entry& e : entries_) {
    absl::StrAppend(&out, out.empty() ? "" : " - ", e.first, ": ",
                    absl::StrFormat("%.4f", e.second));
  }
  return out;
}

absl::Status CallbackList::Add(std::shared_ptr<Callback> callback) {
  if (callback == nullptr) return absl::InvalidArgumentError("CallbackList: null callback");
  callbacks_.push_back(std::move(callback));
  return absl::OkStatus();
}

void CallbackList::SetParams(const CallbackParams& params) {
  Callback::SetParams(params);
  for (const auto& cb : callbacks_) cb->SetParams(params);
}

void CallbackList::SetModel(Model* model) {
  Callback::SetModel(model);
  for (const auto& cb : callbacks_) cb->SetModel(model);
}

// Each hook forwards to every callback in order and stops at the first
// error, so a failing callback is not followed by the others.
#define TFD_DISPATCH(call)                                  \
  for (const auto& cb : callbacks_) {                       \
    absl::Status status = cb->call;                         \
    if (!status.ok()) return status;                        \
  }                                                         \
  return absl::OkStatus()

absl::Status CallbackList::OnTrainBegin(const Logs& logs) { TFD_DISPATCH(OnTrainBegin(logs)); }
absl::Status CallbackList::OnTrainEnd(Logs& logs) { TFD_DISPATCH(OnTrainEnd(logs)); }
absl::Status CallbackList::OnEpochBegin(int epoch, const Logs& logs) {
  TFD_DISPATCH(OnEpochBegin(epoch, logs));
}
absl::Status CallbackList::OnEpochEnd(int epoch, Logs& logs) {
  TFD_DISPATCH(OnEpochEnd(epoch, logs));
}
absl::Status CallbackList::OnTrainBatchBegin(int64_t batch, const Logs& logs) {
  TFD_DISPATCH(OnTrainBatchBegin(batch, logs));
}
absl::Status CallbackList::OnTrainBatchEnd(int64_t batch, Logs& logs) {
  TFD_DISPATCH(OnTrainBatchEnd(batch, logs));
}
absl::Status CallbackList::OnTestBegin(const Logs& logs) { TFD_DISPATCH(OnTestBegin(logs)); }
absl::Status CallbackList::OnTestEnd(Logs& logs) { TFD_DISPATCH(OnTestEnd(logs)); }
absl::Status CallbackList::OnTestBatchBegin(int64_t batch, const Logs& logs) {
  TFD_DISPATCH(OnTestBatchBegin(batch, logs));
}
absl::Status CallbackList::OnTestBatchEnd(int64_t batch, Logs& logs) {
  TFD_DISPATCH(OnTestBatchEnd(batch, logs));
}
absl::Status CallbackList::OnPredictBegin(const Logs& logs) {
  TFD_DISPATCH(OnPredictBegin(logs));
}
absl::Status CallbackList::OnPredictEnd(Logs& logs) { TFD_DISPATCH(OnPredictEnd(logs)); }
absl::Status CallbackList::OnPredictBatchBegin(int64_t batch, const Logs& logs) {
  TFD_DISPATCH(OnPredictBatchBegin(batch, logs));
}
absl::Status CallbackList::OnPredictBatchEnd(int64_t batch, Logs& logs) {
  TFD_DISPATCH(OnPredictBatchEnd(batch, logs));
}

#undef TFD_DISPATCH

}  // namespace nn
}  // namespace tfd
