#include "core/nn/callbacks/csv_logger.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/io/file.h"
#include "core/nn/callbacks/python_float.h"

namespace tfd {
namespace nn {

CSVLogger::CSVLogger(std::string filename, char separator, bool append)
    : filename_(std::move(filename)), separator_(separator), append_(append) {}

std::string CSVLogger::Field(const std::string& text) const {
  if (text.find_first_of(std::string(1, separator_) + "\"\r\n") == std::string::npos) return text;
  // Python's csv doubles the quotes inside a quoted field.
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

absl::Status CSVLogger::OnTrainBegin(const Logs& logs) {
  contents_.clear();
  header_pending_ = true;
  if (!append_) return absl::OkStatus();
  absl::StatusOr<std::string> existing = io::ReadFileToString(filename_);
  if (absl::IsNotFound(existing.status())) return absl::OkStatus();
  TFD_RETURN_IF_ERROR(existing.status());
  contents_ = *std::move(existing);
  // Keras writes the header only when the file is empty.
  header_pending_ = contents_.empty();
  return absl::OkStatus();
}

absl::Status CSVLogger::OnEpochEnd(int epoch, Logs& logs) {
  if (keys_.empty()) {
    for (const Logs::Entry& e : logs.entries()) keys_.push_back(e.first);
    std::sort(keys_.begin(), keys_.end());
    const bool has_validation = std::any_of(keys_.begin(), keys_.end(), [](const std::string& k) {
      return absl::StartsWith(k, "val_");
    });
    if (!has_validation) {
      const size_t n = keys_.size();
      for (size_t i = 0; i < n; ++i) keys_.push_back("val_" + keys_[i]);
    }
  }
  const std::string sep(1, separator_);
  if (header_pending_) {
    absl::StrAppend(&contents_, "epoch");
    for (const std::string& k : keys_) absl::StrAppend(&contents_, sep, Field(k));
    absl::StrAppend(&contents_, "\r\n");
    header_pending_ = false;
  }
  absl::StrAppend(&contents_, epoch);
  for (const std::string& k : keys_) {
    const std::optional<double> value = logs.Get(k);
    absl::StrAppend(&contents_, sep, value ? Field(PythonFloatRepr(*value)) : "NA");
  }
  absl::StrAppend(&contents_, "\r\n");
  return io::WriteStringToFileAtomically(filename_, contents_);
}

absl::Status CSVLogger::OnTrainEnd(Logs& logs) {
  // A later Fit appends a header again if it starts a fresh file.
  header_pending_ = true;
  return absl::OkStatus();
}

}  // namespace nn
}  // namespace tfd
