#include "core/nn/class_weight.h"

#include <cmath>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/data/transforms.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/losses_utils.h"

namespace tfd {
namespace nn {
namespace {

// The label values as doubles, row-major.
absl::StatusOr<std::vector<double>> LabelValues(const Tensor& y) {
  std::vector<double> out(y.NumElements());
  switch (y.dtype()) {
    case DT_INT32:
      for (size_t i = 0; i < out.size(); ++i) out[i] = y.data<int32_t>()[i];
      break;
    case DT_INT64:
      for (size_t i = 0; i < out.size(); ++i) out[i] = static_cast<double>(y.data<int64_t>()[i]);
      break;
    case DT_FLOAT:
      for (size_t i = 0; i < out.size(); ++i) out[i] = y.data<float>()[i];
      break;
    case DT_DOUBLE:
      for (size_t i = 0; i < out.size(); ++i) out[i] = y.data<double>()[i];
      break;
    default:
      return InvalidArgument("class_weight: targets must be int32, int64, float or double, got ",
                             DataTypeName(y.dtype()));
  }
  return out;
}

// The class of each sample (see the header) and the shape of that tensor.
absl::StatusOr<std::vector<int64_t>> Classes(const Tensor& y, std::vector<int64_t>* shape) {
  TFD_ASSIGN_OR_RETURN(std::vector<double> v, LabelValues(y));
  const std::vector<int64_t>& dims = y.shape().dims();
  std::vector<int64_t> classes;
  if (dims.size() >= 2 && dims.back() > 1) {
    // One-hot (or probabilities): the argmax of the last axis, first wins.
    const int64_t width = dims.back();
    shape->assign(dims.begin(), dims.end() - 1);
    for (size_t row = 0; row * width < v.size(); ++row) {
      int64_t best = 0;
      for (int64_t c = 1; c < width; ++c) {
        if (v[row * width + c] > v[row * width + best]) best = c;
      }
      classes.push_back(best);
    }
    return classes;
  }
  *shape = dims;
  if (dims.size() >= 2) shape->pop_back();  // [.., 1] labels lose the last axis
  for (double label : v) classes.push_back(static_cast<int64_t>(std::nearbyint(label)));
  return classes;
}

}  // namespace

absl::StatusOr<std::vector<float>> ClassWeightsById(
    const std::map<int64_t, double>& class_weight) {
  std::vector<float> weights;
  std::string keys;
  for (const auto& [id, w] : class_weight) absl::StrAppend(&keys, keys.empty() ? "" : ", ", id);
  for (const auto& [id, w] : class_weight) {
    if (id != static_cast<int64_t>(weights.size())) {
      return InvalidArgument("Expected `class_weight` to be a dict with keys from 0 to one less "
                             "than the number of classes, found keys {", keys, "}");
    }
    weights.push_back(static_cast<float>(w));  // Keras's float32 weight tensor
  }
  if (weights.empty()) {
    return InvalidArgument("Expected `class_weight` to be a dict with keys from 0 to one less "
                           "than the number of classes, found an empty dict");
  }
  return weights;
}

absl::StatusOr<data::Element> WeightByClass(const data::Element& element,
                                            const std::vector<float>& weights) {
  if (element.size() < 2 || element.size() > 3) {
    return InvalidArgument("class_weight: dataset elements must be (x, y) or (x, y, "
                           "sample_weight), got ", element.size(), " tensors");
  }
  std::vector<int64_t> shape;
  TFD_ASSIGN_OR_RETURN(std::vector<int64_t> classes, Classes(element[1], &shape));
  std::vector<float> per_sample;
  for (int64_t c : classes) {
    if (c < 0 || c >= static_cast<int64_t>(weights.size())) {
      return InvalidArgument("class_weight: label ", c, " is not in [0, ", weights.size(), ")");
    }
    per_sample.push_back(weights[c]);
  }
  TFD_ASSIGN_OR_RETURN(Tensor cw, Tensor::FromVector<float>(per_sample, TensorShape(shape)));
  data::Element out = {element[0], element[1], cw};
  if (element.size() == 3) {
    // sample_weight * class weight, the weight reshaped with trailing 1s
    // up to the class weights' rank.
    const Tensor& sw = element[2];
    TFD_ASSIGN_OR_RETURN(Tensor cast, internal::CastTo(cw, sw.dtype()));
    std::vector<int64_t> dims = sw.shape().dims();
    while (dims.size() < shape.size()) dims.push_back(1);
    TFD_ASSIGN_OR_RETURN(Tensor reshaped, internal::ReshapeTo(sw, dims));
    TFD_ASSIGN_OR_RETURN(out[2], Execute1("Mul", {reshaped, cast}));
  }
  return out;
}

absl::StatusOr<data::DatasetPtr> ApplyClassWeight(data::DatasetPtr dataset,
                                                  const std::map<int64_t, double>& class_weight) {
  if (dataset == nullptr) return InvalidArgument("class_weight: the dataset is null");
  TFD_ASSIGN_OR_RETURN(std::vector<float> weights, ClassWeightsById(class_weight));
  auto map_fn = [weights](const data::Element& element) -> absl::StatusOr<data::Element> {
    return WeightByClass(element, weights);
  };
  return data::Map(std::move(dataset), map_fn);
}

}  // namespace nn
}  // namespace tfd
