// ModelCheckpoint (tf.keras.callbacks.ModelCheckpoint) with
// save_weights_only: at the end of each epoch, writes an object-based
// checkpoint of the model and its optimizer (savedmodel/checkpoint) to
// `filepath` formatted as Keras formats it, filepath.format(epoch=epoch + 1,
// **logs): "{epoch:02d}", "{val_loss:.2f}", "{loss}" (Python's repr).
// The checkpoint directory's `checkpoint` state file then names it, so
// LatestCheckpoint(dir) finds it.
//
// With save_best_only, a checkpoint is written only when the monitored
// value improves on the best so far (mode auto: max when the name contains
// "acc" or starts with "fmeasure", as tf-keras decides, min otherwise);
// initial_value_threshold sets the value to beat first.
//
// The checkpoint is tf.train.Checkpoint(model=model, optimizer=optimizer)'s
// layout, which TensorFlow restores with that call; Keras's own
// save_weights makes the model the root instead. Saving the whole model
// (save_weights_only = false, a SavedModel) is UNIMPLEMENTED, and so are
// .h5 files.
//
// Thread safety: as every callback, called on the thread running Fit.
//
//   ModelCheckpointOptions options;
//   options.filepath = "/tmp/ckpts/ckpt_{epoch}";
//   TFD_ASSIGN_OR_RETURN(auto checkpoint, ModelCheckpoint::Create(options));
#ifndef TFD_CORE_NN_CALLBACKS_MODEL_CHECKPOINT_H_
#define TFD_CORE_NN_CALLBACKS_MODEL_CHECKPOINT_H_

#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "core/nn/callbacks/callback.h"

namespace tfd {
namespace nn {

struct ModelCheckpointOptions {
  std::string filepath;             // required; Python format fields allowed
  std::string monitor = "val_loss";
  int verbose = 0;                  // > 0: Keras's message for each epoch
  bool save_best_only = false;
  bool save_weights_only = true;    // false is UNIMPLEMENTED
  std::string mode = "auto";        // auto | min | max
  std::optional<double> initial_value_threshold;
  std::FILE* out = stdout;          // where verbose messages go
};

class ModelCheckpoint : public Callback {
 public:
  // INVALID_ARGUMENT for an empty filepath or an unknown mode;
  // UNIMPLEMENTED for save_weights_only = false or an .h5/.keras filepath.
  static absl::StatusOr<std::shared_ptr<ModelCheckpoint>> Create(ModelCheckpointOptions options);

  // Writes the checkpoint (see above). INVALID_ARGUMENT when the filepath
  // names a value the logs lack or has a format it cannot apply;
  // FAILED_PRECONDITION without a model; the checkpoint's errors.
  absl::Status OnEpochEnd(int epoch, Logs& logs) override;

  // The best monitored value so far (save_best_only).
  double best() const { return best_; }
  // The path of the last checkpoint written; empty before the first.
  const std::string& last_saved() const { return last_saved_; }

 private:
  explicit ModelCheckpoint(ModelCheckpointOptions options);
  absl::Status Save(const std::string& path);

  const ModelCheckpointOptions options_;
  bool maximize_ = false;
  double best_ = 0;
  std::string last_saved_;
};

// Python's str.format for the fields ModelCheckpoint's paths use: {name}
// and {name:spec}, where name is "epoch" (an integer) or a log key (a
// float), and spec is [0][width][.precision][d|f|e|E|g|G|%]; "{{" and "}}"
// are braces. INVALID_ARGUMENT naming the field when a name is unknown or
// a spec is not of that form ("d" needs the integer epoch, as Python's
// format refuses "d" for floats).
absl::StatusOr<std::string> FormatCheckpointPath(const std::string& pattern, int64_t epoch,
                                                 const Logs& logs);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CALLBACKS_MODEL_CHECKPOINT_H_
