// LayerFromConfig: a tfd layer from one layer entry of Keras's
// model.to_json() ({"class_name": "Dense", "config": {...}}), as
// tf.keras.layers.deserialize would make it.
//
// Supported classes are the layers tfd has: Dense, Conv1D, Conv2D,
// MaxPooling1D/2D, AveragePooling1D/2D, GlobalAverage/MaxPooling1D/2D,
// Flatten, Reshape, ZeroPadding2D, Dropout, Activation, Embedding,
// BatchNormalization, Add, Subtract, Multiply, Average, Maximum, Minimum. InputLayer is made by
// the model reader (model_from_json.h), which also records its node.
//
// Errors: UNIMPLEMENTED for an unknown class, and for an option tfd does
// not implement (channels_first, regularizers, constraints, masking, any
// config key it does not know); INVALID_ARGUMENT for malformed values.
// Every message names the class and the layer.
//
//   TFD_ASSIGN_OR_RETURN(std::shared_ptr<Layer> layer, LayerFromConfig(entry));
#ifndef TFD_CORE_NN_LAYER_FROM_CONFIG_H_
#define TFD_CORE_NN_LAYER_FROM_CONFIG_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/io/json.h"
#include "core/nn/layer.h"

namespace tfd {
namespace nn {

absl::StatusOr<std::shared_ptr<Layer>> LayerFromConfig(const io::JsonValue& entry);

// The class names LayerFromConfig accepts, sorted.
std::vector<std::string> SupportedLayerClasses();

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_LAYER_FROM_CONFIG_H_
