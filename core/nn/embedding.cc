#include "core/nn/embedding.h"

#include "absl/strings/str_cat.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {
namespace {

// Keras gives every Embedding an input shape: (input_length,) or (None,).
LayerOptions WithInputShape(LayerOptions layer, const std::optional<int64_t>& input_length) {
  if (!layer.input_shape.has_value()) layer.input_shape = Shape{input_length.value_or(kNone)};
  return layer;
}

}  // namespace

Embedding::Embedding(int64_t input_dim, int64_t output_dim, EmbeddingOptions options)
    : Layer("Embedding", WithInputShape(options.layer, options.input_length)),
      input_dim_(input_dim),
      output_dim_(output_dim),
      options_(std::move(options)) {}

absl::StatusOr<Shape> Embedding::ComputeOutputShapeImpl(
    const std::vector<Shape>& input_shapes) const {
  if (input_dim_ <= 0 || output_dim_ <= 0) {
    return Error(absl::StrCat(
        "Both `input_dim` and `output_dim` should be positive, Received input_dim = ", input_dim_,
        " and output_dim = ", output_dim_));
  }
  const Shape& in = input_shapes[0];
  if (options_.input_length.has_value() && in.size() >= 2 && in[1] >= 0 &&
      in[1] != *options_.input_length) {
    return Error(absl::StrCat("\"input_length\" is ", *options_.input_length,
                              ", but received input has shape ", ShapeToString(in)));
  }
  Shape out = in;
  out.push_back(output_dim_);
  return out;
}

absl::Status Embedding::BuildImpl(const std::vector<Shape>&) {
  WeightOptions w;
  w.name = "embeddings";
  w.shape = TensorShape({input_dim_, output_dim_});
  w.initializer = options_.embeddings_initializer;
  TFD_ASSIGN_OR_RETURN(embeddings_, AddWeight(w));
  return absl::OkStatus();
}

absl::StatusOr<Tensor> Embedding::CallImpl(const std::vector<Tensor>& inputs, bool) {
  Tensor ids = inputs[0];
  if (ids.dtype() != DT_INT32 && ids.dtype() != DT_INT64) {
    TFD_ASSIGN_OR_RETURN(ids, Execute1("Cast", {ids}, AttrMap().Set("DstT", DT_INT32)));
  }
  // params: [input_dim, output_dim], ids: [...] -> [..., output_dim]
  TFD_ASSIGN_OR_RETURN(Tensor out,
                       Execute1("GatherV2", {embeddings_->Read(), ids, Tensor::Scalar<int32_t>(0)}));
  // Under a mixed policy Keras gathers float32 rows and casts only them.
  if (out.dtype() == compute_dtype() || !IsFloatingType(compute_dtype())) return out;
  return Execute1("Cast", {out}, AttrMap().Set("DstT", compute_dtype()));
}

}  // namespace nn
}  // namespace tfd
