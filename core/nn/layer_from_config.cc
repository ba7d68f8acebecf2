#include "core/nn/layer_from_config.h"

#include <algorithm>
#include <functional>
#include <type_traits>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/framework/status.h"
#include "core/nn/activation_layer.h"
#include "core/nn/batch_normalization.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/dropout.h"
#include "core/nn/embedding.h"
#include "core/nn/keras_config.h"
#include "core/nn/merging.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/zero_padding2d.h"

namespace tfd {
namespace nn {
namespace {

using LayerPtr = std::shared_ptr<Layer>;
using Builder = std::function<absl::StatusOr<LayerPtr>(KerasConfig&, const LayerOptions&)>;

// Keras's "linear" is tfd's empty activation.
absl::StatusOr<std::string> ActivationName(KerasConfig& config) {
  TFD_ASSIGN_OR_RETURN(std::string name, config.String("activation", "linear"));
  return name == "linear" ? std::string() : name;
}

// Regularizers, constraints and channels_first have no tfd counterpart.
absl::Status ExpectDefaults(KerasConfig& config, std::initializer_list<const char*> null_keys,
                            bool has_data_format) {
  for (const char* key : null_keys) TFD_RETURN_IF_ERROR(config.Expect(key, std::nullopt));
  if (has_data_format) TFD_RETURN_IF_ERROR(config.Expect("data_format", "channels_last"));
  return absl::OkStatus();
}

// The settings Dense and the convolutions share: the activation, the bias
// and both initializers; their regularizers and constraints must be null.
template <typename Options>
absl::Status ReadKernelAndBias(KerasConfig& config, bool has_data_format, Options* options) {
  TFD_ASSIGN_OR_RETURN(options->activation, ActivationName(config));
  TFD_ASSIGN_OR_RETURN(options->use_bias, config.Bool("use_bias", true));
  TFD_ASSIGN_OR_RETURN(options->kernel_initializer,
                       config.Initializer("kernel_initializer", GlorotUniform()));
  TFD_ASSIGN_OR_RETURN(options->bias_initializer,
                       config.Initializer("bias_initializer", Zeros()));
  return ExpectDefaults(config,
                        {"kernel_regularizer", "bias_regularizer", "activity_regularizer",
                         "kernel_constraint", "bias_constraint"},
                        has_data_format);
}

absl::StatusOr<LayerPtr> MakeDense(KerasConfig& config, const LayerOptions& layer) {
  DenseOptions options;
  options.layer = layer;
  TFD_ASSIGN_OR_RETURN(int64_t units, config.Int("units"));
  TFD_RETURN_IF_ERROR(ReadKernelAndBias(config, /*has_data_format=*/false, &options));
  return LayerPtr(std::make_shared<Dense>(units, std::move(options)));
}

absl::StatusOr<LayerPtr> MakeConv(int rank, KerasConfig& config, const LayerOptions& layer) {
  ConvOptions options;
  options.layer = layer;
  TFD_ASSIGN_OR_RETURN(int64_t filters, config.Int("filters"));
  TFD_ASSIGN_OR_RETURN(std::vector<int64_t> kernel_size, config.IntList("kernel_size", {}));
  TFD_ASSIGN_OR_RETURN(options.strides, config.IntList("strides", 1));
  TFD_ASSIGN_OR_RETURN(options.padding, config.String("padding", "valid"));
  TFD_ASSIGN_OR_RETURN(options.dilation_rate, config.IntList("dilation_rate", 1));
  TFD_ASSIGN_OR_RETURN(options.groups, config.Int("groups", 1));
  TFD_RETURN_IF_ERROR(ReadKernelAndBias(config, /*has_data_format=*/true, &options));
  if (rank == 1) {
    if (kernel_size.size() != 1) {
      return config.Error(absl::StatusCode::kInvalidArgument,
                          "\"kernel_size\" must hold one integer");
    }
    return LayerPtr(std::make_shared<Conv1D>(filters, kernel_size[0], std::move(options)));
  }
  return LayerPtr(std::make_shared<Conv2D>(filters, kernel_size, std::move(options)));
}

template <typename PoolingLayer>
Builder MakePooling(int rank) {
  return [rank](KerasConfig& config, const LayerOptions& layer) -> absl::StatusOr<LayerPtr> {
    PoolingOptions options;
    options.layer = layer;
    TFD_ASSIGN_OR_RETURN(std::vector<int64_t> pool_size, config.IntList("pool_size", 2));
    TFD_ASSIGN_OR_RETURN(std::optional<Shape> strides, config.OptionalShape("strides"));
    if (strides.has_value()) options.strides = *strides;
    TFD_ASSIGN_OR_RETURN(options.padding, config.String("padding", "valid"));
    TFD_RETURN_IF_ERROR(ExpectDefaults(config, {}, true));
    if constexpr (std::is_constructible_v<PoolingLayer, int64_t, PoolingOptions>) {
      if (pool_size.size() != 1 || rank != 1) {
        return config.Error(absl::StatusCode::kInvalidArgument,
                            "\"pool_size\" must hold one integer");
      }
      return LayerPtr(std::make_shared<PoolingLayer>(pool_size[0], options));
    } else {
      return LayerPtr(std::make_shared<PoolingLayer>(pool_size, options));
    }
  };
}

template <typename GlobalPoolingLayer>
absl::StatusOr<LayerPtr> MakeGlobalPooling(KerasConfig& config, const LayerOptions& layer) {
  GlobalPoolingOptions options;
  options.layer = layer;
  TFD_ASSIGN_OR_RETURN(options.keepdims, config.Bool("keepdims", false));
  TFD_RETURN_IF_ERROR(ExpectDefaults(config, {}, true));
  return LayerPtr(std::make_shared<GlobalPoolingLayer>(options));
}

absl::StatusOr<LayerPtr> MakeFlatten(KerasConfig& config, const LayerOptions& layer) {
  TFD_RETURN_IF_ERROR(ExpectDefaults(config, {}, true));
  return LayerPtr(std::make_shared<Flatten>(layer));
}

absl::StatusOr<LayerPtr> MakeZeroPadding2D(KerasConfig& config, const LayerOptions& layer) {
  TFD_ASSIGN_OR_RETURN(std::vector<std::vector<int64_t>> padding,
                       config.NestedIntList("padding", 1));
  TFD_RETURN_IF_ERROR(ExpectDefaults(config, {}, true));
  return LayerPtr(std::make_shared<ZeroPadding2D>(padding, layer));
}

absl::StatusOr<LayerPtr> MakeReshape(KerasConfig& config, const LayerOptions& layer) {
  TFD_ASSIGN_OR_RETURN(std::vector<int64_t> target_shape, config.IntList("target_shape", {}));
  return LayerPtr(std::make_shared<Reshape>(std::move(target_shape), layer));
}

absl::StatusOr<LayerPtr> MakeDropout(KerasConfig& config, const LayerOptions& layer) {
  DropoutOptions options;
  options.layer = layer;
  TFD_ASSIGN_OR_RETURN(double rate, config.Double("rate", 0.0));
  TFD_ASSIGN_OR_RETURN(options.noise_shape, config.OptionalShape("noise_shape"));
  TFD_ASSIGN_OR_RETURN(options.seed, config.OptionalInt("seed"));
  return LayerPtr(std::make_shared<Dropout>(rate, std::move(options)));
}

absl::StatusOr<LayerPtr> MakeActivation(KerasConfig& config, const LayerOptions& layer) {
  TFD_ASSIGN_OR_RETURN(std::string activation, config.String("activation", "linear"));
  return LayerPtr(std::make_shared<Activation>(activation, layer));
}

absl::StatusOr<LayerPtr> MakeEmbedding(KerasConfig& config, const LayerOptions& layer) {
  EmbeddingOptions options;
  options.layer = layer;
  TFD_ASSIGN_OR_RETURN(int64_t input_dim, config.Int("input_dim"));
  TFD_ASSIGN_OR_RETURN(int64_t output_dim, config.Int("output_dim"));
  TFD_ASSIGN_OR_RETURN(options.embeddings_initializer,
                       config.Initializer("embeddings_initializer", RandomUniform()));
  TFD_ASSIGN_OR_RETURN(options.input_length, config.OptionalInt("input_length"));
  TFD_RETURN_IF_ERROR(config.ExpectFalse("mask_zero"));
  TFD_RETURN_IF_ERROR(config.ExpectFalse("sparse"));
  TFD_RETURN_IF_ERROR(ExpectDefaults(
      config, {"embeddings_regularizer", "activity_regularizer", "embeddings_constraint"}, false));
  return LayerPtr(std::make_shared<Embedding>(input_dim, output_dim, std::move(options)));
}

absl::StatusOr<LayerPtr> MakeBatchNormalization(KerasConfig& config, const LayerOptions& layer) {
  BatchNormalizationOptions options;
  options.layer = layer;
  // Keras writes the axis as a list once the layer is built ([3]).
  TFD_ASSIGN_OR_RETURN(std::vector<int64_t> axis, config.IntList("axis", -1));
  if (axis.size() != 1) {
    return config.Error(absl::StatusCode::kUnimplemented,
                        "normalizing over several axes is not supported by tfd");
  }
  options.axis = static_cast<int>(axis[0]);
  TFD_ASSIGN_OR_RETURN(options.momentum, config.Double("momentum", 0.99));
  TFD_ASSIGN_OR_RETURN(options.epsilon, config.Double("epsilon", 1e-3));
  TFD_ASSIGN_OR_RETURN(options.center, config.Bool("center", true));
  TFD_ASSIGN_OR_RETURN(options.scale, config.Bool("scale", true));
  TFD_ASSIGN_OR_RETURN(options.synchronized, config.Bool("synchronized", false));
  TFD_ASSIGN_OR_RETURN(options.beta_initializer, config.Initializer("beta_initializer", Zeros()));
  TFD_ASSIGN_OR_RETURN(options.gamma_initializer, config.Initializer("gamma_initializer", Ones()));
  TFD_ASSIGN_OR_RETURN(options.moving_mean_initializer,
                       config.Initializer("moving_mean_initializer", Zeros()));
  TFD_ASSIGN_OR_RETURN(options.moving_variance_initializer,
                       config.Initializer("moving_variance_initializer", Ones()));
  TFD_RETURN_IF_ERROR(ExpectDefaults(
      config, {"beta_regularizer", "gamma_regularizer", "beta_constraint", "gamma_constraint"},
      false));
  return LayerPtr(std::make_shared<BatchNormalization>(std::move(options)));
}

template <typename MergeLayer>
absl::StatusOr<LayerPtr> MakeMerge(KerasConfig&, const LayerOptions& layer) {
  return LayerPtr(std::make_shared<MergeLayer>(layer));
}

const std::map<std::string, Builder>& Builders() {
  static const auto* builders = new std::map<std::string, Builder>{
      {"Dense", MakeDense},
      {"Conv1D", [](KerasConfig& c, const LayerOptions& o) { return MakeConv(1, c, o); }},
      {"Conv2D", [](KerasConfig& c, const LayerOptions& o) { return MakeConv(2, c, o); }},
      {"MaxPooling1D", MakePooling<MaxPooling1D>(1)},
      {"MaxPooling2D", MakePooling<MaxPooling2D>(2)},
      {"AveragePooling1D", MakePooling<AveragePooling1D>(1)},
      {"AveragePooling2D", MakePooling<AveragePooling2D>(2)},
      {"GlobalAveragePooling1D", MakeGlobalPooling<GlobalAveragePooling1D>},
      {"GlobalAveragePooling2D", MakeGlobalPooling<GlobalAveragePooling2D>},
      {"GlobalMaxPooling1D", MakeGlobalPooling<GlobalMaxPooling1D>},
      {"GlobalMaxPooling2D", MakeGlobalPooling<GlobalMaxPooling2D>},
      {"Flatten", MakeFlatten},
      {"Reshape", MakeReshape},
      {"ZeroPadding2D", MakeZeroPadding2D},
      {"Dropout", MakeDropout},
      {"Activation", MakeActivation},
      {"Embedding", MakeEmbedding},
      {"BatchNormalization", MakeBatchNormalization},
      {"Add", MakeMerge<Add>},
      {"Subtract", MakeMerge<Subtract>},
      {"Multiply", MakeMerge<Multiply>},
      {"Average", MakeMerge<Average>},
      {"Maximum", MakeMerge<Maximum>},
      {"Minimum", MakeMerge<Minimum>},
  };
  return *builders;
}

}  // namespace

absl::StatusOr<std::shared_ptr<Layer>> LayerFromConfig(const io::JsonValue& entry) {
  const io::JsonValue* class_name = entry.Find("class_name");
  if (!entry.is_object() || class_name == nullptr || !class_name->is_string()) {
    return absl::InvalidArgumentError(
        "a layer must be a JSON object with a string \"class_name\"");
  }
  const auto& builders = Builders();
  auto it = builders.find(class_name->text());
  if (it == builders.end()) {
    return absl::UnimplementedError(absl::StrCat(
        "unknown layer class \"", class_name->text(), "\"; tfd supports ",
        absl::StrJoin(SupportedLayerClasses(), ", "), " and InputLayer"));
  }
  KerasConfig config(class_name->text(), entry.Find("config"));
  TFD_ASSIGN_OR_RETURN(LayerOptions options, config.Common());
  TFD_ASSIGN_OR_RETURN(LayerPtr layer, it->second(config, options));
  TFD_RETURN_IF_ERROR(config.Finish());
  return layer;
}

std::vector<std::string> SupportedLayerClasses() {
  std::vector<std::string> names;
  for (const auto& [name, builder] : Builders()) names.push_back(name);
  return names;
}

}  // namespace nn
}  // namespace tfd
