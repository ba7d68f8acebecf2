// CSVLogger (tf.keras.callbacks.CSVLogger): one CSV row per epoch with the
// epoch's logs, in Keras's file format:
//
//   epoch,accuracy,loss,val_accuracy,val_loss\r\n
//   0,0.8123000264167786,0.5134000182151794,0.8457000255584717,0.4348000288009644\r\n
//
// - the columns are "epoch" (from 0) then the first epoch's log keys
//   sorted; when none of them starts with "val_", a "val_" column is added
//   for each (Keras's provision for validation_freq > 1), and a value
//   missing from an epoch's logs is written "NA";
// - values are Python's repr() of the number (python_float.h); fields are
//   quoted as Python's csv module quotes them (only when they hold the
//   separator, a quote or a line break); lines end with "\r\n" (csv.excel);
// - with append, an existing file is continued and gets no second header
//   unless it is empty; otherwise each Fit starts the file afresh.
//
// Unlike Keras, which appends to an open file, the whole file is rewritten
// to a temporary name and renamed after each epoch, so a crash never
// leaves a half-written row.
//
// Thread safety: as every callback, called on the thread running Fit.
//
//   auto csv = std::make_shared<CSVLogger>("/tmp/logs/training.csv");
#ifndef TFD_CORE_NN_CALLBACKS_CSV_LOGGER_H_
#define TFD_CORE_NN_CALLBACKS_CSV_LOGGER_H_

#include <string>
#include <vector>

#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {

class CSVLogger : public Callback {
 public:
  explicit CSVLogger(std::string filename, char separator = ',', bool append = false);

  // Reads the existing file when appending. File system errors (other
  // than a missing file) pass through.
  absl::Status OnTrainBegin(const Logs& logs) override;
  // Adds the row and rewrites the file. File system errors pass through.
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;
  absl::Status OnTrainEnd(Logs& logs) override;

 private:
  std::string Field(const std::string& text) const;

  const std::string filename_;
  const char separator_;
  const bool append_;
  // The file's text as it will be written next.
  std::string contents_;
  // The columns after "epoch", fixed by the first epoch logged (and kept
  // across Fits, as Keras keeps them).
  std::vector<std::string> keys_;
  bool header_pending_ = true;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_CSV_LOGGER_H_
