#include "core/nn/batch_normalization_ops.h"

#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"
#include "core/framework/execute.h"
#include "core/framework/kernel.h"
#include "core/framework/op_def.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {
namespace {

absl::StatusOr<distribute::ReduceOp> ReductionOf(const AttrMap& attrs, const char* op) {
  absl::StatusOr<std::string> reduction = attrs.Get<std::string>("reduction");
  if (!reduction.ok()) return InvalidArgument(op, ": ", reduction.status().message());
  if (*reduction == "Sum") return distribute::ReduceOp::kSum;
  if (*reduction == "Mean") return distribute::ReduceOp::kMean;
  return InvalidArgument(op, ": reduction must be \"Sum\" or \"Mean\", got \"", *reduction, "\"");
}

absl::StatusOr<std::vector<TensorShape>> SameShape(const ShapeContext& c) {
  TFD_RETURN_IF_ERROR(ReductionOf(c.attrs(), "TfdReplicaAllReduce").status());
  return std::vector<TensorShape>{c.input_shape(0)};
}

// input: any shape -> output: the same shape, reduced over replicas.
absl::Status ReplicaAllReduceKernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  distribute::ReplicaContext* replica = distribute::CurrentReplicaContext();
  Tensor y = x;
  if (replica != nullptr && replica->num_replicas_in_sync() > 1) {
    TFD_ASSIGN_OR_RETURN(distribute::ReduceOp op, ReductionOf(ctx.attrs(), "TfdReplicaAllReduce"));
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> out, replica->AllReduce(op, {x}));
    if (out.size() != 1 || out[0].shape() != x.shape() || out[0].dtype() != x.dtype()) {
      return Internal("TfdReplicaAllReduce: the all-reduce of one ", DataTypeName(x.dtype()), " ",
                      x.shape().DebugString(), " tensor did not return one like it");
    }
    y = out[0];
    if (y.device() != ctx.device()) {
      TFD_ASSIGN_OR_RETURN(y, y.CopyTo(ctx.device()));
    }
  }
  // A view gives the output its own id, so tapes never see the input (or
  // another replica's tensor) come back as this op's output.
  TFD_ASSIGN_OR_RETURN(Tensor view, y.Reshaped(y.shape()));
  return ctx.SetOutput(0, view);
}

// The gradient of an all-reduce is the same all-reduce of the gradient.
absl::StatusOr<std::vector<Tensor>> ReplicaAllReduceGrad(const GradContext& g) {
  TFD_ASSIGN_OR_RETURN(Tensor dy, g.OutputGrad(0));
  TFD_ASSIGN_OR_RETURN(std::string reduction, g.attrs.Get<std::string>("reduction"));
  TFD_ASSIGN_OR_RETURN(
      Tensor dx, Execute1("TfdReplicaAllReduce", {dy}, AttrMap().Set("reduction", reduction)));
  return std::vector<Tensor>{dx};
}

}  // namespace

TFD_REGISTER_OP("TfdReplicaAllReduce")
    .Input("input", "T")
    .Output("output", "T")
    .TypeAttr("T", {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE, DT_INT32, DT_INT64})
    .RequiredAttr("reduction", "string")
    .AnyTypeKernel()
    .Stateful()
    .SetShapeFn(SameShape);

TFD_REGISTER_KERNEL("TfdReplicaAllReduce", DeviceType::kCPU, DT_INVALID, ReplicaAllReduceKernel);
// The kernel only hands tensors to the replica's collectives, which accept
// device memory.
TFD_REGISTER_KERNEL("TfdReplicaAllReduce", DeviceType::kGPU, DT_INVALID, ReplicaAllReduceKernel);
TFD_REGISTER_GRADIENT("TfdReplicaAllReduce", ReplicaAllReduceGrad);
// Its gradient is an all-reduce too.
TFD_GRADIENT_COMMUNICATES("TfdReplicaAllReduce");

absl::StatusOr<Tensor> ReplicaAllReduce(const Tensor& x, distribute::ReduceOp op) {
  return Execute1("TfdReplicaAllReduce", {x},
                  AttrMap().Set("reduction", op == distribute::ReduceOp::kSum ? "Sum" : "Mean"));
}

}  // namespace nn
}  // namespace tfd
