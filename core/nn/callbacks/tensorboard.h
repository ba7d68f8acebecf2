// TensorBoard (tf.keras.callbacks.TensorBoard): the epoch scalars that
// Keras writes with its default settings, as TensorBoard event files
// (core/io/event_file_writer.h, TF2's tensor form, ".v2" file suffix):
//
//   <log_dir>/train/       "epoch_<key>" for each log key without "val_"
//                          ("epoch_loss", "epoch_accuracy"), step = epoch,
//                          plus "epoch_learning_rate" when the optimizer's
//                          rate is a LearningRateSchedule;
//   <log_dir>/validation/  "epoch_<key>" for each "val_<key>" of the epoch,
//                          step = epoch; and after each evaluation (Fit's
//                          validation or Evaluate), "evaluation_<key>_vs_
//                          iterations" at step = the optimizer's iterations.
//
// Not written: the graph, weight histograms and images, profiles, and
// per-batch scalars (Keras's write_graph, histogram_freq, write_images,
// profile_batch and update_freq), for which tfd has no options.
//
// Thread safety: as every callback, called on the thread running Fit.
//
//   auto tensorboard = std::make_shared<TensorBoard>("/tmp/logs");
#ifndef TFD_CORE_NN_CALLBACKS_TENSORBOARD_H_
#define TFD_CORE_NN_CALLBACKS_TENSORBOARD_H_

#include <memory>
#include <string>

#include "core/io/event_file_writer.h"
#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {

class TensorBoard : public Callback {
 public:
  // `options` configures both writers (tests fix the clock and host name);
  // the ".v2" suffix is always used, as tf.summary's writers use it.
  explicit TensorBoard(std::string log_dir, io::EventFileWriterOptions options = {});

  absl::Status OnTrainBegin(const Logs& logs) override;
  // Writes the epoch scalars and flushes them. File system errors pass
  // through.
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;
  absl::Status OnTestEnd(Logs& logs) override;
  // Closes the files.
  absl::Status OnTrainEnd(Logs& logs) override;

  // The writers' directories.
  std::string train_dir() const { return log_dir_ + "/train"; }
  std::string validation_dir() const { return log_dir_ + "/validation"; }

 private:
  // The writer of `dir`, created on first use (Keras creates them lazily).
  absl::StatusOr<io::EventFileWriter*> Writer(std::unique_ptr<io::EventFileWriter>& writer,
                                              const std::string& dir);

  const std::string log_dir_;
  io::EventFileWriterOptions options_;
  std::unique_ptr<io::EventFileWriter> train_writer_;
  std::unique_ptr<io::EventFileWriter> validation_writer_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_TENSORBOARD_H_
