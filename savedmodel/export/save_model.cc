#include "savedmodel/export/save_model.h"

#include "core/framework/status.h"
#include "core/graph/tracer.h"
#include "core/nn/functional.h"
#include "core/nn/sequential.h"
#include "savedmodel/export/saved_model_writer.h"

namespace tfd {
namespace savedmodel {
namespace {

struct ModelInput {
  std::string key;
  DataType dtype;
  nn::Shape shape;
};

absl::StatusOr<std::vector<ModelInput>> ModelInputs(nn::Model& model, const SaveOptions& options) {
  std::vector<nn::KerasTensor> symbolic;
  if (auto* seq = dynamic_cast<nn::Sequential*>(&model); seq != nullptr && seq->input().defined()) {
    symbolic = {seq->input()};
  } else if (auto* fn = dynamic_cast<nn::Functional*>(&model)) {
    symbolic = fn->inputs();
  }
  std::vector<ModelInput> inputs;
  if (options.input_shape.has_value()) {
    if (symbolic.size() > 1) {
      return InvalidArgument("SaveModel: input_shape is for single-input models; '",
                             model.name(), "' has ", symbolic.size(), " inputs");
    }
    const std::string key = symbolic.empty() ? "inputs" : symbolic[0].layer()->name();
    inputs.push_back({key, model.dtype(), *options.input_shape});
  } else {
    for (const nn::KerasTensor& t : symbolic) {
      inputs.push_back({t.layer()->name(), t.dtype(), t.shape()});
    }
  }
  if (inputs.empty()) {
    return FailedPrecondition("SaveModel: the input shape of model '", model.name(),
                              "' is unknown; give it an InputLayer or SaveOptions::input_shape");
  }
  if (!options.input_keys.empty()) {
    if (options.input_keys.size() != inputs.size()) {
      return InvalidArgument("SaveModel: ", options.input_keys.size(), " input keys for ",
                             inputs.size(), " inputs");
    }
    for (size_t i = 0; i < inputs.size(); ++i) inputs[i].key = options.input_keys[i];
  }
  return inputs;
}

}  // namespace

absl::Status SaveModel(nn::Model& model, const std::string& export_dir,
                       const SaveOptions& options) {
  TFD_ASSIGN_OR_RETURN(std::vector<ModelInput> inputs, ModelInputs(model, options));
  std::vector<graph::TraceInput> trace_inputs;
  std::vector<nn::Shape> shapes;
  ExportSpec spec;
  for (const ModelInput& in : inputs) {
    // Placeholders are named as tf.saved_model.save names them.
    trace_inputs.push_back({"serving_default_" + in.key, in.dtype, in.shape});
    shapes.push_back(in.shape);
    spec.input_keys.push_back(in.key);
  }
  auto call = [&model](const std::vector<Tensor>& x) -> absl::StatusOr<std::vector<Tensor>> {
    TFD_ASSIGN_OR_RETURN(Tensor y, model.Call(x, /*training=*/false));
    return std::vector<Tensor>{y};
  };
  TFD_ASSIGN_OR_RETURN(spec.traced, graph::TraceFunction(call, trace_inputs));
  TFD_ASSIGN_OR_RETURN(nn::Shape out_shape, model.ComputeOutputShape(shapes));
  std::string output_key = options.output_key;
  if (output_key.empty()) {
    const auto layers = model.layers();
    output_key = layers.empty() ? "outputs" : layers.back()->name();
  }
  spec.outputs.push_back({output_key, out_shape});
  return WriteSavedModel(std::move(spec), export_dir);
}

}  // namespace savedmodel
}  // namespace tfd
