// Checkpoint: tf.train.Checkpoint(model=model, optimizer=optimizer) for
// tfd's Keras-style models and optimizers. It writes TensorFlow's
// object-based checkpoints (a TensorBundle plus `_CHECKPOINTABLE_OBJECT_GRAPH`)
// with the keys tf-keras 2.x writes for the same objects
// (keras_object_graph.h), and restores them, its own or TensorFlow's.
//
// Save: the root's edges are "model", "optimizer" (when given) and
// "save_counter", an int64 counting the saves. Each variable saves its
// cross-replica value: the primary copy of a mirrored variable, the
// aggregate of a sync-on-read one. The bundle's files are written under
// temporary names and renamed into place, index last, and each Save gets a
// new prefix, so a crash mid-save never damages an earlier checkpoint.
//
// Restore matches objects by walking the checkpoint's object graph from its
// root by edge names, never by variable names, then checks and reads every
// value before assigning any, so a failed restore changes nothing. Each
// variable is written to every replica's copy. An optimizer not yet built
// is built first for the model's trainable variables (Keras creates the
// slots it restores the same way), so the step counter, the learning rate
// and the slots are restored and training resumes exactly. Objects in the
// checkpoint that this Checkpoint does not have are ignored, as TensorFlow
// does; a value of this Checkpoint missing from the file is an error.
//
// Call Save and Restore in cross-replica context (outside Strategy::Run),
// inside the model's StrategyScope when the optimizer may need building.
// The model and optimizer must outlive the Checkpoint. Not thread-safe.
//
//   Checkpoint checkpoint(model, optimizer);
//   TFD_ASSIGN_OR_RETURN(std::string path, checkpoint.Save("/ckpts/ckpt"));  // "/ckpts/ckpt-1"
//   ...
//   Checkpoint fresh(new_model, new_optimizer);
//   TFD_RETURN_IF_ERROR(fresh.Restore(path));
#ifndef TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_H_
#define TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"
#include "savedmodel/checkpoint/object_graph.h"

namespace tfd {
namespace savedmodel {

class Checkpoint {
 public:
  // `model` must not be null; `optimizer` may be (a checkpoint of the
  // model alone, which still holds a compiled model's optimizer under
  // "model/optimizer", as TensorFlow's does).
  Checkpoint(std::shared_ptr<nn::Model> model, std::shared_ptr<nn::Optimizer> optimizer);
  // As above, for an optimizer owned elsewhere (model->optimizer()), which
  // must outlive the Checkpoint.
  Checkpoint(std::shared_ptr<nn::Model> model, nn::Optimizer* optimizer);

  // How many times this checkpoint was saved (restored from files).
  int64_t save_counter() const { return save_counter_; }
  // save_counter += 1; returns the new value (CheckpointManager numbers
  // its files with it).
  int64_t IncrementSaveCounter() { return ++save_counter_; }

  // tf.train.Checkpoint.save: increments save_counter, writes
  // "<file_prefix>-<save_counter>" and records it as the latest checkpoint
  // in the directory's `checkpoint` file. Returns that prefix. Errors of
  // Write and of the state file.
  absl::StatusOr<std::string> Save(const std::string& file_prefix);

  // tf.train.Checkpoint.write: writes exactly `prefix` (.index and .data),
  // save_counter unchanged. FAILED_PRECONDITION when the model has not been
  // built; UNIMPLEMENTED for an optimizer whose Keras layout is unknown;
  // file system errors.
  absl::Status Write(const std::string& prefix);

  // Restores every value from the checkpoint at `prefix`. Errors, each
  // naming the file or the checkpoint key concerned:
  //   NOT_FOUND          no `<prefix>.index`, a data file missing, or an
  //                      object of this checkpoint absent from the file
  //   INVALID_ARGUMENT   a value whose dtype or shape differs
  //   DATA_LOSS          damaged files, or an object graph that does not
  //                      parse or names keys the bundle lacks
  //   FAILED_PRECONDITION the model is not built yet
  //   UNIMPLEMENTED      a checkpoint with no object graph (TF1 name-based)
  absl::Status Restore(const std::string& prefix);

 private:
  // The live object graph; `graph` keeps the value functions.
  absl::Status BuildGraph(ObjectGraph& graph);

  // The optimizers whose state this checkpoint holds: the given one and
  // the compiled model's, each once.
  std::vector<nn::Optimizer*> Optimizers() const;

  std::shared_ptr<nn::Model> model_;
  std::shared_ptr<nn::Optimizer> optimizer_owner_;  // May be null.
  nn::Optimizer* optimizer_;                        // May be null.
  int64_t save_counter_ = 0;
};

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_CHECKPOINT_H_
