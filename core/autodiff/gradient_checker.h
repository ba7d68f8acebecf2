// Finite-difference gradient checks for op tests.
//
// MaxGradientError compares, for a function f of some float64 tensors, the
// Jacobian the tape computes (one backward pass per output element) with
// the central-difference Jacobian (two forward passes per input element),
// and returns the largest absolute difference. Inputs that are not float64
// (indices, shapes) are passed through and not differentiated. Keep shapes
// small: the cost is outputs x backward + 2 x inputs x forward.
//
//   auto f = [](absl::Span<const Tensor> x) { return Execute1("Tanh", {x[0]}); };
//   EXPECT_LT(*MaxGradientError(f, {x}), 1e-7);
#ifndef TFD_CORE_AUTODIFF_GRADIENT_CHECKER_H_
#define TFD_CORE_AUTODIFF_GRADIENT_CHECKER_H_

#include <functional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/framework/tensor.h"

namespace tfd {

using DifferentiableFn = std::function<absl::StatusOr<Tensor>(absl::Span<const Tensor>)>;

absl::StatusOr<double> MaxGradientError(const DifferentiableFn& f,
                                        const std::vector<Tensor>& inputs,
                                        double delta = 1e-6);

}  // namespace tfd

#endif  // TFD_CORE_AUTODIFF_GRADIENT_CHECKER_H_
