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
// nested model's node is a model's node. A compiled model also has an
// edge "optimizer" to its optimizer (Keras's model.optimizer); the empty
// nodes Keras adds for its traced train/test/predict functions are left
// out (they hold no values and do not affect keys or restoring).
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
// LossScaleOptimizer (dynamic): the wrapped optimizer's edges with
// "loss_scale" after the learning rate, a node with "current_loss_scale"
// (float32) and "good_steps" (int64); the wrapped optimizer, when added
// after its wrapper, gets the same edges (Note [Loss scale in the object
// graph] in the .cc). A fixed scale saves nothing, as in Keras.
//
// Values: a variable saves DistributedVariable::Value() (the primary copy;
// the aggregate for sync-on-read variables) and restores into every
// component (AssignAll). The learning rate is a float32 scalar: a constant
// rate is restored with SetLearningRate; a schedule's current rate is a
// function of the restored step counter and needs no restoring. The loss
// scale state is optional on restore: a checkpoint written without it
// (float32 training) leaves the scale at its initial value, as Keras does.
//
// The model and optimizer must outlive the graph (values refer to them).
#ifndef TFD_SAVEDMODEL_CHECKPOINT_KERAS_OBJECT_GRAPH_H_
#define TFD_SAVEDMODEL_CHECKPOINT_KERAS_OBJECT_GRAPH_H_

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"
#include "savedmodel/checkpoint/object_graph.h"

namespace tfd {
namespace savedmodel {

// Adds Keras objects to one ObjectGraph, each object once however many
// edges lead to it (a compiled model's optimizer, also passed to the
// Checkpoint, is one node with two parents, as in TensorFlow). A
// LossScaleOptimizer and the optimizer it wraps are two nodes with the
// same children.
class KerasObjectGraphBuilder {
 public:
  explicit KerasObjectGraphBuilder(ObjectGraph& graph) : graph_(graph) {}

  // Adds the model's nodes; returns the model's node id. A compiled model
  // (model.optimizer() set) also gets an "optimizer" edge after its layers.
  // Errors of AddOptimizer.
  absl::StatusOr<int> AddModel(const nn::Model& model);

  // Adds the optimizer's nodes; returns its node id. UNIMPLEMENTED for an
  // optimizer class whose Keras layout is not known (not SGD, Adam, AdamW,
  // RMSprop or Adagrad, or a LossScaleOptimizer around one of them).
  absl::StatusOr<int> AddOptimizer(nn::Optimizer& optimizer);

 private:
  using Edge = std::pair<std::string, int>;

  absl::StatusOr<int> AddLayer(const nn::Layer& layer);
  int AddVariable(const std::shared_ptr<distribute::DistributedVariable>& var);
  // A slot of `optimizer`: AddVariable, with Keras's full name when a
  // LossScaleOptimizer wraps it.
  int AddSlot(const nn::Optimizer& optimizer,
              const std::shared_ptr<distribute::DistributedVariable>& var);
  // The edges of a (not loss-scaling) optimizer's node, made once.
  absl::StatusOr<std::vector<Edge>> OptimizerEdges(nn::Optimizer& optimizer);
  // The "loss_scale" node of a dynamic LossScaleOptimizer, made once.
  int LossScaleNode(const nn::LossScaleOptimizer& optimizer);

  ObjectGraph& graph_;
  std::map<const nn::Layer*, int> layers_;
  std::map<const distribute::DistributedVariable*, int> variables_;
  std::map<const nn::Optimizer*, int> optimizers_;
  std::map<const nn::Optimizer*, std::vector<Edge>> optimizer_edges_;
  // Wrapped optimizer -> its LossScaleOptimizer, once the wrapper is added.
  std::map<const nn::Optimizer*, const nn::LossScaleOptimizer*> wrappers_;
  std::map<const nn::LossScaleOptimizer*, int> loss_scales_;
};

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_KERAS_OBJECT_GRAPH_H_
