// Gradient functions, one per differentiable op, registered by op name.
//
// A gradient function receives the forward call (inputs, outputs, attrs)
// and the upstream gradients of its outputs, and returns one gradient per
// input, computed by executing ops (so gradients are themselves
// differentiable, and run on whatever device the forward op ran on).
// An undefined Tensor means "no gradient" for that input (indices,
// shapes, integer inputs).
//
//   absl::StatusOr<std::vector<Tensor>> ReluGrad(const GradContext& g) {
//     TFD_ASSIGN_OR_RETURN(Tensor dy, g.OutputGrad(0));
//     TFD_ASSIGN_OR_RETURN(Tensor dx, Execute1("ReluGrad", {dy, g.outputs[0]}));
//     return std::vector<Tensor>{dx};
//   }
//   TFD_REGISTER_GRADIENT("Relu", ReluGrad);
//   TFD_NO_GRADIENT("ArgMax");  // Differentiating through it is an error-free zero.
#ifndef TFD_CORE_AUTODIFF_GRADIENT_REGISTRY_H_
#define TFD_CORE_AUTODIFF_GRADIENT_REGISTRY_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/framework/attr_value.h"
#include "core/framework/op_def.h"
#include "core/framework/tensor.h"

namespace tfd {

struct GradContext {
  const OpDef* op;
  const AttrMap& attrs;
  absl::Span<const Tensor> inputs;
  absl::Span<const Tensor> outputs;
  // One per output; undefined where no gradient flows into that output.
  absl::Span<const Tensor> output_grads;

  // Upstream gradient of output i, or zeros of the output's shape when none
  // flows into it.
  absl::StatusOr<Tensor> OutputGrad(int i) const;
};

using GradFn = std::function<absl::StatusOr<std::vector<Tensor>>(const GradContext&)>;

struct GradientRegistrar {
  // A null `fn` marks the op as not differentiable: no gradient flows
  // through it, and that is not an error.
  GradientRegistrar(const char* op, GradFn fn);
};

// Marks the op's gradient as communicating across replicas (it runs a
// collective, as synchronized batch normalization's all-reduce does).
// Code that runs its own collectives during a backward pass (the
// optimizer's overlapped gradient all-reduce) must not interleave them
// with such a gradient's, so it asks GradientCommunicates first.
struct CommunicatingGradientRegistrar {
  explicit CommunicatingGradientRegistrar(const char* op);
};
bool GradientCommunicates(absl::string_view op);

// The op's gradient function; null when the op was marked TFD_NO_GRADIENT.
// NOT_FOUND when nothing was registered: differentiating through such an
// op is an error, not a silent zero.
absl::StatusOr<const GradFn*> LookupGradient(absl::string_view op);

}  // namespace tfd

#define TFD_REGISTER_GRADIENT(op, fn)                                              \
  static ::tfd::GradientRegistrar TFD_INTERNAL_CONCAT(tfd_grad_registrar_, __COUNTER__) \
      [[maybe_unused]](op, fn)
#define TFD_NO_GRADIENT(op) TFD_REGISTER_GRADIENT(op, nullptr)
#define TFD_GRADIENT_COMMUNICATES(op)                                          \
  static ::tfd::CommunicatingGradientRegistrar TFD_INTERNAL_CONCAT(            \
      tfd_grad_communicates_, __COUNTER__) [[maybe_unused]](op)

#endif  // TFD_CORE_AUTODIFF_GRADIENT_REGISTRY_H_
