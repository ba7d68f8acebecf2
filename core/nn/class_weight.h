// Class weights: Keras's fit(class_weight=...) turned into per-sample
// weights, as tf-keras's data adapter does before training.
//
// Each batch (x, y) or (x, y, sample_weight) becomes (x, y, weights) where
// weights[i] = class_weight[class of row i]: the class is y itself
// (rounded half to even) for labels of rank 1, the argmax of the last axis
// for one-hot targets, or the single column rounded for [batch, 1] labels.
// An existing sample weight is multiplied by the class weight.
//
//   TFD_ASSIGN_OR_RETURN(auto weighted, ApplyClassWeight(train, {{0, 1.0}, {1, 5.0}}));
#ifndef TFD_CORE_NN_CLASS_WEIGHT_H_
#define TFD_CORE_NN_CLASS_WEIGHT_H_

#include <cstdint>
#include <map>
#include <vector>

#include "absl/status/statusor.h"
#include "core/data/dataset.h"

namespace tfd {
namespace nn {

// `dataset` with class-weighted sample weights. INVALID_ARGUMENT (Keras's
// message) unless the keys are exactly 0 .. n-1. Iterating fails with
// INVALID_ARGUMENT for elements without targets, labels outside
// [0, n), non-numeric labels or a sample weight that does not broadcast.
absl::StatusOr<data::DatasetPtr> ApplyClassWeight(data::DatasetPtr dataset,
                                                  const std::map<int64_t, double>& class_weight);

// The weights by class id, as float32 (Keras's weight tensor); the same
// INVALID_ARGUMENT as ApplyClassWeight for keys other than 0 .. n-1.
absl::StatusOr<std::vector<float>> ClassWeightsById(const std::map<int64_t, double>& class_weight);

// One element (x, y[, sample_weight]) as ApplyClassWeight maps it, with
// the weights of ClassWeightsById: what a worker of a parameter-server
// job does to each batch it trains on. Its errors as iterating there.
absl::StatusOr<data::Element> WeightByClass(const data::Element& element,
                                            const std::vector<float>& weights);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_CLASS_WEIGHT_H_
