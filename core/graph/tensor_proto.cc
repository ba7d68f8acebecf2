#include "core/graph/tensor_proto.h"

#include <cstring>
#include <string>

#include "core/framework/float16.h"
#include "core/framework/status.h"

namespace tfd {
namespace graph {
namespace {

// Copies the typed values `vals` into `out` (n elements): TensorFlow's rule
// is that missing trailing values repeat the last one given.
template <typename T, typename Repeated>
absl::Status FillFromRepeated(const Repeated& vals, Tensor* out) {
  const int64_t n = out->NumElements();
  if (static_cast<int64_t>(vals.size()) > n) {
    return InvalidArgument("TensorProto has ", vals.size(), " values for ", n, " elements");
  }
  T* dst = out->data<T>();
  for (int64_t i = 0; i < n; ++i) {
    if (vals.empty()) {
      dst[i] = T();
    } else {
      dst[i] = static_cast<T>(vals[std::min<int64_t>(i, vals.size() - 1)]);
    }
  }
  return absl::OkStatus();
}

// half and bfloat16 values travel as their 16-bit patterns in half_val.
template <typename T>
absl::Status FillFromBits(const google::protobuf::RepeatedField<int32_t>& vals, Tensor* out) {
  const int64_t n = out->NumElements();
  if (static_cast<int64_t>(vals.size()) > n) {
    return InvalidArgument("TensorProto has ", vals.size(), " values for ", n, " elements");
  }
  T* dst = out->data<T>();
  for (int64_t i = 0; i < n; ++i) {
    dst[i].bits =
        vals.empty() ? 0 : static_cast<uint16_t>(vals[std::min<int64_t>(i, vals.size() - 1)]);
  }
  return absl::OkStatus();
}

}  // namespace

tensorflow::TensorShapeProto ShapeToProto(absl::Span<const int64_t> dims, bool unknown_rank) {
  tensorflow::TensorShapeProto proto;
  if (unknown_rank) {
    proto.set_unknown_rank(true);
    return proto;
  }
  for (int64_t d : dims) proto.add_dim()->set_size(d < 0 ? -1 : d);
  return proto;
}

absl::StatusOr<TensorShape> ShapeFromProto(const tensorflow::TensorShapeProto& proto) {
  if (proto.unknown_rank()) return InvalidArgument("shape of unknown rank where a known one is needed");
  std::vector<int64_t> dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size());
  return TensorShape::FromDims(dims);
}

std::vector<int64_t> PartialDimsFromProto(const tensorflow::TensorShapeProto& proto,
                                          bool* unknown_rank) {
  *unknown_rank = proto.unknown_rank();
  std::vector<int64_t> dims;
  if (*unknown_rank) return dims;
  for (const auto& d : proto.dim()) dims.push_back(d.size() < 0 ? -1 : d.size());
  return dims;
}

absl::StatusOr<tensorflow::TensorProto> TensorToProto(const Tensor& tensor) {
  if (!tensor.defined()) return InvalidArgument("TensorToProto: undefined tensor");
  Tensor host = tensor;
  if (!tensor.device()->host_memory()) {
    TFD_ASSIGN_OR_RETURN(host, tensor.CopyTo(HostDevice()));
  }
  tensorflow::TensorProto proto;
  proto.set_dtype(static_cast<tensorflow::DataType>(host.dtype()));
  *proto.mutable_tensor_shape() = ShapeToProto(host.shape().dims());
  if (host.dtype() == DT_STRING) {
    for (const std::string& s : host.flat<std::string>()) proto.add_string_val(s);
    return proto;
  }
  if (DataTypeSize(host.dtype()) == 0) {
    return InvalidArgument("TensorToProto: dtype ", DataTypeName(host.dtype()),
                           " cannot be serialized");
  }
  proto.set_tensor_content(static_cast<const char*>(host.raw_data()), host.TotalBytes());
  return proto;
}

absl::StatusOr<Tensor> TensorFromProto(const tensorflow::TensorProto& proto) {
  const DataType dtype = static_cast<DataType>(proto.dtype());
  if (dtype != DT_STRING && DataTypeSize(dtype) == 0) {
    return InvalidArgument("TensorProto of dtype ", DataTypeName(dtype),
                           " cannot be held by a tfd tensor");
  }
  TFD_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromProto(proto.tensor_shape()));
  // Typed values repeat their last element to fill the shape, so a few
  // bytes can ask for any size; refuse what no real graph constant needs.
  const size_t element_size = dtype == DT_STRING ? sizeof(std::string) : DataTypeSize(dtype);
  if (static_cast<double>(shape.num_elements()) * element_size > kMaxTensorProtoBytes) {
    return InvalidArgument("TensorProto of ", DataTypeName(dtype), " ", shape.DebugString(),
                           " is larger than ", kMaxTensorProtoBytes, " bytes");
  }
  TFD_ASSIGN_OR_RETURN(Tensor out, Tensor::Allocate(dtype, shape));
  const int64_t n = out.NumElements();
  if (dtype == DT_STRING) {
    if (proto.string_val_size() > n) {
      return InvalidArgument("TensorProto has ", proto.string_val_size(),
                             " strings for ", n, " elements");
    }
    auto dst = out.flat<std::string>();
    for (int64_t i = 0; i < n; ++i) {
      if (proto.string_val_size() > 0) {
        dst[i] = proto.string_val(std::min<int64_t>(i, proto.string_val_size() - 1));
      }
    }
    return out;
  }
  if (!proto.tensor_content().empty() || n == 0) {
    if (proto.tensor_content().size() != out.TotalBytes()) {
      return InvalidArgument("TensorProto content has ", proto.tensor_content().size(),
                             " bytes; ", DataTypeName(dtype), " ", shape.DebugString(),
                             " needs ", out.TotalBytes());
    }
    if (n > 0) std::memcpy(out.raw_data(), proto.tensor_content().data(), out.TotalBytes());
    return out;
  }
  absl::Status s;
  switch (dtype) {
    case DT_FLOAT: s = FillFromRepeated<float>(proto.float_val(), &out); break;
    case DT_DOUBLE: s = FillFromRepeated<double>(proto.double_val(), &out); break;
    case DT_INT32: s = FillFromRepeated<int32_t>(proto.int_val(), &out); break;
    case DT_INT16: s = FillFromRepeated<int16_t>(proto.int_val(), &out); break;
    case DT_INT8: s = FillFromRepeated<int8_t>(proto.int_val(), &out); break;
    case DT_UINT8: s = FillFromRepeated<uint8_t>(proto.int_val(), &out); break;
    case DT_UINT16: s = FillFromRepeated<uint16_t>(proto.int_val(), &out); break;
    case DT_INT64: s = FillFromRepeated<int64_t>(proto.int64_val(), &out); break;
    case DT_UINT32: s = FillFromRepeated<uint32_t>(proto.uint32_val(), &out); break;
    case DT_UINT64: s = FillFromRepeated<uint64_t>(proto.uint64_val(), &out); break;
    case DT_BOOL: s = FillFromRepeated<bool>(proto.bool_val(), &out); break;
    case DT_HALF: s = FillFromBits<half>(proto.half_val(), &out); break;
    case DT_BFLOAT16: s = FillFromBits<bfloat16>(proto.half_val(), &out); break;
    default:
      return Unimplemented("TensorProto: typed values of ", DataTypeName(dtype),
                           " are not supported");
  }
  TFD_RETURN_IF_ERROR(s);
  return out;
}

}  // namespace graph
}  // namespace tfd
