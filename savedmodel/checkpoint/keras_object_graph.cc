#include "savedmodel/checkpoint/keras_object_graph.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/nn/adagrad.h"
#include "core/nn/adam.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/rmsprop.h"
#include "core/nn/sgd.h"

namespace tfd {
namespace savedmodel {
namespace {

using distribute::DistributedVariable;

SaveableValue VariableValue(std::shared_ptr<DistributedVariable> var) {
  SaveableValue value;
  value.full_name = var->name();
  value.dtype = var->dtype();
  value.shape = var->shape();
  value.read = [var]() { return var->Value(); };
  value.assign = [var](const Tensor& t) { return var->AssignAll(t); };
  return value;
}

// The attribute a Keras layer keeps the weight in: its name without the
// layer's prefix ("dense_1/kernel" -> "kernel").
std::string AttributeName(const nn::Layer& layer, const DistributedVariable& var) {
  const std::string prefix = layer.name() + "/";
  if (absl::StartsWith(var.name(), prefix)) return var.name().substr(prefix.size());
  const size_t slash = var.name().rfind('/');
  return slash == std::string::npos ? var.name() : var.name().substr(slash + 1);
}

// A Keras optimizer's per-slot list: attribute name and slot name.
struct SlotList {
  const char* attribute;
  const char* slot;
};

absl::StatusOr<std::vector<SlotList>> SlotListsOf(const nn::Optimizer& optimizer,
                                                  bool has_vhat) {
  if (dynamic_cast<const nn::Adam*>(&optimizer) != nullptr) {
    std::vector<SlotList> lists = {{"_momentums", "m"}, {"_velocities", "v"}};
    if (has_vhat) lists.push_back({"_velocity_hats", "vhat"});
    return lists;
  }
  if (dynamic_cast<const nn::SGD*>(&optimizer) != nullptr) {
    return std::vector<SlotList>{{"momentums", "m"}};
  }
  if (dynamic_cast<const nn::RMSprop*>(&optimizer) != nullptr) {
    return std::vector<SlotList>{{"_velocities", "velocity"},
                                 {"_momentums", "momentum"},
                                 {"_average_gradients", "average_gradient"}};
  }
  if (dynamic_cast<const nn::Adagrad*>(&optimizer) != nullptr) {
    return std::vector<SlotList>{{"_accumulators", "accumulator"}};
  }
  return Unimplemented("checkpoint: the Keras layout of optimizer '", optimizer.name(),
                       "' is not known (SGD, Adam, AdamW, RMSprop and Adagrad are)");
}

// The slot name of an optimizer variable named "<optimizer>/<slot>/<var>".
std::string SlotNameOf(const nn::Optimizer& optimizer, const DistributedVariable& var) {
  const std::string prefix = optimizer.name() + "/";
  if (!absl::StartsWith(var.name(), prefix)) return "";
  const std::string rest = var.name().substr(prefix.size());
  return rest.substr(0, rest.find('/'));
}

SaveableValue LearningRateValue(nn::Optimizer& optimizer) {
  SaveableValue value;
  const bool schedule = optimizer.learning_rate().is_schedule();
  value.full_name = schedule ? "current_learning_rate" : "learning_rate";
  value.dtype = DT_FLOAT;
  value.read = [&optimizer]() -> absl::StatusOr<Tensor> {
    TFD_ASSIGN_OR_RETURN(float rate, optimizer.CurrentLearningRate());
    return Tensor::Scalar<float>(rate);
  };
  if (schedule) {
    // The schedule gives the rate from the restored step counter.
    value.assign = [](const Tensor&) { return absl::OkStatus(); };
  } else {
    value.assign = [&optimizer](const Tensor& t) -> absl::Status {
      TFD_ASSIGN_OR_RETURN(Tensor host, t.CopyTo(HostDevice()));
      return optimizer.SetLearningRate(host.scalar<float>());
    };
  }
  return value;
}

// A LossScaleOptimizer's scale or good-steps counter. Optional: a
// checkpoint written without loss scaling (float32 training, a fixed
// scale) restores into a mixed_float16 model, whose scaling then starts
// afresh, as Keras's restore leaves state the file does not have.
SaveableValue LossScaleStateValue(std::shared_ptr<DistributedVariable> var) {
  SaveableValue value = VariableValue(std::move(var));
  value.required = false;
  return value;
}

// The step counter of an optimizer that has none yet: saves 0.
SaveableValue UnbuiltIterationsValue(const nn::Optimizer& optimizer) {
  SaveableValue value;
  value.full_name = "iteration";
  value.dtype = DT_INT64;
  value.read = []() -> absl::StatusOr<Tensor> { return Tensor::Scalar<int64_t>(0); };
  // A saved counter of 0 is this state; any other needs the variable.
  value.assign = [name = optimizer.name()](const Tensor& t) -> absl::Status {
    TFD_ASSIGN_OR_RETURN(Tensor host, t.CopyTo(HostDevice()));
    if (host.scalar<int64_t>() == 0) return absl::OkStatus();
    return FailedPrecondition("checkpoint: optimizer '", name, "' has taken no step yet and ",
                              "cannot take the saved step counter ", host.scalar<int64_t>(),
                              " without its slots; the checkpoint has none");
  };
  return value;
}

}  // namespace

// Note [Loss scale in the object graph]
// tf-keras's LossScaleOptimizer hands its tracking to the optimizer it
// wraps (a delegating trackable), and tracks its dynamic scale state on
// it: the wrapped optimizer gets a child "loss_scale" with
// "current_loss_scale" (float32) and "good_steps" (int64). So the
// wrapper's node and the wrapped optimizer's node have the same edges,
// both with "loss_scale", and the keys are the plain optimizer's plus
//   optimizer/loss_scale/current_loss_scale/.ATTRIBUTES/VARIABLE_VALUE
//   optimizer/loss_scale/good_steps/.ATTRIBUTES/VARIABLE_VALUE
// whether the checkpoint's "optimizer" is the wrapper (Keras's
// model.optimizer) or the optimizer the user made (the C API's compiled
// optimizer, with the wrapper at "model/optimizer"). The two stay two
// nodes, as in Keras, that share every child; so the wrapper must be
// added before the wrapped optimizer's own node (AddModel before
// AddOptimizer does that for a compiled model). A fixed scale is a plain
// float in Keras: nothing is tracked, and nothing saved.

absl::StatusOr<int> KerasObjectGraphBuilder::AddModel(const nn::Model& model) {
  return AddLayer(model);
}

absl::StatusOr<int> KerasObjectGraphBuilder::AddLayer(const nn::Layer& layer) {
  auto found = layers_.find(&layer);
  if (found != layers_.end()) return found->second;
  const int node = graph_.AddNode();
  layers_[&layer] = node;
  if (const auto* model = dynamic_cast<const nn::Model*>(&layer)) {
    int weighted = 0;
    const auto layers = model->layers();
    for (size_t i = 0; i < layers.size(); ++i) {
      TFD_ASSIGN_OR_RETURN(const int child, AddLayer(*layers[i]));
      if (!layers[i]->weights().empty()) {
        graph_.AddChild(node, absl::StrCat("layer_with_weights-", weighted++), child);
      }
      graph_.AddChild(node, absl::StrCat("layer-", i), child);
    }
    if (model->optimizer() != nullptr) {
      TFD_ASSIGN_OR_RETURN(const int optimizer, AddOptimizer(*model->optimizer()));
      graph_.AddChild(node, "optimizer", optimizer);
    }
    return node;
  }
  // Keras's normalization layers keep `axis` as a tracked (empty) list.
  if (layer.class_name() == "BatchNormalization" || layer.class_name() == "LayerNormalization") {
    graph_.AddChild(node, "axis", graph_.AddNode());
  }
  for (const nn::Weight& weight : layer.weights()) {
    graph_.AddChild(node, AttributeName(layer, *weight), AddVariable(weight));
  }
  return node;
}

int KerasObjectGraphBuilder::AddVariable(const std::shared_ptr<DistributedVariable>& var) {
  auto found = variables_.find(var.get());
  if (found != variables_.end()) return found->second;
  const int node = graph_.AddNode(VariableValue(var));
  variables_[var.get()] = node;
  return node;
}

int KerasObjectGraphBuilder::AddSlot(const nn::Optimizer& optimizer,
                                     const std::shared_ptr<DistributedVariable>& var) {
  if (wrappers_.count(&optimizer) == 0) return AddVariable(var);
  auto found = variables_.find(var.get());
  if (found != variables_.end()) return found->second;
  // tf-keras builds the slots of a wrapped optimizer outside the
  // optimizer's name scope: "m/dense/kernel", not "Adam/m/dense/kernel".
  SaveableValue value = VariableValue(var);
  const std::string prefix = optimizer.name() + "/";
  if (absl::StartsWith(value.full_name, prefix)) value.full_name.erase(0, prefix.size());
  const int node = graph_.AddNode(std::move(value));
  variables_[var.get()] = node;
  return node;
}

absl::StatusOr<int> KerasObjectGraphBuilder::AddOptimizer(nn::Optimizer& optimizer) {
  auto found = optimizers_.find(&optimizer);
  if (found != optimizers_.end()) return found->second;
  // A LossScaleOptimizer's node has its inner optimizer's edges (Note
  // [Loss scale in the object graph]).
  auto* scaled = dynamic_cast<nn::LossScaleOptimizer*>(&optimizer);
  nn::Optimizer& tracked = scaled != nullptr ? scaled->inner_optimizer() : optimizer;
  if (scaled != nullptr) wrappers_[&tracked] = scaled;
  TFD_ASSIGN_OR_RETURN(std::vector<Edge> edges, OptimizerEdges(tracked));
  auto wrapper = wrappers_.find(&tracked);
  if (wrapper != wrappers_.end() && wrapper->second->dynamic()) {
    // After the learning rate: where Keras tracks it when the optimizer is
    // wrapped before its first step (compile() does so).
    auto rate = std::find_if(edges.begin(), edges.end(), [](const Edge& e) {
      return e.first == "_learning_rate" || e.first == "_current_learning_rate";
    });
    edges.insert(rate == edges.end() ? rate : rate + 1,
                 Edge("loss_scale", LossScaleNode(*wrapper->second)));
  }
  const int node = graph_.AddNode();
  optimizers_[&optimizer] = node;
  for (Edge& edge : edges) graph_.AddChild(node, std::move(edge.first), edge.second);
  return node;
}

int KerasObjectGraphBuilder::LossScaleNode(const nn::LossScaleOptimizer& optimizer) {
  auto found = loss_scales_.find(&optimizer);
  if (found != loss_scales_.end()) return found->second;
  const int node = graph_.AddNode();
  loss_scales_[&optimizer] = node;
  graph_.AddChild(node, "current_loss_scale",
                  graph_.AddNode(LossScaleStateValue(optimizer.current_loss_scale())));
  graph_.AddChild(node, "good_steps", graph_.AddNode(LossScaleStateValue(optimizer.good_steps())));
  return node;
}

absl::StatusOr<std::vector<KerasObjectGraphBuilder::Edge>> KerasObjectGraphBuilder::OptimizerEdges(
    nn::Optimizer& optimizer) {
  auto found = optimizer_edges_.find(&optimizer);
  if (found != optimizer_edges_.end()) return found->second;
  const std::vector<std::shared_ptr<DistributedVariable>> variables = optimizer.variables();
  bool has_vhat = false;
  for (const auto& var : variables) has_vhat |= SlotNameOf(optimizer, *var) == "vhat";
  TFD_ASSIGN_OR_RETURN(std::vector<SlotList> lists, SlotListsOf(optimizer, has_vhat));

  std::vector<Edge>& edges = optimizer_edges_[&optimizer];
  const bool schedule = optimizer.learning_rate().is_schedule();
  const char* rate_name = schedule ? "_current_learning_rate" : "_learning_rate";
  const std::shared_ptr<DistributedVariable> iterations = optimizer.iterations();
  if (iterations == nullptr) {
    edges.emplace_back("_iterations", graph_.AddNode(UnbuiltIterationsValue(optimizer)));
    edges.emplace_back(rate_name, graph_.AddNode(LearningRateValue(optimizer)));
    return edges;
  }

  // variables() is the counter then the slots in creation order: Keras's
  // `_variables` list.
  const int list = graph_.AddNode();
  for (size_t i = 0; i < variables.size(); ++i) {
    graph_.AddChild(list, absl::StrCat(i),
                    variables[i] == iterations ? AddVariable(iterations)
                                               : AddSlot(optimizer, variables[i]));
  }
  edges.emplace_back("_variables", list);
  edges.emplace_back("_iterations", AddVariable(iterations));
  edges.emplace_back(rate_name, graph_.AddNode(LearningRateValue(optimizer)));
  edges.emplace_back("_index_dict", graph_.AddNode());
  for (const SlotList& kind : lists) {
    const int slots = graph_.AddNode();
    int index = 0;
    for (const auto& var : variables) {
      if (var != iterations && SlotNameOf(optimizer, *var) == kind.slot) {
        graph_.AddChild(slots, absl::StrCat(index++), AddSlot(optimizer, var));
      }
    }
    edges.emplace_back(kind.attribute, slots);
  }
  return edges;
}

}  // namespace savedmodel
}  // namespace tfd
