// Conversions between tfd Tensors and TensorFlow's TensorProto and
// TensorShapeProto (the values of Const nodes, SignatureDef shapes).
//
// TensorToProto writes numbers as `tensor_content` (raw little-endian
// row-major bytes) and strings as `string_val`, as TensorFlow's
// AsProtoTensorContent does. TensorFromProto reads every encoding
// TensorFlow produces: tensor_content, or the typed repeated fields, where
// fewer values than elements means "repeat the last value" (and none means
// zeros).
//
// Errors: INVALID_ARGUMENT for a dtype a Tensor cannot hold, an unknown or
// negative dimension, content whose size does not match the shape, or a
// tensor over kMaxTensorProtoBytes (1 GiB: far more than any graph
// constant, since a protobuf message cannot exceed 2 GiB; the limit stops a
// few bytes of repeated typed values from asking for any allocation).
#ifndef TFD_CORE_GRAPH_TENSOR_PROTO_H_
#define TFD_CORE_GRAPH_TENSOR_PROTO_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/framework/tensor.h"
#include "core/protobuf/tensor.pb.h"
#include "core/protobuf/tensor_shape.pb.h"

namespace tfd {
namespace graph {

inline constexpr size_t kMaxTensorProtoBytes = size_t{1} << 30;

// A host copy of `tensor` as a TensorProto.
absl::StatusOr<tensorflow::TensorProto> TensorToProto(const Tensor& tensor);
absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto);

// Dimensions may be -1 (unknown); `unknown_rank` writes a shape of unknown
// rank (dims ignored).
tensorflow::TensorShapeProto ShapeToProto(absl::Span<const int64_t> dims,
                                          bool unknown_rank = false);
// A fully known shape; INVALID_ARGUMENT for unknown rank or dimensions.
absl::StatusOr<TensorShape> ShapeFromProto(const tensorflow::TensorShapeProto& proto);
// Dimensions with -1 for unknown ones; nullopt-like empty result with
// *unknown_rank set for a shape of unknown rank.
std::vector<int64_t> PartialDimsFromProto(const tensorflow::TensorShapeProto& proto,
                                          bool* unknown_rank);

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_TENSOR_PROTO_H_
