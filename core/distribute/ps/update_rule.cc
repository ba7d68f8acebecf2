#include "core/distribute/ps/update_rule.h"

#include <algorithm>
#include <cmath>

#include "core/framework/attr_value.h"
#include "core/framework/device.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace ps {
namespace {

Tensor Scalar(float value) { return Tensor::Scalar<float>(value); }

// TensorFlow's RMSProp ops take the slots as (mg, ms, mom); Keras keeps
// them as velocity (ms), momentum (mom), average_gradient (mg).
absl::Status ApplyRmsProp(const OptimizerConfig& rule, const Tensor& gradient, Tensor& value,
                          std::vector<Tensor>& slots) {
  const bool momentum = rule.momentum() > 0;
  std::vector<Tensor> inputs = {value};
  if (rule.centered()) inputs.push_back(slots.back());
  inputs.push_back(slots[0]);
  if (momentum) inputs.push_back(slots[1]);
  inputs.push_back(Scalar(rule.learning_rate()));
  inputs.push_back(Scalar(rule.rho()));
  if (momentum) inputs.push_back(Scalar(rule.momentum()));
  inputs.push_back(Scalar(rule.epsilon()));
  inputs.push_back(gradient);
  const char* op = momentum ? (rule.centered() ? "ResourceApplyCenteredRMSProp"
                                               : "ResourceApplyRMSProp")
                            : (rule.centered() ? "TfdApplyCenteredRMSPropNoMomentum"
                                               : "TfdApplyRMSPropNoMomentum");
  return Execute(op, inputs).status();
}

// Keras's _apply_weight_decay: value -= value * wd * lr, each product
// rounded to float32 in that order, as the local optimizers do.
absl::Status DecayWeight(const OptimizerConfig& rule, Tensor& value) {
  if (rule.weight_decay() == 0) return absl::OkStatus();
  TFD_ASSIGN_OR_RETURN(Tensor scaled, Execute1("Mul", {value, Scalar(rule.weight_decay())}));
  TFD_ASSIGN_OR_RETURN(Tensor decay, Execute1("Mul", {scaled, Scalar(rule.learning_rate())}));
  TFD_ASSIGN_OR_RETURN(Tensor decayed, Execute1("Sub", {value, decay}));
  // In place: the caller owns the value's buffer (update_rule.h).
  std::copy_n(decayed.data<float>(), value.NumElements(), value.data<float>());
  return absl::OkStatus();
}

// Keras's tf.pow(tf.cast(beta, float32), t): the power taken in float32.
Tensor BetaPower(float beta, int64_t step) {
  return Scalar(std::pow(beta, static_cast<float>(step + 1)));
}

}  // namespace

absl::Status CheckUpdateRule(const std::string& variable, const OptimizerConfig& rule) {
  if (rule.learning_rate() < 0 || rule.momentum() < 0 || rule.epsilon() < 0 ||
      rule.weight_decay() < 0) {
    return InvalidArgument("variable ", variable, ": learning rate, momentum, epsilon and weight "
                           "decay must be >= 0, got ", rule.learning_rate(), ", ", rule.momentum(),
                           ", ", rule.epsilon(), " and ", rule.weight_decay());
  }
  if (rule.amsgrad() && rule.kind() != OptimizerConfig::ADAM) {
    return InvalidArgument("variable ", variable, ": amsgrad is an option of Adam only");
  }
  switch (rule.kind()) {
    case OptimizerConfig::SGD:
      return absl::OkStatus();
    case OptimizerConfig::ADAM:
      if (rule.beta_1() < 0 || rule.beta_1() >= 1 || rule.beta_2() < 0 || rule.beta_2() >= 1) {
        return InvalidArgument("variable ", variable, ": Adam needs beta_1 and beta_2 in [0, 1), "
                               "got ", rule.beta_1(), " and ", rule.beta_2());
      }
      return absl::OkStatus();
    case OptimizerConfig::RMSPROP:
      if (rule.rho() < 0) {
        return InvalidArgument("variable ", variable, ": RMSprop needs rho >= 0, got ", rule.rho());
      }
      return absl::OkStatus();
    case OptimizerConfig::ADAGRAD:
      if (rule.initial_accumulator_value() < 0) {
        return InvalidArgument("variable ", variable, ": Adagrad needs initial_accumulator_value "
                               ">= 0, got ", rule.initial_accumulator_value());
      }
      return absl::OkStatus();
    default:
      return InvalidArgument("variable ", variable, ": unknown optimizer kind ", rule.kind());
  }
}

int NumSlots(const OptimizerConfig& rule) {
  switch (rule.kind()) {
    case OptimizerConfig::ADAM:
      return rule.amsgrad() ? 3 : 2;
    case OptimizerConfig::RMSPROP:
      return 1 + (rule.momentum() > 0 ? 1 : 0) + (rule.centered() ? 1 : 0);
    case OptimizerConfig::ADAGRAD:
      return 1;
    default:
      return rule.momentum() > 0 ? 1 : 0;
  }
}

float SlotInitialValue(const OptimizerConfig& rule, int index) {
  return rule.kind() == OptimizerConfig::ADAGRAD ? rule.initial_accumulator_value() : 0.0f;
}

bool SameSlots(const OptimizerConfig& from, const OptimizerConfig& to) {
  return from.kind() == to.kind() && NumSlots(from) == NumSlots(to) &&
         from.centered() == to.centered();
}

absl::Status ApplyUpdateRule(const OptimizerConfig& rule, int64_t step, const Tensor& gradient,
                             Tensor& value, std::vector<Tensor>& slots) {
  if (static_cast<int>(slots.size()) != NumSlots(rule)) {
    return Internal("the update rule keeps ", NumSlots(rule), " slots, the variable has ",
                    slots.size());
  }
  // The rule's ops update `value` and `slots` in place, so they must run
  // where those live (a ps keeps them in host memory), never on a default
  // GPU that would update copies.
  DeviceScope where_the_values_are(value.device() != nullptr ? value.device() : HostDevice());
  TFD_RETURN_IF_ERROR(DecayWeight(rule, value));
  // The ops update their variable inputs in place (Note [Variables as
  // inputs] in training_ops.cc).
  const Tensor lr = Scalar(rule.learning_rate());
  switch (rule.kind()) {
    case OptimizerConfig::ADAM: {
      // Keras's Adam: the bias corrections of step t = step + 1.
      std::vector<Tensor> inputs = {value, slots[0], slots[1]};
      if (rule.amsgrad()) inputs.push_back(slots[2]);
      for (const Tensor& scalar :
           {BetaPower(rule.beta_1(), step), BetaPower(rule.beta_2(), step), lr,
            Scalar(rule.beta_1()), Scalar(rule.beta_2()), Scalar(rule.epsilon())}) {
        inputs.push_back(scalar);
      }
      inputs.push_back(gradient);
      if (rule.amsgrad()) return Execute("ResourceApplyAdamWithAmsgrad", inputs).status();
      return Execute("ResourceApplyAdam", inputs, AttrMap().Set("use_nesterov", false)).status();
    }
    case OptimizerConfig::RMSPROP:
      return ApplyRmsProp(rule, gradient, value, slots);
    case OptimizerConfig::ADAGRAD:
      return Execute("TfdApplyKerasAdagrad",
                     {value, slots[0], lr, Scalar(rule.epsilon()), gradient})
          .status();
    default:
      if (rule.momentum() > 0) {
        return Execute("ResourceApplyKerasMomentum",
                       {value, slots[0], lr, gradient, Scalar(rule.momentum())},
                       AttrMap().Set("use_nesterov", rule.nesterov()))
            .status();
      }
      return Execute("ResourceApplyGradientDescent", {value, lr, gradient}).status();
  }
}

}  // namespace ps
}  // namespace tfd
