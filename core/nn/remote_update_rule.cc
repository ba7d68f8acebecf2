#include "core/nn/remote_update_rule.h"

#include "core/framework/status.h"
#include "core/nn/adagrad.h"
#include "core/nn/adam.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/rmsprop.h"
#include "core/nn/sgd.h"

namespace tfd {
namespace nn {

using Rule = distribute::RemoteUpdateRule;

absl::StatusOr<Rule> RemoteUpdateRuleFor(const Optimizer& optimizer, int64_t iterations) {
  const std::string prefix = "ParameterServerStrategy: optimizer " + optimizer.name();
  // tf-keras refuses loss scaling under ParameterServerStrategy
  // (strategy_supports_loss_scaling): gradients would be unscaled per
  // worker, not per variable. So does tfd, with its message.
  if (dynamic_cast<const LossScaleOptimizer*>(&optimizer) != nullptr) {
    return InvalidArgument(prefix, ": Loss scaling is not supported with the "
                           "tf.distribute.Strategy: ParameterServerStrategy (as in TensorFlow); "
                           "train in float32 or mixed_bfloat16");
  }
  Rule rule;
  rule.learning_rate = optimizer.learning_rate().At(iterations);
  // Rounded to float32, as Keras's tf.cast(weight_decay, float32).
  if (optimizer.options().weight_decay) {
    rule.weight_decay = static_cast<float>(*optimizer.options().weight_decay);
    if (!(rule.weight_decay >= 0)) {
      return InvalidArgument(prefix, ": weight_decay must be >= 0, got ", rule.weight_decay);
    }
  }
  if (const auto* sgd = dynamic_cast<const SGD*>(&optimizer)) {
    rule.kind = Rule::Kind::kSgd;
    rule.momentum = static_cast<float>(sgd->momentum());
    rule.nesterov = sgd->nesterov();
    return rule;
  }
  if (const auto* adam = dynamic_cast<const Adam*>(&optimizer)) {
    rule.kind = Rule::Kind::kAdam;
    rule.amsgrad = adam->amsgrad();
    rule.beta_1 = static_cast<float>(adam->beta_1());
    rule.beta_2 = static_cast<float>(adam->beta_2());
    rule.epsilon = static_cast<float>(adam->epsilon());
    return rule;
  }
  if (const auto* rmsprop = dynamic_cast<const RMSprop*>(&optimizer)) {
    rule.kind = Rule::Kind::kRmsProp;
    rule.rho = static_cast<float>(rmsprop->rho());
    rule.momentum = static_cast<float>(rmsprop->momentum());
    rule.epsilon = static_cast<float>(rmsprop->epsilon());
    rule.centered = rmsprop->centered();
    return rule;
  }
  if (const auto* adagrad = dynamic_cast<const Adagrad*>(&optimizer)) {
    rule.kind = Rule::Kind::kAdagrad;
    rule.initial_accumulator_value = static_cast<float>(adagrad->initial_accumulator_value());
    rule.epsilon = static_cast<float>(adagrad->epsilon());
    return rule;
  }
  return Unimplemented(prefix, ": parameter servers apply SGD, Adam, RMSprop and Adagrad only");
}

Rule RemoteUpdateRuleForVariable(const Rule& rule, const Optimizer& optimizer,
                                 const DistributedVariable& variable) {
  Rule for_variable = rule;
  if (!optimizer.DecaysWeight(variable)) for_variable.weight_decay = 0;
  return for_variable;
}

std::vector<std::string> RemoteSlotNames(const Rule& rule) {
  switch (rule.kind) {
    case Rule::Kind::kAdam:
      if (rule.amsgrad) return {"m", "v", "vhat"};
      return {"m", "v"};
    case Rule::Kind::kRmsProp: {
      std::vector<std::string> names = {"velocity"};
      if (rule.momentum > 0) names.push_back("momentum");
      if (rule.centered) names.push_back("average_gradient");
      return names;
    }
    case Rule::Kind::kAdagrad:
      return {"accumulator"};
    case Rule::Kind::kSgd:
      break;
  }
  if (rule.momentum > 0) return {"m"};
  return {};
}

}  // namespace nn
}  // namespace tfd
