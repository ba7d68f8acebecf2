#include "core/nn/callbacks/tensorboard.h"

#include "absl/strings/match.h"
#include "core/framework/status.h"
#include "core/nn/model.h"

namespace tfd {
namespace nn {

TensorBoard::TensorBoard(std::string log_dir, io::EventFileWriterOptions options)
    : log_dir_(std::move(log_dir)), options_(std::move(options)) {
  options_.filename_suffix = ".v2";
}

absl::StatusOr<io::EventFileWriter*> TensorBoard::Writer(
    std::unique_ptr<io::EventFileWriter>& writer, const std::string& dir) {
  if (writer == nullptr) {
    TFD_ASSIGN_OR_RETURN(writer, io::EventFileWriter::Create(dir, options_));
  }
  return writer.get();
}

absl::Status TensorBoard::OnTrainBegin(const Logs& logs) {
  // The train writer exists from the start, so its file appears even
  // before the first epoch ends, as Keras's does.
  return Writer(train_writer_, train_dir()).status();
}

absl::Status TensorBoard::OnEpochEnd(int epoch, Logs& logs) {
  TFD_ASSIGN_OR_RETURN(io::EventFileWriter * train, Writer(train_writer_, train_dir()));
  bool wrote_validation = false;
  for (const Logs::Entry& e : logs.entries()) {
    if (absl::StartsWith(e.first, "val_")) {
      TFD_ASSIGN_OR_RETURN(io::EventFileWriter * validation,
                           Writer(validation_writer_, validation_dir()));
      TFD_RETURN_IF_ERROR(validation->WriteScalar("epoch_" + e.first.substr(4), e.second, epoch));
      wrote_validation = true;
    } else {
      TFD_RETURN_IF_ERROR(train->WriteScalar("epoch_" + e.first, e.second, epoch));
    }
  }
  // Keras logs a scheduled rate (a constant one is left to the logs).
  Optimizer* optimizer = model() != nullptr ? model()->optimizer() : nullptr;
  if (optimizer != nullptr && optimizer->learning_rate().is_schedule()) {
    TFD_ASSIGN_OR_RETURN(float rate, optimizer->CurrentLearningRate());
    TFD_RETURN_IF_ERROR(train->WriteScalar("epoch_learning_rate", rate, epoch));
  }
  TFD_RETURN_IF_ERROR(train->Flush());
  if (wrote_validation) TFD_RETURN_IF_ERROR(validation_writer_->Flush());
  return absl::OkStatus();
}

absl::Status TensorBoard::OnTestEnd(Logs& logs) {
  Optimizer* optimizer = model() != nullptr ? model()->optimizer() : nullptr;
  if (optimizer == nullptr) return absl::OkStatus();
  TFD_ASSIGN_OR_RETURN(int64_t iterations, optimizer->Iterations());
  TFD_ASSIGN_OR_RETURN(io::EventFileWriter * validation,
                       Writer(validation_writer_, validation_dir()));
  for (const Logs::Entry& e : logs.entries()) {
    TFD_RETURN_IF_ERROR(validation->WriteScalar("evaluation_" + e.first + "_vs_iterations",
                                                e.second, iterations));
  }
  return validation->Flush();
}

absl::Status TensorBoard::OnTrainEnd(Logs& logs) {
  absl::Status status;
  for (std::unique_ptr<io::EventFileWriter>* w : {&train_writer_, &validation_writer_}) {
    if (*w != nullptr) status.Update((*w)->Close());
    w->reset();
  }
  return status;
}

}  // namespace nn
}  // namespace tfd
