// The objects of a tf-keras 2.x model and optimizer as tf.train.Checkpoint
// tracks them, added to an ObjectGraph so that tfd's checkpoints carry the
// keys TensorFlow writes for the same Keras objects (tf-keras 2.21 with
// TF_USE_LEGACY_KERAS=1; testdata/*.pbtxt are its graphs).
//
// Model (Sequential, Functional): for each layer i of layers(), an edge
// "layer_with_weights-k" when the layer has weights (k counts those), then
// "layer-i", to the layer's node. A layer's node has one child per weight,
// named after the weight ("kernel", "bias", "gamma", ...), preceded for
// BatchNormalization and LayerNormalization by the empty list "axis". A
// nested model's node is a model's node.
//
// Optimizer (tf.keras.optimizers of TensorFlow >= 2.11): edges
// "_variables" (a list: "0" the step counter, "1".. the slots in creation
// order), "_iterations", "_learning_rate" (or "_current_learning_rate" for
// a schedule), "_index_dict" (empty), then one list per slot kind in the
// class's order (Adam: "_momentums", "_velocities", "_velocity_hats"; SGD:
// "momentums"; RMSprop: "_velocities", "_momentums",
// "_average_gradients"; Adagrad: "_accumulators"). An optimizer not yet
// built has only "_iterations" and "_learning_rate".
//
// Values: a variable saves DistributedVariable::Value() (the primary copy;
// the aggregate for sync-on-read variables) and restores into every
// component (AssignAll). The learning rate is a float32 scalar: a constant
// rate is restored with SetLearningRate; a schedule's current rate is a
// function of the restored step counter and needs no restoring.
//
// The model and optimizer must outlive the graph (values refer to them).
#ifndef TFD_SAVEDMODEL_CHECKPOINT_KERAS_OBJECT_GRAPH_H_
#define TFD_SAVEDMODEL_CHECKPOINT_KERAS_OBJECT_GRAPH_H_

#include "absl/status/statusor.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"
#include "savedmodel/checkpoint/object_graph.h"

namespace tfd {
namespace savedmodel {

// Adds the model's nodes; returns the model's node id.
int AddKerasModel(ObjectGraph& graph, const nn::Model& model);

// Adds the optimizer's nodes; returns its node id. UNIMPLEMENTED for an
// optimizer class whose Keras layout is not known (not SGD, Adam, AdamW,
// RMSprop or Adagrad).
absl::StatusOr<int> AddKerasOptimizer(ObjectGraph& graph, nn::Optimizer& optimizer);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_KERAS_OBJECT_GRAPH_H_
