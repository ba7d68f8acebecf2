// Mixed precision from C (tfd/mixed_precision.h): the global dtype policy
// of core/nn/dtype_policy.h, and the loss-scale state of the optimizer
// Model::Compile wrapped for mixed_float16.
#include <set>
#include <string>

#include "absl/base/const_init.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "c_api/internal/guard.h"
#include "c_api/internal/tfd_structs.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/loss_scale_optimizer.h"
#include "tfd/mixed_precision.h"

namespace tfd {
namespace capi {
namespace {

// TFD_GlobalPolicy hands out names that must outlive any later change of
// the policy: each distinct name is kept once, for the life of the process
// (a handful of strings: the policy names are a small, fixed set).
const char* InternedName(const std::string& name) {
  static absl::Mutex mu(absl::kConstInit);
  static std::set<std::string>* names = new std::set<std::string>();  // Never freed.
  absl::MutexLock lock(&mu);
  return names->insert(name).first->c_str();
}

// The model's optimizer as Model::Compile left it, when it scales the loss.
absl::StatusOr<const nn::LossScaleOptimizer*> LossScaleOptimizerOf(const char* where,
                                                                    const TFD_Model* model) {
  TFD_RETURN_IF_ERROR(NotNull(where, model, "model"));
  const nn::Optimizer* optimizer = model->model->optimizer();
  if (optimizer == nullptr) {
    return absl::FailedPreconditionError(
        absl::StrCat(where, ": the model must be compiled first (TFD_ModelCompile)"));
  }
  const auto* scaled = dynamic_cast<const nn::LossScaleOptimizer*>(optimizer);
  if (scaled == nullptr) {
    return absl::FailedPreconditionError(absl::StrCat(
        where, ": the optimizer of model '", model->model->name(),
        "' does no loss scaling: its dtype policy is ", model->model->dtype_policy().name(),
        "; TFD_ModelCompile adds loss scaling under mixed_float16 (TFD_SetGlobalPolicy before "
        "the model is made)"));
  }
  return scaled;
}

}  // namespace
}  // namespace capi
}  // namespace tfd

extern "C" {

void TFD_SetGlobalPolicy(const char* name, TF_Status* status) {
  tfd::capi::GuardVoid("TFD_SetGlobalPolicy", status, [&]() -> absl::Status {
    // Keras's set_global_policy(None) restores the default, float32.
    absl::Status set = tfd::nn::SetGlobalPolicy(name == nullptr ? "float32" : name);
    if (set.ok()) return set;
    return absl::Status(set.code(), absl::StrCat("TFD_SetGlobalPolicy: ", set.message()));
  });
}

const char* TFD_GlobalPolicy(void) {
  try {
    return tfd::capi::InternedName(tfd::nn::GlobalPolicy().name());
  } catch (...) {
    return nullptr;  // Out of memory for a new name: the header's one NULL case.
  }
}

float TFD_ModelLossScale(const TFD_Model* model, TF_Status* status) {
  return tfd::capi::Guard<float>("TFD_ModelLossScale", status, 0.0f,
                                 [&]() -> absl::StatusOr<float> {
                                   TFD_ASSIGN_OR_RETURN(
                                       const tfd::nn::LossScaleOptimizer* optimizer,
                                       tfd::capi::LossScaleOptimizerOf("TFD_ModelLossScale",
                                                                       model));
                                   return optimizer->LossScale();
                                 });
}

int64_t TFD_ModelLossScaleGoodSteps(const TFD_Model* model, TF_Status* status) {
  return tfd::capi::Guard<int64_t>(
      "TFD_ModelLossScaleGoodSteps", status, 0, [&]() -> absl::StatusOr<int64_t> {
        TFD_ASSIGN_OR_RETURN(
            const tfd::nn::LossScaleOptimizer* optimizer,
            tfd::capi::LossScaleOptimizerOf("TFD_ModelLossScaleGoodSteps", model));
        return optimizer->DynamicCounter();
      });
}

const char* TFD_ModelDtypePolicy(const TFD_Model* model, TF_Status* status) {
  return tfd::capi::Guard<const char*>(
      "TFD_ModelDtypePolicy", status, nullptr, [&]() -> absl::StatusOr<const char*> {
        TFD_RETURN_IF_ERROR(tfd::capi::NotNull("TFD_ModelDtypePolicy", model, "model"));
        return model->model->dtype_policy().name().c_str();
      });
}

}  // extern "C"
