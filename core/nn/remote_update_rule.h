// The update rule a parameter server applies for a Keras optimizer: what
// Model::Fit under ParameterServerStrategy sends with the gradients, so
// the optimizer's math and slots live where the variables live.
//
// Supported: SGD (momentum, nesterov), Adam (amsgrad) and AdamW, RMSprop
// (rho, momentum, centered) and Adagrad, each with weight decay, with a
// constant learning rate or a schedule (its value at the ps's update
// count, as Keras reads `iterations` on the ps). Clipping is not part of
// the rule: the workers clip the gradients before they send them
// (Optimizer::ClipGradients). A LossScaleOptimizer (mixed_float16) is
// INVALID_ARGUMENT, as tf-keras refuses loss scaling under
// ParameterServerStrategy; another optimizer is UNIMPLEMENTED.
#ifndef TFD_CORE_NN_REMOTE_UPDATE_RULE_H_
#define TFD_CORE_NN_REMOTE_UPDATE_RULE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/distribute/parameter_server_training.h"
#include "core/nn/optimizer.h"

namespace tfd {
namespace nn {

// The rule of `optimizer` for the update that follows `iterations`
// updates: a schedule's learning rate at that step.
absl::StatusOr<distribute::RemoteUpdateRule> RemoteUpdateRuleFor(const Optimizer& optimizer,
                                                                 int64_t iterations = 0);

// `rule` as it applies to `variable`: without weight decay when the
// optimizer leaves it out (exclude_from_weight_decay).
distribute::RemoteUpdateRule RemoteUpdateRuleForVariable(const distribute::RemoteUpdateRule& rule,
                                                         const Optimizer& optimizer,
                                                         const DistributedVariable& variable);

// The Keras slot names of `rule`, in the order the ps keeps them (the
// names Optimizer::GetSlot knows them by).
std::vector<std::string> RemoteSlotNames(const distribute::RemoteUpdateRule& rule);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_REMOTE_UPDATE_RULE_H_
