// TFD_Model, building: Sequential models layer by layer and models from
// Keras JSON, under the model's strategy. Layers are made from Keras
// configs (nn::LayerFromConfig), so a layer added through C takes the same
// options and gives the same errors as one read from model.to_json().
#include <functional>
#include <memory>
#include <new>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "c_api/internal/guard.h"
#include "c_api/internal/model_scope.h"
#include "c_api/internal/tfd_structs.h"
#include "core/nn/input_layer.h"
#include "core/nn/layer_from_config.h"
#include "core/nn/model_from_json.h"
#include "tfd/model.h"

namespace tfd {
namespace capi {
namespace {

using io::JsonValue;

std::shared_ptr<distribute::Strategy> StrategyOf(const TFD_Strategy* strategy) {
  if (strategy != nullptr) return strategy->strategy;
  return std::shared_ptr<distribute::Strategy>(std::shared_ptr<distribute::Strategy>(),
                                               &distribute::DefaultStrategy());
}

absl::StatusOr<std::shared_ptr<nn::Sequential>> SequentialOf(const char* where, TFD_Model* model) {
  TFD_RETURN_IF_ERROR(NotNull(where, model, "model"));
  if (model->sequential == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": layers can only be appended to a Sequential model, \"", model->model->name(),
        "\" is a ", model->model->class_name()));
  }
  return model->sequential;
}

JsonValue Int(int64_t value) {
  return JsonValue::Number(std::to_string(value), static_cast<double>(value));
}

absl::StatusOr<JsonValue> IntList(const char* where, const char* what, const int64_t* values,
                                  int n, int min_n, int max_n) {
  if (n < min_n || n > max_n || (n > 0 && values == nullptr)) {
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", what, " needs ", min_n, " to ",
                                                   max_n, " values, got ", n,
                                                   values == nullptr ? " (NULL)" : ""));
  }
  std::vector<JsonValue> items;
  for (int i = 0; i < n; ++i) items.push_back(Int(values[i]));
  return JsonValue::Array(std::move(items));
}

// Appends layer `class_name` with config `args` + `options`; an option may
// not repeat an argument of the function.
absl::Status AddLayer(const char* where, TFD_Model* model, const char* class_name,
                      JsonValue::Members args, const TFD_Options* options) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Sequential> sequential, SequentialOf(where, model));
  if (options != nullptr) {
    for (const auto& [key, value] : options->entries) {
      for (const auto& [arg, unused] : args) {
        if (key == arg) {
          return absl::InvalidArgumentError(
              absl::StrCat(where, ": \"", key, "\" is an argument of ", where,
                           ", not an option"));
        }
      }
      args.emplace_back(key, value);
    }
  }
  const JsonValue entry = JsonValue::Object(
      {{"class_name", JsonValue::String(class_name)}, {"config", JsonValue::Object(args)}});
  ModelScope scope(*model);
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Layer> layer, nn::LayerFromConfig(entry));
  return sequential->Add(std::move(layer));
}

JsonValue::Members WithActivation(JsonValue::Members args, const char* activation) {
  if (activation != nullptr) args.emplace_back("activation", JsonValue::String(activation));
  return args;
}

TFD_Model* NewModel(const char* where, TF_Status* status, TFD_Strategy* strategy,
                    const std::function<absl::StatusOr<std::shared_ptr<nn::Model>>()>& make) {
  return Guard<TFD_Model*>(where, status, nullptr, [&]() -> absl::StatusOr<TFD_Model*> {
    auto handle = std::make_unique<TFD_Model>();
    handle->strategy = StrategyOf(strategy);
    {
      ModelScope scope(*handle);
      TFD_ASSIGN_OR_RETURN(handle->model, make());
    }
    handle->sequential = std::dynamic_pointer_cast<nn::Sequential>(handle->model);
    return handle.release();
  });
}

void AddPooling2D(const char* where, const char* class_name, TFD_Model* model,
                         const int64_t* pool_size, int num_pool_dims, const TFD_Options* options,
                         TF_Status* status) {
  GuardVoid(where, status, [&]() -> absl::Status {
    JsonValue::Members args;
    if (num_pool_dims != 0 || pool_size != nullptr) {
      TFD_ASSIGN_OR_RETURN(JsonValue pool,
                           IntList(where, "pool_size", pool_size, num_pool_dims, 1, 2));
      args.emplace_back("pool_size", std::move(pool));
    }
    return AddLayer(where, model, class_name, std::move(args), options);
  });
}

}  // namespace
}  // namespace capi
}  // namespace tfd

extern "C" {

using tfd::capi::AddLayer;
using tfd::capi::GuardVoid;
using tfd::capi::IntList;
using tfd::capi::WithActivation;
using tfd::io::JsonValue;

TFD_Model* TFD_NewSequential(TFD_Strategy* strategy, const char* name, TF_Status* status) {
  return tfd::capi::NewModel(
      "TFD_NewSequential", status, strategy,
      [&]() -> absl::StatusOr<std::shared_ptr<tfd::nn::Model>> {
        tfd::nn::LayerOptions options;
        if (name != nullptr) options.name = name;
        return std::shared_ptr<tfd::nn::Model>(std::make_shared<tfd::nn::Sequential>(options));
      });
}

TFD_Model* TFD_NewModelFromKerasJson(TFD_Strategy* strategy, const char* json,
                                     TF_Status* status) {
  return tfd::capi::NewModel(
      "TFD_NewModelFromKerasJson", status, strategy,
      [&]() -> absl::StatusOr<std::shared_ptr<tfd::nn::Model>> {
        TFD_RETURN_IF_ERROR(tfd::capi::NotNull("TFD_NewModelFromKerasJson", json, "json"));
        return tfd::nn::ModelFromJson(json);
      });
}

void TFD_DeleteModel(TFD_Model* model) { delete model; }

void TFD_AddInput(TFD_Model* model, const int64_t* shape, int num_dims, TF_DataType dtype,
                  TF_Status* status) {
  GuardVoid("TFD_AddInput", status, [&]() -> absl::Status {
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<tfd::nn::Sequential> sequential,
                         tfd::capi::SequentialOf("TFD_AddInput", model));
    TFD_ASSIGN_OR_RETURN(JsonValue dims, IntList("TFD_AddInput", "shape", shape, num_dims, 0, 16));
    tfd::nn::Shape batch_shape = {tfd::nn::kNone};
    for (const JsonValue& d : dims.items()) {
      if (d.number_value() < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "TFD_AddInput: dimensions must be >= 0, got ", d.text()));
      }
      batch_shape.push_back(static_cast<int64_t>(d.number_value()));
    }
    const tfd::DataType tfd_dtype = tfd::capi::ToDataType(dtype);
    if (tfd::DataTypeSize(tfd_dtype) == 0) {
      return absl::InvalidArgumentError(absl::StrCat("TFD_AddInput: unsupported dtype ",
                                                     static_cast<int>(tfd_dtype)));
    }
    tfd::capi::ModelScope scope(*model);
    return sequential->Add(tfd::nn::MakeInputLayer(batch_shape, tfd_dtype));
  });
}

void TFD_AddDense(TFD_Model* model, int64_t units, const char* activation,
                  const TFD_Options* options, TF_Status* status) {
  GuardVoid("TFD_AddDense", status, [&] {
    return AddLayer("TFD_AddDense", model, "Dense",
                    WithActivation({{"units", tfd::capi::Int(units)}}, activation), options);
  });
}

void TFD_AddConv2D(TFD_Model* model, int64_t filters, const int64_t* kernel_size,
                   int num_kernel_dims, const char* activation, const TFD_Options* options,
                   TF_Status* status) {
  GuardVoid("TFD_AddConv2D", status, [&]() -> absl::Status {
    TFD_ASSIGN_OR_RETURN(JsonValue kernel, IntList("TFD_AddConv2D", "kernel_size", kernel_size,
                                                   num_kernel_dims, 1, 2));
    return AddLayer("TFD_AddConv2D", model, "Conv2D",
                    WithActivation({{"filters", tfd::capi::Int(filters)},
                                    {"kernel_size", std::move(kernel)}},
                                   activation),
                    options);
  });
}

void TFD_AddMaxPooling2D(TFD_Model* model, const int64_t* pool_size, int num_pool_dims,
                         const TFD_Options* options, TF_Status* status) {
  tfd::capi::AddPooling2D("TFD_AddMaxPooling2D", "MaxPooling2D", model, pool_size, num_pool_dims, options,
               status);
}

void TFD_AddAveragePooling2D(TFD_Model* model, const int64_t* pool_size, int num_pool_dims,
                             const TFD_Options* options, TF_Status* status) {
  tfd::capi::AddPooling2D("TFD_AddAveragePooling2D", "AveragePooling2D", model, pool_size, num_pool_dims,
               options, status);
}

void TFD_AddGlobalAveragePooling2D(TFD_Model* model, const TFD_Options* options,
                                   TF_Status* status) {
  GuardVoid("TFD_AddGlobalAveragePooling2D", status, [&] {
    return AddLayer("TFD_AddGlobalAveragePooling2D", model, "GlobalAveragePooling2D", {},
                    options);
  });
}

void TFD_AddFlatten(TFD_Model* model, const TFD_Options* options, TF_Status* status) {
  GuardVoid("TFD_AddFlatten", status,
            [&] { return AddLayer("TFD_AddFlatten", model, "Flatten", {}, options); });
}

void TFD_AddReshape(TFD_Model* model, const int64_t* target_shape, int num_dims,
                    const TFD_Options* options, TF_Status* status) {
  GuardVoid("TFD_AddReshape", status, [&]() -> absl::Status {
    TFD_ASSIGN_OR_RETURN(JsonValue target,
                         IntList("TFD_AddReshape", "target_shape", target_shape, num_dims, 1, 16));
    return AddLayer("TFD_AddReshape", model, "Reshape", {{"target_shape", std::move(target)}},
                    options);
  });
}

void TFD_AddDropout(TFD_Model* model, double rate, const TFD_Options* options,
                    TF_Status* status) {
  GuardVoid("TFD_AddDropout", status, [&] {
    return AddLayer("TFD_AddDropout", model, "Dropout",
                    {{"rate", JsonValue::Number(absl::StrCat(rate), rate)}}, options);
  });
}

void TFD_AddActivation(TFD_Model* model, const char* activation, const TFD_Options* options,
                       TF_Status* status) {
  GuardVoid("TFD_AddActivation", status, [&]() -> absl::Status {
    TFD_RETURN_IF_ERROR(tfd::capi::NotNull("TFD_AddActivation", activation, "activation"));
    return AddLayer("TFD_AddActivation", model, "Activation",
                    {{"activation", JsonValue::String(activation)}}, options);
  });
}

void TFD_AddBatchNormalization(TFD_Model* model, const TFD_Options* options, TF_Status* status) {
  GuardVoid("TFD_AddBatchNormalization", status, [&] {
    return AddLayer("TFD_AddBatchNormalization", model, "BatchNormalization", {}, options);
  });
}

void TFD_AddLayerFromKerasJson(TFD_Model* model, const char* layer_json, TF_Status* status) {
  GuardVoid("TFD_AddLayerFromKerasJson", status, [&]() -> absl::Status {
    constexpr char kWhere[] = "TFD_AddLayerFromKerasJson";
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<tfd::nn::Sequential> sequential,
                         tfd::capi::SequentialOf(kWhere, model));
    TFD_RETURN_IF_ERROR(tfd::capi::NotNull(kWhere, layer_json, "layer_json"));
    TFD_ASSIGN_OR_RETURN(JsonValue entry, tfd::io::ParseJson(layer_json));
    tfd::capi::ModelScope scope(*model);
    TFD_ASSIGN_OR_RETURN(std::shared_ptr<tfd::nn::Layer> layer, tfd::nn::LayerFromConfig(entry));
    return sequential->Add(std::move(layer));
  });
}

TF_Buffer* TFD_ModelSummary(TFD_Model* model, TF_Status* status) {
  return tfd::capi::Guard<TF_Buffer*>(
      "TFD_ModelSummary", status, nullptr, [&]() -> absl::StatusOr<TF_Buffer*> {
        TFD_RETURN_IF_ERROR(tfd::capi::NotNull("TFD_ModelSummary", model, "model"));
        TFD_ASSIGN_OR_RETURN(std::string text, model->model->Summary());
        TF_Buffer* buffer = TF_NewBufferFromString(text.data(), text.size());
        if (buffer == nullptr) return absl::ResourceExhaustedError("TFD_ModelSummary: no memory");
        return buffer;
      });
}

}  // extern "C"
