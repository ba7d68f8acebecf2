// The structs behind the TFD_ handles (tfd/*.h). Only c_api/ sees them.
#ifndef TFD_C_API_INTERNAL_TFD_STRUCTS_H_
#define TFD_C_API_INTERNAL_TFD_STRUCTS_H_

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/data/dataset.h"
#include "core/distribute/strategy.h"
#include "core/io/json.h"
#include "core/nn/losses.h"
#include "core/nn/metrics.h"
#include "core/nn/model.h"
#include "core/nn/optimizer.h"
#include "core/nn/sequential.h"
#include "savedmodel/checkpoint/checkpoint.h"

// Keras-style options as the JSON values a Keras config would hold, in
// the order they were set; a key set twice keeps one entry.
struct TFD_Options {
  tfd::io::JsonValue::Members entries;
};

// Never null: the default strategy is held without ownership.
struct TFD_Strategy {
  std::shared_ptr<tfd::distribute::Strategy> strategy;
};

struct TFD_Dataset {
  tfd::data::DatasetPtr dataset;
};

namespace tfd {
namespace capi {

// What TFD_ModelCompile chose. Metrics named "accuracy" are resolved from
// the shapes of the first batch, as Keras does, so they are made on first
// use (`metrics` empty until then).
struct CompiledState {
  // The optimizer named in TFD_ModelCompile. Training runs the model's
  // (Model::optimizer()): this one, or under mixed_float16 a
  // LossScaleOptimizer around it.
  std::shared_ptr<nn::Optimizer> optimizer;
  std::unique_ptr<nn::Loss> loss;  // Reduction::kNone: the loop scales it.
  std::vector<std::string> metric_names;
  std::vector<std::unique_ptr<nn::MeanMetricWrapper>> metrics;
  // Under ParameterServerStrategy the custom loop's steps run on the
  // workers (TFD_Coordinator): each metric's (total, count), summed over
  // the joined steps, which the metric values are then made of. Shared
  // with the coordinators, which may outlive the handle.
  std::shared_ptr<std::vector<double>> remote_metric_sums;
};

}  // namespace capi
}  // namespace tfd

// The strategy is declared first so it is destroyed last: the model's and
// the optimizer's variables belong to it.
struct TFD_Model {
  std::shared_ptr<tfd::distribute::Strategy> strategy;
  std::shared_ptr<tfd::nn::Model> model;
  std::shared_ptr<tfd::nn::Sequential> sequential;  // Null for Functional models.
  std::optional<tfd::capi::CompiledState> compiled;
  // tf.train.Checkpoint(model=, optimizer=), made by the first save or
  // restore and again when a new compile brings another optimizer.
  std::unique_ptr<tfd::savedmodel::Checkpoint> checkpoint;
  std::shared_ptr<tfd::nn::Optimizer> checkpoint_optimizer;  // The one it was made with.
};

#endif  // TFD_C_API_INTERNAL_TFD_STRUCTS_H_
