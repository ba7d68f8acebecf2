// Float32 tensors on the wire of the parameter-server services
// (ps_service.proto's FloatTensor). Only float32 crosses: parameters,
// gradients and step outputs of the jobs tfd runs are float32.
#ifndef TFD_CORE_DISTRIBUTE_PS_FLOAT_TENSOR_H_
#define TFD_CORE_DISTRIBUTE_PS_FLOAT_TENSOR_H_

#include "absl/status/statusor.h"
#include "core/distribute/ps/ps_service.pb.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace ps {

// `tensor`'s shape and values (copied to the host first when it lives on
// a GPU). INVALID_ARGUMENT for a tensor that is not float32.
absl::StatusOr<FloatTensor> ToProto(const Tensor& tensor);
// INVALID_ARGUMENT when the value count does not match the shape, or a
// dimension is negative.
absl::StatusOr<Tensor> FromProto(const FloatTensor& proto);

}  // namespace ps
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PS_FLOAT_TENSOR_H_
