#include "core/nn/gradient_all_reduce.h"

#include <memory>
#include <utility>

#include "core/framework/status.h"

namespace tfd {
namespace nn {
namespace {

using distribute::DistributedVariable;
using distribute::ReplicaContext;

// The place of variable i's gradient in the all-reduce (Note [Gradient
// all-reduce order]).
int Position(size_t i, size_t n) { return static_cast<int>(n - 1 - i); }

std::vector<const Variable*> LocalComponents(absl::Span<DistributedVariable* const> vars) {
  std::vector<const Variable*> out;
  for (DistributedVariable* v : vars) out.push_back(v != nullptr ? &v->Local() : nullptr);
  return out;
}

}  // namespace

absl::StatusOr<std::vector<Tensor>> AllReduceGradients(ReplicaContext& ctx,
                                                       std::vector<Tensor> grads) {
  // The defined ones, last variable first.
  std::vector<size_t> places;
  std::vector<Tensor> defined;
  for (size_t i = grads.size(); i-- > 0;) {
    if (!grads[i].defined()) continue;
    places.push_back(i);
    defined.push_back(std::move(grads[i]));
  }
  if (defined.empty()) return grads;
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> summed,
                       ctx.AllReduce(distribute::ReduceOp::kSum, std::move(defined)));
  for (size_t k = 0; k < places.size(); ++k) grads[places[k]] = std::move(summed[k]);
  return grads;
}

absl::StatusOr<std::optional<std::string>> WhyNotOverlap(
    ReplicaContext& ctx, const GradientTape& tape, const Tensor& loss,
    absl::Span<DistributedVariable* const> vars) {
  if (!ctx.overlap_backward_pass()) return std::string("overlap_backward_pass is off");
  if (vars.empty()) return std::string("there are no variables");
  for (DistributedVariable* v : vars) {
    if (v == nullptr) return std::string("a variable is null");
  }
  TFD_ASSIGN_OR_RETURN(BackwardPlan plan, tape.PlanBackward(loss, LocalComponents(vars)));
  if (plan.communicates) {
    return std::string("the backward pass runs collectives of its own");
  }
  for (size_t i = 0; i < vars.size(); ++i) {
    if (!plan.reachable[i]) return "no gradient reaches '" + vars[i]->name() + "'";
  }
  return std::nullopt;
}

absl::StatusOr<std::vector<Tensor>> AllReduceDuringBackward(
    ReplicaContext& ctx, GradientTape& tape, const Tensor& loss,
    absl::Span<DistributedVariable* const> vars, const GradientTransform& transform) {
  const size_t n = vars.size();
  std::vector<distribute::TensorSpec> specs(n);
  for (size_t i = 0; i < n; ++i) specs[Position(i, n)] = {vars[i]->dtype(), vars[i]->shape()};
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::PendingAllReduce> pending,
                       ctx.StartAllReduce(distribute::ReduceOp::kSum, specs));
  std::vector<bool> missing(n, false);
  auto on_ready = [&](int i, const Tensor& grad) -> absl::Status {
    const DistributedVariable& v = *vars[i];
    Tensor value = grad;
    if (!value.defined()) {
      missing[i] = true;
      TFD_ASSIGN_OR_RETURN(value, Tensor::Zeros(v.dtype(), v.shape(), v.Local().Peek().device()));
    } else if (value.dtype() != v.dtype() || value.shape() != v.shape()) {
      return InvalidArgument("Minimize: the gradient of '", v.name(), "' is ",
                             DataTypeName(value.dtype()), " ", value.shape().DebugString(),
                             " but the variable is ", DataTypeName(v.dtype()), " ",
                             v.shape().DebugString());
    } else if (transform) {
      TFD_ASSIGN_OR_RETURN(value, transform(value));
    }
    return pending->Put(Position(i, n), value);
  };
  TFD_RETURN_IF_ERROR(tape.Gradient(loss, LocalComponents(vars), on_ready).status());
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> summed, pending->Wait());
  std::vector<Tensor> out(n);
  for (size_t i = 0; i < n; ++i) {
    if (!missing[i]) out[i] = std::move(summed[Position(i, n)]);
  }
  return out;
}

}  // namespace nn
}  // namespace tfd
