// The arguments of Model::Compile, Fit, Evaluate and Predict, with Keras's
// defaults (tf.keras.Model.compile / fit / evaluate / predict).
#ifndef TFD_CORE_NN_TRAINING_OPTIONS_H_
#define TFD_CORE_NN_TRAINING_OPTIONS_H_

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "core/data/dataset.h"
#include "core/nn/callbacks/callback.h"
#include "core/nn/compiled_metrics.h"
#include "core/nn/dataset_creator.h"
#include "core/nn/losses.h"
#include "core/nn/optimizer.h"

namespace tfd {
namespace nn {

struct CompileOptions {
  // Required. Create them in the scope of the strategy the model was built
  // in, as Keras requires.
  std::shared_ptr<Optimizer> optimizer;
  std::shared_ptr<const Loss> loss;
  // Metric objects or Keras names ("accuracy", ...), see compiled_metrics.h.
  std::vector<MetricSpec> metrics;
  // Batches run per call of the step function (one Strategy::Run); batch
  // callbacks and the progress bar see one call per execution.
  int steps_per_execution = 1;
};

// Dataset elements are batches: (x), (x, y) or (x, y, sample_weight), as
// Keras unpacks them. Fit and Evaluate need y; Predict uses x only. Under
// a strategy each element is a GLOBAL batch, split between the replicas.
struct FitOptions {
  int epochs = 1;
  // 0 silent, 1 progress bar, 2 one line per epoch.
  int verbose = 1;
  std::vector<std::shared_ptr<Callback>> callbacks;
  // Evaluated at the end of every validation_freq-th epoch; its results
  // are logged as "val_loss", "val_<metric>".
  data::DatasetPtr validation_data;
  int validation_freq = 1;
  // Batches of validation_data per evaluation; nullopt: all of them.
  std::optional<int64_t> validation_steps;
  // Under ParameterServerStrategy only, instead of validation_data: the
  // validation dataset each worker builds (tf-keras's validation_data
  // given as a DatasetCreator), which the workers serve
  // (Model::ServeTrainSteps). Each evaluation runs validation_steps
  // batches on the workers, from fresh iterators (nullopt: until a
  // worker's dataset runs out). validation_data, by contrast, is
  // evaluated on the chief with the ps's values.
  std::optional<DatasetCreator> validation_creator;
  // The epoch to start from (epochs counts from 0 up to `epochs`).
  int initial_epoch = 0;
  // Batches per epoch; nullopt: the whole dataset each epoch. When set and
  // different from the dataset's length, one iterator runs on across
  // epochs (Keras's behaviour), and training stops with a warning if it
  // runs out.
  std::optional<int64_t> steps_per_epoch;
  // Keras's class_weight: class id (0 .. n-1) -> weight of its samples in
  // the training loss and metrics (class_weight.h). Empty: none.
  std::map<int64_t, double> class_weight;

  // Used only when Fit is given tensors (x, y) instead of a dataset, as
  // Keras's fit(x, y, ...): rows per batch (the last batch may be
  // partial); the last validation_split of the rows, taken before any
  // shuffling, is held out as validation data (ignored when
  // validation_data is set); shuffle reorders the training rows each epoch
  // (shuffle_seed: 0 draws a fresh seed, as tf.data).
  int64_t batch_size = 32;
  double validation_split = 0.0;
  bool shuffle = true;
  uint64_t shuffle_seed = 0;
};

struct EvaluateOptions {
  int verbose = 1;
  std::vector<std::shared_ptr<Callback>> callbacks;
  // Batches to evaluate; nullopt: the whole dataset.
  std::optional<int64_t> steps;
};

struct PredictOptions {
  int verbose = 1;
  std::vector<std::shared_ptr<Callback>> callbacks;
  std::optional<int64_t> steps;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_TRAINING_OPTIONS_H_
