#include "core/distribute/ps/float_tensor.h"

#include <vector>

#include "core/framework/status.h"

namespace tfd {
namespace ps {

absl::StatusOr<FloatTensor> ToProto(const Tensor& tensor) {
  if (tensor.dtype() != DT_FLOAT) {
    return InvalidArgument("parameter-server tensors must be float32, got ",
                           DataTypeName(tensor.dtype()));
  }
  FloatTensor proto;
  for (int i = 0; i < tensor.rank(); ++i) proto.add_shape(tensor.dim(i));
  // A worker's gradients and values may live on a GPU: their bytes are
  // read on the host, from a copy.
  Tensor host = tensor;
  if (!tensor.device()->host_memory()) {
    TFD_ASSIGN_OR_RETURN(host, tensor.CopyTo(HostDevice()));
  }
  const absl::Span<float> values = host.flat<float>();
  proto.mutable_values()->Add(values.begin(), values.end());
  return proto;
}

absl::StatusOr<Tensor> FromProto(const FloatTensor& proto) {
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (int64_t d : proto.shape()) {
    if (d < 0) return InvalidArgument("parameter-server tensor: negative dimension ", d);
    dims.push_back(d);
    count *= d;
  }
  if (count != proto.values_size()) {
    return InvalidArgument("parameter-server tensor: shape holds ", count, " values, got ",
                           proto.values_size());
  }
  Tensor tensor(DT_FLOAT, TensorShape(dims));
  float* out = tensor.data<float>();
  for (int64_t i = 0; i < count; ++i) out[i] = proto.values(i);
  return tensor;
}

}  // namespace ps
}  // namespace tfd
