// The optimizer math a parameter server applies to one variable: which
// slots an OptimizerConfig keeps and how one gradient updates the value
// and those slots, with the same fused training ops the local Keras
// optimizers run (core/kernels/training_ops.cc), so a step on the ps is
// bit for bit the step a local optimizer takes with the same inputs.
//
// Slots, in Keras's order (the order a checkpoint's optimizer keeps them):
//   SGD      "m" (momentum > 0 only)
//   ADAM     "m", "v", ["vhat" when amsgrad]
//   RMSPROP  "velocity", ["momentum" when momentum > 0],
//            ["average_gradient" when centered]
//   ADAGRAD  "accumulator" (starting at initial_accumulator_value)
//
// Any kind may decay the weight first (Keras's weight_decay, AdamW):
// value -= value * weight_decay * learning_rate, in float32 as Keras does.
//
// Pure functions; the caller holds the variable's lock.
#ifndef TFD_CORE_DISTRIBUTE_PS_UPDATE_RULE_H_
#define TFD_CORE_DISTRIBUTE_PS_UPDATE_RULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "core/distribute/ps/ps_service.pb.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace ps {

// INVALID_ARGUMENT naming `variable` for a negative learning rate,
// momentum, epsilon, rho, initial accumulator or weight decay, Adam betas
// outside [0, 1), amsgrad on another kind, or an unknown kind.
absl::Status CheckUpdateRule(const std::string& variable, const OptimizerConfig& rule);

// How many slots `rule` keeps.
int NumSlots(const OptimizerConfig& rule);

// The value slot `index` of `rule` starts from (0, or Adagrad's initial
// accumulator).
float SlotInitialValue(const OptimizerConfig& rule, int index);

// Whether slots made for `from` serve `to` as they are: the same kind and
// the same slots (a changed learning rate keeps them; RMSprop gaining
// momentum does not).
bool SameSlots(const OptimizerConfig& from, const OptimizerConfig& to);

// One step of `rule` on `value` and `slots` (NumSlots(rule) of them, the
// value's shape), updated in place: their buffers must be unshared.
// `step` is the number of updates before this one (Adam's bias
// correction). Errors of the training op.
absl::Status ApplyUpdateRule(const OptimizerConfig& rule, int64_t step, const Tensor& gradient,
                             Tensor& value, std::vector<Tensor>& slots);

}  // namespace ps
}  // namespace tfd

#endif  // TFD_CORE_DISTRIBUTE_PS_UPDATE_RULE_H_
