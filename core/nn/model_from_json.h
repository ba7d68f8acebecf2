// ModelFromJson: a tfd model from Keras's model.to_json() text
// (tf.keras.models.model_from_json), for Sequential and Functional models
// made of the layers tfd has (layer_from_config.h).
//
// Names are kept: the model's, every layer's (so weights are named as
// Keras names them, "dense_1/kernel"), and the InputLayers'. Weights are
// initialized afresh from each layer's initializer, as model_from_json
// does; load trained values from a checkpoint. A model whose input shape
// is known (an InputLayer or batch_input_shape) is built at once and has
// a Summary(); otherwise it builds on its first call.
//
// Functional graphs are rebuilt from each layer's "inbound_nodes" in the
// order Keras's from_config replays them: layers in the order listed, a
// node deferred until all of its inputs exist. Shared layers (several
// nodes) are called once per node.
//
// Errors: INVALID_ARGUMENT for text that is not JSON or not a Keras model
// (naming what is missing), UNIMPLEMENTED for layers or options tfd does
// not have, nested models, and call arguments in inbound nodes; the
// models' own errors (shape mismatches, duplicate names) otherwise.
//
// Build the model inside a StrategyScope to get mirrored weights.
//
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<Model> model, ModelFromJson(json_text));
//   TFD_ASSIGN_OR_RETURN(std::string summary, model->Summary());
#ifndef TFD_CORE_NN_MODEL_FROM_JSON_H_
#define TFD_CORE_NN_MODEL_FROM_JSON_H_

#include <memory>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/nn/model.h"

namespace tfd {
namespace nn {

absl::StatusOr<std::shared_ptr<Model>> ModelFromJson(absl::string_view json);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_MODEL_FROM_JSON_H_
