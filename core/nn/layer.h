// Layer: the base of tfd's Keras-style layers (tf.keras.layers.Layer).
//
// A layer has a Keras-style unique name ("dense", "dense_1", ...; see
// layer_names.h), a dtype policy (dtype_policy.h: the dtype of its weights
// and the dtype it computes in; the global policy, float32 unless set, by
// default), and weights it creates lazily: the first Call (or Build) builds
// the layer from the input shapes. Weights are DistributedVariables made by
// the current strategy (distribute::CreateVariable), so a layer built
// inside a StrategyScope gets one copy per replica; the forward pass reads
// weight->Read(), the calling replica's copy, which GradientTapes record.
// Weight names are "<layer>/<weight>": "dense/kernel", "conv2d_1/bias".
//
// Call(inputs, training) runs the layer through Execute. Floating inputs
// are first cast to the layer's compute dtype (Keras's autocast), and
// layers read floating weights cast to it (ReadWeight), so under
// "mixed_bfloat16" a Dense keeps a float32 kernel and multiplies in
// bfloat16; the gradient flows back through the Cast to the float32 kernel. Calling a layer on
// KerasTensors instead (operator()) runs nothing: it records a node of the
// functional graph (layer_node.h).
//
// Weights come in Keras's order: weights() is trainable_weights() then
// non_trainable_weights(); a layer whose trainable flag is off reports all
// of its weights as non-trainable.
//
// Thread safety: a built layer may be called from several replica threads
// at once. Building is done once: when the first call comes from inside
// Strategy::Run() with several replicas, the build runs once inside a
// MergeCall, as TensorFlow creates variables in a replica context.
// Configuration (set_trainable) and graph building are single-threaded.
//
//   auto dense = std::make_shared<Dense>(64, Dense::Options().Activation("relu"));
//   TFD_ASSIGN_OR_RETURN(Tensor y, dense->Call(x));       // builds: dense/kernel, dense/bias
//   dense->weights();                                     // {kernel, bias}
#ifndef TFD_CORE_NN_LAYER_H_
#define TFD_CORE_NN_LAYER_H_

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"
#include "core/distribute/distributed_variable.h"
#include "core/framework/tensor.h"
#include "core/framework/variable.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/initializers.h"
#include "core/nn/layer_names.h"
#include "core/nn/layer_node.h"

namespace tfd {
namespace nn {

using Weight = std::shared_ptr<distribute::DistributedVariable>;

// The shape of `t` as a Keras shape (all dimensions known).
Shape ShapeOf(const Tensor& t);
// `shape` with every dimension known; INVALID_ARGUMENT naming `what` when
// one is not.
absl::StatusOr<TensorShape> KnownShape(const Shape& shape, absl::string_view what);
// Product of the dimensions; kNone when one is unknown.
int64_t NumElements(const Shape& shape);

// What every layer takes besides its own arguments (Keras's **kwargs).
struct LayerOptions {
  std::string name;  // Empty: a unique name from the class name.
  // The layer's policy: `policy` when set, else the plain policy of `dtype`
  // when set, else the global policy when the layer is constructed.
  std::optional<DTypePolicy> policy;
  DataType dtype = DT_INVALID;
  bool trainable = true;
  // The shape of one example, without the batch dimension (Keras's
  // input_shape): a Sequential whose first layer has it builds at once.
  std::optional<Shape> input_shape;
};

// `options` with a name from UniqueObjectName(base, zero_based) when it has
// none; for classes that Keras names otherwise than after the class
// ("input_1" for InputLayer, "model" for a functional model).
LayerOptions WithDefaultName(LayerOptions options, absl::string_view base, bool zero_based = true);

// Fluent setters of the common options for each layer's Options struct:
//   Dense::Options().Name("logits").Dtype(DT_DOUBLE)
template <typename Derived>
struct LayerOptionsBuilder {
  LayerOptions layer;
  Derived& Name(std::string name) {
    layer.name = std::move(name);
    return static_cast<Derived&>(*this);
  }
  Derived& Dtype(DataType dtype) {
    layer.dtype = dtype;
    return static_cast<Derived&>(*this);
  }
  Derived& Policy(DTypePolicy policy) {
    layer.policy = std::move(policy);
    return static_cast<Derived&>(*this);
  }
  Derived& Trainable(bool trainable) {
    layer.trainable = trainable;
    return static_cast<Derived&>(*this);
  }
  Derived& InputShape(Shape shape) {
    layer.input_shape = std::move(shape);
    return static_cast<Derived&>(*this);
  }
};

// How a layer creates one weight (Layer::AddWeight).
struct WeightOptions {
  std::string name;  // Without the layer's prefix: "kernel".
  TensorShape shape;
  InitializerPtr initializer;
  DataType dtype = DT_INVALID;  // DT_INVALID: the policy's variable dtype.
  bool trainable = true;
  distribute::VariableSynchronization synchronization = distribute::VariableSynchronization::kAuto;
  distribute::VariableAggregation aggregation = distribute::VariableAggregation::kNone;
};

class Layer : public std::enable_shared_from_this<Layer> {
 public:
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  const std::string& name() const { return name_; }
  // Keras's class name, as Summary() prints it: "Dense", "Conv2D".
  const std::string& class_name() const { return class_name_; }
  // Keras's names: dtype() is the variable dtype; compute_dtype() the
  // dtype of inputs, weight reads and outputs. They differ only under a
  // mixed policy.
  const DTypePolicy& dtype_policy() const { return policy_; }
  DataType dtype() const { return policy_.variable_dtype(); }
  DataType compute_dtype() const { return policy_.compute_dtype(); }
  bool built() const { return built_.load(std::memory_order_acquire); }
  bool trainable() const { return trainable_; }
  virtual void set_trainable(bool trainable) { trainable_ = trainable; }
  const std::optional<Shape>& input_shape_option() const { return input_shape_option_; }

  // Creates the weights for inputs of these shapes (batch may be kNone),
  // once; later calls do nothing. INVALID_ARGUMENT, naming the layer, when
  // the shapes do not suit it.
  absl::Status Build(const std::vector<Shape>& input_shapes);
  absl::Status Build(const Shape& input_shape) { return Build(std::vector<Shape>{input_shape}); }

  // Runs the layer: builds it on first use, checks the inputs, executes.
  // `training` selects training behavior (Dropout, BatchNormalization).
  // INVALID_ARGUMENT naming the layer and the shapes for bad inputs.
  absl::StatusOr<Tensor> Call(const Tensor& input, bool training = false);
  absl::StatusOr<Tensor> Call(const std::vector<Tensor>& inputs, bool training = false);

  // The output shape for inputs of these shapes (kNone stays kNone),
  // validating them as Call would.
  absl::StatusOr<Shape> ComputeOutputShape(const std::vector<Shape>& input_shapes) const;
  absl::StatusOr<Shape> ComputeOutputShape(const Shape& input_shape) const {
    return ComputeOutputShape(std::vector<Shape>{input_shape});
  }

  // Functional API: records a call on symbolic inputs (building the layer
  // from their shapes) and returns the symbolic output.
  absl::StatusOr<KerasTensor> operator()(const KerasTensor& input);
  absl::StatusOr<KerasTensor> operator()(const std::vector<KerasTensor>& inputs);
  const std::vector<std::shared_ptr<Node>>& inbound_nodes() const { return inbound_nodes_; }

  // Weights in Keras's order (see the file comment). Models override
  // these to gather their layers' weights.
  virtual std::vector<Weight> weights() const;
  virtual std::vector<Weight> trainable_weights() const;
  virtual std::vector<Weight> non_trainable_weights() const;
  // Number of scalars in weights(). FAILED_PRECONDITION when not built.
  absl::StatusOr<int64_t> CountParams() const;

 protected:
  Layer(absl::string_view class_name, const LayerOptions& options);

  // Creates the layer's weights with AddWeight. Shapes are validated by
  // ComputeOutputShapeImpl before this runs.
  virtual absl::Status BuildImpl(const std::vector<Shape>& input_shapes) {
    return absl::OkStatus();
  }
  // The forward pass; inputs are autocast and their shapes validated.
  virtual absl::StatusOr<Tensor> CallImpl(const std::vector<Tensor>& inputs, bool training) = 0;
  // Validates the input shapes and gives the output shape.
  virtual absl::StatusOr<Shape> ComputeOutputShapeImpl(
      const std::vector<Shape>& input_shapes) const = 0;
  // How many inputs the layer takes: [min, max].
  virtual int min_inputs() const { return 1; }
  virtual int max_inputs() const { return 1; }
  // Whether floating inputs are cast to compute_dtype() before CallImpl.
  virtual bool autocast() const { return true; }
  // Marks the layer built without BuildImpl (models built from a graph).
  void MarkBuilt() { built_.store(true, std::memory_order_release); }
  // Records a node made elsewhere (an InputLayer's own node).
  void AddInboundNode(std::shared_ptr<Node> node) { inbound_nodes_.push_back(std::move(node)); }

  // Creates a weight named "<layer name>/<options.name>" with the current
  // strategy and appends it to the layer's trainable or non-trainable list.
  absl::StatusOr<Weight> AddWeight(const WeightOptions& options);
  // The calling replica's value of `weight`, cast to compute_dtype() when
  // both are floating and differ (Keras's AutoCastVariable), so tapes see
  // the Cast and the gradient reaches the variable in its own dtype.
  absl::StatusOr<Tensor> ReadWeight(const Weight& weight) const;

  // Keras's InputSpec errors, naming the layer and the shape received:
  //   Input 0 of layer "conv2d" is incompatible with the layer: expected
  //   min_ndim=4, found ndim=2. Full shape received: (None, 10)
  absl::Status CheckRank(int input_index, const Shape& shape, std::optional<int> ndim,
                         std::optional<int> min_ndim = std::nullopt) const;
  // "expected axis -1 of input shape to have value 5, but received input
  // with shape (None, 3)"
  absl::Status CheckAxis(int input_index, const Shape& shape, int axis, int64_t value) const;
  // INVALID_ARGUMENT prefixed with 'Layer "name" (Class): '.
  absl::Status Error(absl::string_view message) const;

 private:
  absl::Status BuildOnce(const std::vector<Shape>& input_shapes);
  absl::Status CheckNumInputs(size_t n) const;

  const std::string class_name_;
  const std::string name_;
  const DTypePolicy policy_;
  bool trainable_;
  const std::optional<Shape> input_shape_option_;
  std::atomic<bool> built_{false};
  absl::Mutex build_mu_;
  std::vector<Weight> trainable_own_;
  std::vector<Weight> non_trainable_own_;
  std::vector<std::shared_ptr<Node>> inbound_nodes_;
};

// The replica-local Variables of `weights` (weight->Local()), the sources
// a GradientTape differentiates with respect to.
std::vector<const Variable*> LocalVariables(const std::vector<Weight>& weights);

// Number of scalars in `weights`, each counted once.
int64_t CountParams(const std::vector<Weight>& weights);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_LAYER_H_
