#include "core/nn/compiled_loss.h"

#include "core/distribute/strategy.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {

absl::StatusOr<std::unique_ptr<CompiledLoss>> CompiledLoss::Create(
    std::shared_ptr<const Loss> loss) {
  if (loss == nullptr) return InvalidArgument("Compile: a loss is required");
  if (loss->reduction() == Reduction::kNone) {
    return InvalidArgument("Compile: loss ", loss->name(),
                           " has reduction 'none'; Fit needs a loss that reduces to a scalar "
                           "(use 'auto', 'sum_over_batch_size' or 'sum')");
  }
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<Mean> tracker, Mean::Create("loss"));
  return std::unique_ptr<CompiledLoss>(new CompiledLoss(std::move(loss), std::move(tracker)));
}

absl::StatusOr<Tensor> CompiledLoss::Call(const Tensor& y_true, const Tensor& y_pred,
                                          const Tensor& sample_weight) const {
  if (y_true.rank() == 0) {
    return InvalidArgument("Fit: targets must have a batch dimension, got a scalar");
  }
  TFD_ASSIGN_OR_RETURN(Tensor value, loss_->Call(y_true, y_pred, sample_weight));
  distribute::ReplicaContext* ctx = distribute::CurrentReplicaContext();
  const int replicas = ctx != nullptr ? ctx->num_replicas_in_sync() : 1;

  // The tracker sees the replica's own mean; a SUM loss already counts the
  // global batch's scale, so Keras multiplies it back.
  Tensor tracked = value;
  if (loss_->reduction() == Reduction::kSum && replicas > 1) {
    TFD_ASSIGN_OR_RETURN(Tensor n, internal::ScalarLike(value.dtype(), replicas));
    TFD_ASSIGN_OR_RETURN(tracked, Execute1("Mul", {value, n}));
  }
  TFD_ASSIGN_OR_RETURN(Tensor batch,
                       internal::ScalarLike(DT_FLOAT, static_cast<double>(y_true.dim(0))));
  TFD_RETURN_IF_ERROR(tracker_->Update(tracked, batch));

  if (loss_->reduction() == Reduction::kSum || replicas == 1) return value;
  TFD_ASSIGN_OR_RETURN(Tensor scale, internal::ScalarLike(value.dtype(), 1.0 / replicas));
  return Execute1("Mul", {value, scale});
}

}  // namespace nn
}  // namespace tfd
