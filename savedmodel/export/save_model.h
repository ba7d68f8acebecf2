// SaveModel: exports a tfd model (core/nn) as a SavedModel that
// tf.saved_model.load, saved_model_cli and TF Serving load, as
// model.save(export_dir) / tf.saved_model.save does for a Keras model.
//
// The model's inference call, Call(x, training=false), is traced
// (core/graph/tracer.h) with the batch dimension unknown, and written by
// saved_model_writer.h with the signature "serving_default" whose inputs
// and output are keyed as Keras keys them: each input by its InputLayer's
// name ("input_1"), the output by the model's last layer ("dense_1").
//
// The input shapes come from the model (a Sequential started with an
// InputLayer or given an input_shape, a Functional's Inputs) or from
// SaveOptions::input_shape. The model is called, so it gets built if it
// was not.
//
// Thread safety: run it while nothing else updates the model's weights;
// the values written are those read at tracing time.
//
//   TFD_RETURN_IF_ERROR(savedmodel::SaveModel(*model, "/models/cnn/1"));
#ifndef TFD_SAVEDMODEL_EXPORT_SAVE_MODEL_H_
#define TFD_SAVEDMODEL_EXPORT_SAVE_MODEL_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/nn/model.h"

namespace tfd {
namespace savedmodel {

struct SaveOptions {
  // The input's shape with the batch, for a model that does not know it:
  // {kNone, 28, 28, 1}. Only for single-input models.
  std::optional<nn::Shape> input_shape;
  // Signature keys; empty: Keras's (see the file comment).
  std::vector<std::string> input_keys;
  std::string output_key;
};

// Errors: FAILED_PRECONDITION when the input shape is unknown; the
// tracer's (UNIMPLEMENTED for a batch-dependent graph); the writer's
// (ALREADY_EXISTS for a non-empty export_dir); the model's own.
absl::Status SaveModel(nn::Model& model, const std::string& export_dir,
                       const SaveOptions& options = SaveOptions());

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_EXPORT_SAVE_MODEL_H_
