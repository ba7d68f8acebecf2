#include "core/kernels/cuda/benchmark_inputs.h"

#include <vector>

#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {

absl::StatusOr<Tensor> RandomUniformOn(Device* device, DataType dtype, const TensorShape& shape,
                                       int64_t seed, float lo, float hi) {
  if (!(lo < hi)) return InvalidArgument("RandomUniformOn: need lo < hi, got [", lo, ", ", hi, ")");
  std::vector<int32_t> dims;
  for (int64_t d : shape.dims()) dims.push_back(static_cast<int32_t>(d));
  TFD_ASSIGN_OR_RETURN(Tensor shape_t,
                       Tensor::FromVector(dims, {static_cast<int64_t>(dims.size())}));
  TFD_ASSIGN_OR_RETURN(
      Tensor u, Execute1("RandomUniform", {shape_t},
                         AttrMap().Set("dtype", DT_FLOAT).Set("seed", seed).Set("seed2", seed + 1),
                         device));
  // [0, 1) -> [lo, hi), in float on the device; the scalars are copied there.
  TFD_ASSIGN_OR_RETURN(Tensor scale, Tensor::FromVector(std::vector<float>{hi - lo}, {}));
  TFD_ASSIGN_OR_RETURN(Tensor offset, Tensor::FromVector(std::vector<float>{lo}, {}));
  TFD_ASSIGN_OR_RETURN(Tensor scaled, Execute1("Mul", {u, scale}, AttrMap(), device));
  TFD_ASSIGN_OR_RETURN(Tensor shifted, Execute1("AddV2", {scaled, offset}, AttrMap(), device));
  if (dtype == DT_FLOAT) return shifted;
  return Execute1("Cast", {shifted}, AttrMap().Set("DstT", dtype), device);
}

}  // namespace tfd
