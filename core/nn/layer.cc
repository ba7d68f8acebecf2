#include "core/nn/layer.h"

#include <unordered_set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "core/distribute/strategy.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {
namespace {

// Set while this thread builds a layer: a nested layer's build (a model
// building its layers) must not enter another MergeCall.
thread_local bool building_on_this_thread = false;

class BuildingScope {
 public:
  BuildingScope() : previous_(building_on_this_thread) { building_on_this_thread = true; }
  ~BuildingScope() { building_on_this_thread = previous_; }

 private:
  bool previous_;
};

}  // namespace

std::string ShapeToString(const Shape& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0) s += ", ";
    s += shape[i] < 0 ? "None" : std::to_string(shape[i]);
  }
  // Python writes a one-element tuple as "(3,)".
  if (shape.size() == 1) s += ",";
  return s + ")";
}

Shape ShapeOf(const Tensor& t) { return t.shape().dims(); }

absl::StatusOr<TensorShape> KnownShape(const Shape& shape, absl::string_view what) {
  for (int64_t d : shape) {
    if (d < 0) {
      return InvalidArgument(what, ": every dimension must be known, got shape ",
                             ShapeToString(shape));
    }
  }
  return TensorShape(shape);
}

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0) return kNone;
    n *= d;
  }
  return n;
}

LayerOptions WithDefaultName(LayerOptions options, absl::string_view base, bool zero_based) {
  if (options.name.empty()) options.name = UniqueObjectName(base, zero_based);
  return options;
}

Layer::Layer(absl::string_view class_name, const LayerOptions& options)
    : class_name_(class_name),
      name_(options.name.empty() ? UniqueObjectName(ToSnakeCase(class_name)) : options.name),
      policy_(options.policy.has_value()    ? *options.policy
              : options.dtype != DT_INVALID ? DTypePolicy(options.dtype)
                                            : GlobalPolicy()),
      trainable_(options.trainable),
      input_shape_option_(options.input_shape) {}

absl::Status Layer::Error(absl::string_view message) const {
  return InvalidArgument("Layer \"", name_, "\" (", class_name_, "): ", message);
}

absl::Status Layer::CheckNumInputs(size_t n) const {
  if (static_cast<int>(n) < min_inputs() || static_cast<int>(n) > max_inputs()) {
    if (min_inputs() == max_inputs()) {
      return Error(absl::StrCat("expects ", min_inputs(), " input(s), but it received ", n,
                                " input tensors"));
    }
    return Error(absl::StrCat("expects between ", min_inputs(), " and ", max_inputs(),
                              " inputs, but it received ", n, " input tensors"));
  }
  return absl::OkStatus();
}

absl::Status Layer::CheckRank(int input_index, const Shape& shape, std::optional<int> ndim,
                              std::optional<int> min_ndim) const {
  const int rank = static_cast<int>(shape.size());
  std::string expected;
  if (ndim.has_value() && rank != *ndim) {
    expected = absl::StrCat("expected ndim=", *ndim);
  } else if (min_ndim.has_value() && rank < *min_ndim) {
    expected = absl::StrCat("expected min_ndim=", *min_ndim);
  } else {
    return absl::OkStatus();
  }
  return InvalidArgument("Input ", input_index, " of layer \"", name_,
                         "\" is incompatible with the layer: ", expected, ", found ndim=", rank,
                         ". Full shape received: ", ShapeToString(shape));
}

absl::Status Layer::CheckAxis(int input_index, const Shape& shape, int axis, int64_t value) const {
  const int rank = static_cast<int>(shape.size());
  const int a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank || (shape[a] >= 0 && shape[a] != value)) {
    return InvalidArgument("Input ", input_index, " of layer \"", name_,
                           "\" is incompatible with the layer: expected axis ", axis,
                           " of input shape to have value ", value,
                           ", but received input with shape ", ShapeToString(shape));
  }
  return absl::OkStatus();
}

absl::StatusOr<Shape> Layer::ComputeOutputShape(const std::vector<Shape>& input_shapes) const {
  TFD_RETURN_IF_ERROR(CheckNumInputs(input_shapes.size()));
  return ComputeOutputShapeImpl(input_shapes);
}

absl::Status Layer::BuildOnce(const std::vector<Shape>& input_shapes) {
  absl::MutexLock lock(&build_mu_);
  if (built()) return absl::OkStatus();
  BuildingScope scope;
  TFD_RETURN_IF_ERROR(BuildImpl(input_shapes));
  MarkBuilt();
  return absl::OkStatus();
}

absl::Status Layer::Build(const std::vector<Shape>& input_shapes) {
  if (built()) return absl::OkStatus();
  TFD_RETURN_IF_ERROR(ComputeOutputShape(input_shapes).status());
  distribute::ReplicaContext* replica = distribute::CurrentReplicaContext();
  if (replica != nullptr && replica->num_replicas_in_sync() > 1 && !building_on_this_thread) {
    // Every replica reaches this point (none can see the layer built before
    // all have arrived, since the build runs only then), so the MergeCall
    // is entered by all of them and the weights are created once.
    return replica->MergeCall([&] { return BuildOnce(input_shapes); });
  }
  return BuildOnce(input_shapes);
}

absl::StatusOr<Tensor> Layer::Call(const Tensor& input, bool training) {
  return Call(std::vector<Tensor>{input}, training);
}

absl::StatusOr<Tensor> Layer::Call(const std::vector<Tensor>& inputs, bool training) {
  TFD_RETURN_IF_ERROR(CheckNumInputs(inputs.size()));
  std::vector<Tensor> cast = inputs;
  std::vector<Shape> shapes;
  for (Tensor& x : cast) {
    if (!x.defined()) return Error("an input is an undefined tensor");
    const DataType compute = compute_dtype();
    if (autocast() && IsFloatingType(x.dtype()) && IsFloatingType(compute) && x.dtype() != compute) {
      TFD_ASSIGN_OR_RETURN(x, Execute1("Cast", {x}, AttrMap().Set("DstT", compute)));
    }
    shapes.push_back(ShapeOf(x));
  }
  TFD_RETURN_IF_ERROR(Build(shapes));
  TFD_RETURN_IF_ERROR(ComputeOutputShapeImpl(shapes).status());
  return CallImpl(cast, training);
}

absl::StatusOr<KerasTensor> Layer::operator()(const KerasTensor& input) {
  return (*this)(std::vector<KerasTensor>{input});
}

absl::StatusOr<KerasTensor> Layer::operator()(const std::vector<KerasTensor>& inputs) {
  TFD_RETURN_IF_ERROR(CheckNumInputs(inputs.size()));
  std::vector<Shape> shapes;
  for (const KerasTensor& x : inputs) {
    if (!x.defined()) return Error("an input is not a KerasTensor of a functional graph");
    shapes.push_back(x.shape());
  }
  TFD_RETURN_IF_ERROR(Build(shapes));
  TFD_ASSIGN_OR_RETURN(Shape output_shape, ComputeOutputShape(shapes));
  auto node = std::make_shared<Node>();
  node->layer = this;
  node->index = static_cast<int>(inbound_nodes_.size());
  node->inputs = inputs;
  node->output_shape = output_shape;
  node->output_dtype = compute_dtype();
  inbound_nodes_.push_back(node);
  return KerasTensor(shared_from_this(), node, 0, output_shape, compute_dtype());
}

absl::StatusOr<Weight> Layer::AddWeight(const WeightOptions& options) {
  if (options.trainable &&
      options.synchronization == distribute::VariableSynchronization::kOnRead) {
    return Error(absl::StrCat("weight '", options.name,
                              "': synchronization ON_READ is only for non-trainable weights"));
  }
  if (options.initializer == nullptr) {
    return Error(absl::StrCat("weight '", options.name, "' has no initializer"));
  }
  const DataType dtype = options.dtype == DT_INVALID ? this->dtype() : options.dtype;
  distribute::VariableSpec spec;
  spec.name = name_ + "/" + options.name;
  spec.initial_value = [init = options.initializer, shape = options.shape, dtype] {
    return (*init)(shape, dtype);
  };
  spec.trainable = options.trainable;
  spec.synchronization = options.synchronization;
  spec.aggregation = options.aggregation;
  TFD_ASSIGN_OR_RETURN(Weight w, distribute::CreateVariable(spec));
  (options.trainable ? trainable_own_ : non_trainable_own_).push_back(w);
  return w;
}

absl::StatusOr<Tensor> Layer::ReadWeight(const Weight& weight) const {
  Tensor value = weight->Read();
  const DataType compute = compute_dtype();
  if (!IsFloatingType(value.dtype()) || !IsFloatingType(compute) || value.dtype() == compute) {
    return value;
  }
  return Execute1("Cast", {value}, AttrMap().Set("DstT", compute));
}

std::vector<Weight> Layer::trainable_weights() const {
  if (!trainable_) return {};
  return trainable_own_;
}

std::vector<Weight> Layer::non_trainable_weights() const {
  if (trainable_) return non_trainable_own_;
  std::vector<Weight> all = trainable_own_;
  all.insert(all.end(), non_trainable_own_.begin(), non_trainable_own_.end());
  return all;
}

std::vector<Weight> Layer::weights() const {
  std::vector<Weight> all = trainable_weights();
  std::vector<Weight> rest = non_trainable_weights();
  all.insert(all.end(), rest.begin(), rest.end());
  return all;
}

absl::StatusOr<int64_t> Layer::CountParams() const {
  if (!built()) {
    return FailedPrecondition("You tried to call `count_params` on layer ", name_,
                              ", but the layer isn't built. You can build it manually via: `",
                              name_, ".build(batch_input_shape)`.");
  }
  return nn::CountParams(weights());
}

std::vector<const Variable*> LocalVariables(const std::vector<Weight>& weights) {
  std::vector<const Variable*> out;
  out.reserve(weights.size());
  for (const Weight& w : weights) out.push_back(&w->Local());
  return out;
}

int64_t CountParams(const std::vector<Weight>& weights) {
  std::unordered_set<const distribute::DistributedVariable*> seen;
  int64_t n = 0;
  for (const Weight& w : weights) {
    if (seen.insert(w.get()).second) n += w->shape().num_elements();
  }
  return n;
}

}  // namespace nn
}  // namespace tfd
