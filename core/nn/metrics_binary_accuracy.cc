#include "core/nn/metrics_binary_accuracy.h"

#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/nn/losses_utils.h"

namespace tfd {
namespace nn {

absl::StatusOr<Tensor> BinaryAccuracy::Matches(const Tensor& y_true, const Tensor& y_pred) const {
  // Both arrive as float32 (MeanMetricWrapper casts them).
  TFD_ASSIGN_OR_RETURN(Tensor threshold, internal::ScalarLike(y_pred.dtype(), threshold_));
  TFD_ASSIGN_OR_RETURN(Tensor above, Execute1("Greater", {y_pred, threshold}));
  TFD_ASSIGN_OR_RETURN(Tensor predicted, internal::CastTo(above, y_true.dtype()));
  TFD_ASSIGN_OR_RETURN(Tensor equal, Execute1("Equal", {y_true, predicted}));
  TFD_ASSIGN_OR_RETURN(Tensor matches, internal::CastTo(equal, DT_FLOAT));
  if (matches.rank() == 0) return matches;
  return internal::ReduceAxis("Mean", matches, -1);
}

}  // namespace nn
}  // namespace tfd
