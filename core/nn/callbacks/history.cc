#include "core/nn/callbacks/history.h"

namespace tfd {
namespace nn {

absl::Status History::OnTrainBegin(const Logs& logs) {
  epoch_.clear();
  return absl::OkStatus();
}

absl::Status History::OnEpochEnd(int epoch, Logs& logs) {
  epoch_.push_back(epoch);
  for (const Logs::Entry& entry : logs.entries()) {
    Series* series = nullptr;
    for (Series& s : history_) {
      if (s.first == entry.first) series = &s;
    }
    if (series == nullptr) {
      history_.emplace_back(entry.first, std::vector<double>());
      series = &history_.back();
    }
    series->second.push_back(entry.second);
  }
  return absl::OkStatus();
}

std::vector<double> History::Get(const std::string& key) const {
  for (const Series& s : history_) {
    if (s.first == key) return s.second;
  }
  return {};
}

}  // namespace nn
}  // namespace tfd
