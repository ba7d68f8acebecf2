#include "core/nn/dtype_policy.h"

#include <utility>

#include "absl/synchronization/mutex.h"
#include "core/framework/status.h"

namespace tfd {
namespace nn {
namespace {

absl::Mutex global_mu(absl::kConstInit);
// Leaked on purpose: read by layers constructed during static destruction.
DTypePolicy* global_policy ABSL_GUARDED_BY(global_mu) = nullptr;

}  // namespace

DTypePolicy::DTypePolicy(DataType dtype)
    : name_(DataTypeName(dtype)), compute_dtype_(dtype), variable_dtype_(dtype) {}

DTypePolicy::DTypePolicy(std::string name, DataType compute_dtype, DataType variable_dtype)
    : name_(std::move(name)), compute_dtype_(compute_dtype), variable_dtype_(variable_dtype) {}

absl::StatusOr<DTypePolicy> DTypePolicy::FromName(absl::string_view name) {
  if (name == "mixed_float16") return DTypePolicy(std::string(name), DT_HALF, DT_FLOAT);
  if (name == "mixed_bfloat16") return DTypePolicy(std::string(name), DT_BFLOAT16, DT_FLOAT);
  DataType dtype;
  if (DataTypeFromName(name, &dtype) && DataTypeSize(dtype) > 0) return DTypePolicy(dtype);
  return InvalidArgument("Cannot convert value ", name,
                         " to a mixed precision Policy. Valid policies include "
                         "'mixed_float16', 'mixed_bfloat16', and the name of any dtype such as "
                         "'float32'.");
}

DTypePolicy GlobalPolicy() {
  absl::MutexLock lock(&global_mu);
  return global_policy != nullptr ? *global_policy : DTypePolicy(DT_FLOAT);
}

absl::Status SetGlobalPolicy(const DTypePolicy& policy) {
  if (!IsFloatingType(policy.compute_dtype())) {
    return InvalidArgument(
        "set_global_policy can only be used to set the global policy to floating-point "
        "policies, such as \"float32\" and \"mixed_float16\", but got policy: ",
        policy.name());
  }
  absl::MutexLock lock(&global_mu);
  if (global_policy == nullptr) {
    global_policy = new DTypePolicy(policy);
  } else {
    *global_policy = policy;
  }
  return absl::OkStatus();
}

absl::Status SetGlobalPolicy(absl::string_view name) {
  TFD_ASSIGN_OR_RETURN(DTypePolicy policy, DTypePolicy::FromName(name));
  return SetGlobalPolicy(policy);
}

ScopedGlobalPolicy::ScopedGlobalPolicy(const DTypePolicy& policy) : previous_(GlobalPolicy()) {
  // Only floating policies are accepted by SetGlobalPolicy; a scoped
  // non-floating policy is a programming error the status would report.
  SetGlobalPolicy(policy).IgnoreError();
}

ScopedGlobalPolicy::~ScopedGlobalPolicy() { SetGlobalPolicy(previous_).IgnoreError(); }

}  // namespace nn
}  // namespace tfd
