#include "core/nn/model_from_json.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/io/json.h"
#include "core/nn/functional.h"
#include "core/nn/input_layer.h"
#include "core/nn/keras_config.h"
#include "core/nn/layer_from_config.h"
#include "core/nn/sequential.h"

namespace tfd {
namespace nn {
namespace {

using io::JsonValue;

const std::string& ClassName(const JsonValue& entry) {
  static const std::string kNoClass;
  const JsonValue* c = entry.Find("class_name");
  return c != nullptr && c->is_string() ? c->text() : kNoClass;
}

absl::StatusOr<std::shared_ptr<InputLayer>> InputLayerFromConfig(const JsonValue& entry) {
  KerasConfig config("InputLayer", entry.Find("config"));
  TFD_RETURN_IF_ERROR(config.Valid());
  TFD_ASSIGN_OR_RETURN(std::string name, config.String("name", ""));
  TFD_ASSIGN_OR_RETURN(std::string dtype_name, config.String("dtype", "float32"));
  TFD_ASSIGN_OR_RETURN(DataType dtype, KerasDtype(dtype_name));
  TFD_ASSIGN_OR_RETURN(std::optional<Shape> batch_shape, config.OptionalShape("batch_input_shape"));
  if (!batch_shape.has_value() || batch_shape->empty()) {
    return config.Error(absl::StatusCode::kInvalidArgument,
                        "\"batch_input_shape\" with a batch dimension is required");
  }
  TFD_RETURN_IF_ERROR(config.ExpectFalse("sparse"));
  TFD_RETURN_IF_ERROR(config.ExpectFalse("ragged"));
  TFD_RETURN_IF_ERROR(config.ExpectFalse("optional"));
  TFD_RETURN_IF_ERROR(config.Finish());
  return MakeInputLayer(*batch_shape, dtype, name);
}

// A layer entry of either model kind: InputLayer or a layer tfd has.
// Nested models are refused by name.
absl::StatusOr<std::shared_ptr<Layer>> AnyLayerFromConfig(const JsonValue& entry) {
  const std::string& cls = ClassName(entry);
  if (cls == "InputLayer") {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<InputLayer> input, InputLayerFromConfig(entry));
    return std::shared_ptr<Layer>(std::move(input));
  }
  if (cls == "Sequential" || cls == "Functional" || cls == "Model") {
    return absl::UnimplementedError(
        absl::StrCat("a ", cls, " model used as a layer of another model is not supported"));
  }
  return LayerFromConfig(entry);
}

absl::StatusOr<LayerOptions> ModelOptions(const JsonValue& config) {
  LayerOptions options;
  const JsonValue* name = config.Find("name");
  if (name != nullptr && name->is_string()) options.name = name->text();
  return options;
}

const JsonValue* LayerList(const JsonValue& config) {
  const JsonValue* layers = config.Find("layers");
  return layers != nullptr && layers->is_array() ? layers : nullptr;
}

absl::StatusOr<std::shared_ptr<Model>> SequentialFromConfig(const JsonValue& config) {
  TFD_ASSIGN_OR_RETURN(LayerOptions options, ModelOptions(config));
  auto model = std::make_shared<Sequential>(options);
  for (const JsonValue& entry : LayerList(config)->items()) {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<Layer> layer, AnyLayerFromConfig(entry));
    TFD_RETURN_IF_ERROR(model->Add(std::move(layer)));
  }
  return std::shared_ptr<Model>(std::move(model));
}

// One reference to a layer's output: [layer_name, node_index, tensor_index].
struct TensorRef {
  std::string layer;
  int64_t node = 0;
  int64_t tensor = 0;
};

absl::StatusOr<TensorRef> ParseRef(const JsonValue& v, absl::string_view what) {
  const auto& items = v.items();
  if (!v.is_array() || items.size() < 3 || !items[0].is_string() || !items[1].is_number() ||
      !items[2].is_number()) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": expected [layer_name, node_index, tensor_index]"));
  }
  if (items.size() > 3 && !(items[3].is_object() && items[3].members().empty())) {
    return absl::UnimplementedError(
        absl::StrCat(what, " of layer \"", items[0].text(),
                     "\" passes call arguments, which tfd does not support"));
  }
  return TensorRef{items[0].text(), static_cast<int64_t>(items[1].number_value()),
                   static_cast<int64_t>(items[2].number_value())};
}

// input_layers / output_layers: a list of refs (or a single ref).
absl::StatusOr<std::vector<TensorRef>> ParseRefList(const JsonValue* v, absl::string_view what) {
  if (v == nullptr || !v->is_array()) {
    return absl::InvalidArgumentError(absl::StrCat("Functional config: \"", what,
                                                   "\" must be a list"));
  }
  std::vector<TensorRef> refs;
  if (!v->items().empty() && v->items()[0].is_string()) {
    TFD_ASSIGN_OR_RETURN(TensorRef ref, ParseRef(*v, what));
    refs.push_back(std::move(ref));
    return refs;
  }
  for (const JsonValue& item : v->items()) {
    TFD_ASSIGN_OR_RETURN(TensorRef ref, ParseRef(item, what));
    refs.push_back(std::move(ref));
  }
  return refs;
}

class FunctionalReader {
 public:
  absl::StatusOr<std::shared_ptr<Model>> Read(const JsonValue& config) {
    // Make every layer first, then replay their calls.
    for (const JsonValue& entry : LayerList(config)->items()) {
      TFD_ASSIGN_OR_RETURN(std::shared_ptr<Layer> layer, AnyLayerFromConfig(entry));
      if (layers_.count(layer->name()) != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("Functional config: two layers are named \"", layer->name(), "\""));
      }
      const JsonValue* nodes = entry.Find("inbound_nodes");
      if (nodes != nullptr && !nodes->is_array()) {
        return absl::InvalidArgumentError(
            absl::StrCat("layer \"", layer->name(), "\": \"inbound_nodes\" must be a list"));
      }
      if (auto input = std::dynamic_pointer_cast<InputLayer>(layer)) {
        outputs_[layer->name()].push_back(input->output());
      } else if (nodes != nullptr) {
        pending_.push_back({layer, &nodes->items(), 0});
      }
      layers_[layer->name()] = layer;
    }
    TFD_RETURN_IF_ERROR(ReplayNodes());
    TFD_ASSIGN_OR_RETURN(std::vector<KerasTensor> inputs,
                         Resolve(config.Find("input_layers"), "input_layers"));
    TFD_ASSIGN_OR_RETURN(std::vector<KerasTensor> outputs,
                         Resolve(config.Find("output_layers"), "output_layers"));
    TFD_ASSIGN_OR_RETURN(LayerOptions options, ModelOptions(config));
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<Functional> model,
                         Functional::Make(inputs, outputs, options));
    return std::shared_ptr<Model>(std::move(model));
  }

 private:
  struct Pending {
    std::shared_ptr<Layer> layer;
    const std::vector<JsonValue>* nodes;
    size_t next;  // The next node of `nodes` to replay.
  };

  // The output of `ref` once it exists, else null.
  const KerasTensor* Find(const TensorRef& ref) const {
    auto it = outputs_.find(ref.layer);
    if (it == outputs_.end() || ref.node < 0 || ref.node >= static_cast<int64_t>(it->second.size()))
      return nullptr;
    return &it->second[ref.node];
  }

  // Keras's from_config loop: sweep the layers, replaying each one's next
  // node when its inputs exist, until a sweep makes no progress.
  absl::Status ReplayNodes() {
    bool progress = true;
    while (progress) {
      progress = false;
      for (Pending& p : pending_) {
        while (p.next < p.nodes->size()) {
          TFD_ASSIGN_OR_RETURN(bool done, ReplayNode(p));
          if (!done) break;
          ++p.next;
          progress = true;
        }
      }
    }
    for (const Pending& p : pending_) {
      if (p.next < p.nodes->size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("Functional config: node ", p.next, " of layer \"", p.layer->name(),
                         "\" needs a tensor that no layer produces"));
      }
    }
    return absl::OkStatus();
  }

  // Calls the layer on the node's inputs; false when one is not there yet.
  absl::StatusOr<bool> ReplayNode(Pending& p) {
    const JsonValue& node = (*p.nodes)[p.next];
    const std::string what = absl::StrCat("inbound node ", p.next, " of \"", p.layer->name(), "\"");
    if (!node.is_array() || node.items().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " must be a non-empty list"));
    }
    std::vector<KerasTensor> inputs;
    for (const JsonValue& item : node.items()) {
      TFD_ASSIGN_OR_RETURN(TensorRef ref, ParseRef(item, what));
      if (ref.tensor != 0) {
        return absl::UnimplementedError(
            absl::StrCat(what, ": layers with several outputs are not supported"));
      }
      const KerasTensor* input = Find(ref);
      if (input == nullptr) return false;
      inputs.push_back(*input);
    }
    absl::StatusOr<KerasTensor> output =
        inputs.size() == 1 ? (*p.layer)(inputs[0]) : (*p.layer)(inputs);
    if (!output.ok()) return output.status();
    outputs_[p.layer->name()].push_back(*std::move(output));
    return true;
  }

  absl::StatusOr<std::vector<KerasTensor>> Resolve(const JsonValue* list, absl::string_view what) {
    TFD_ASSIGN_OR_RETURN(std::vector<TensorRef> refs, ParseRefList(list, what));
    std::vector<KerasTensor> tensors;
    for (const TensorRef& ref : refs) {
      const KerasTensor* t = Find(ref);
      if (t == nullptr || ref.tensor != 0) {
        return absl::InvalidArgumentError(absl::StrCat("Functional config: ", what, " names [\"",
                                                       ref.layer, "\", ", ref.node, ", ",
                                                       ref.tensor, "], which does not exist"));
      }
      tensors.push_back(*t);
    }
    return tensors;
  }

  std::map<std::string, std::shared_ptr<Layer>> layers_;
  std::map<std::string, std::vector<KerasTensor>> outputs_;
  std::vector<Pending> pending_;
};

}  // namespace

absl::StatusOr<std::shared_ptr<Model>> ModelFromJson(absl::string_view json) {
  TFD_ASSIGN_OR_RETURN(JsonValue root, io::ParseJson(json));
  const std::string& cls = ClassName(root);
  const JsonValue* config = root.Find("config");
  if (cls.empty() || config == nullptr || !config->is_object()) {
    return absl::InvalidArgumentError(
        "not a Keras model: expected {\"class_name\": ..., \"config\": {...}}");
  }
  if (cls != "Sequential" && cls != "Functional" && cls != "Model") {
    return absl::UnimplementedError(absl::StrCat(
        "model class \"", cls, "\" is not supported; tfd reads Sequential and Functional"));
  }
  if (LayerList(*config) == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(cls, " config: \"layers\" must be a list of layers"));
  }
  if (cls == "Sequential") return SequentialFromConfig(*config);
  return FunctionalReader().Read(*config);
}

}  // namespace nn
}  // namespace tfd
