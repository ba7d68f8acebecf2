#include "core/graph/resource_variables.h"

#include "absl/strings/str_join.h"
#include "core/framework/status.h"

namespace tfd {
namespace graph {

absl::StatusOr<ResourceVariables::Slot*> ResourceVariables::Handle(
    const std::string& shared_name, DataType dtype, std::vector<int64_t> dims,
    bool unknown_rank) {
  absl::MutexLock lock(&mu_);
  std::unique_ptr<Slot>& slot = slots_[shared_name];
  if (slot == nullptr) {
    slot = std::make_unique<Slot>();
    slot->name_ = shared_name;
    slot->dtype_ = dtype;
    slot->dims_ = std::move(dims);
    slot->unknown_rank_ = unknown_rank;
  } else if (slot->dtype_ != dtype) {
    return InvalidArgument("resource variable '", shared_name, "' is ",
                           DataTypeName(slot->dtype_), ", a handle asks for ",
                           DataTypeName(dtype));
  }
  return slot.get();
}

absl::StatusOr<Tensor> ResourceVariables::Read(const Slot* slot, DataType expected_dtype) const {
  absl::MutexLock lock(&mu_);
  if (!slot->value_.defined()) {
    return FailedPrecondition("resource variable '", slot->name_,
                              "' is read before it was initialized (restored)");
  }
  if (slot->dtype_ != expected_dtype) {
    return InvalidArgument("resource variable '", slot->name_, "' is ",
                           DataTypeName(slot->dtype_), ", read as ",
                           DataTypeName(expected_dtype));
  }
  return slot->value_;
}

absl::Status ResourceVariables::Assign(Slot* slot, const Tensor& value) {
  if (!value.defined()) return InvalidArgument("assigning an undefined tensor to '", slot->name(), "'");
  if (value.dtype() != slot->dtype()) {
    return InvalidArgument("resource variable '", slot->name(), "' is ",
                           DataTypeName(slot->dtype()), ", assigned a ",
                           DataTypeName(value.dtype()));
  }
  bool fits = slot->unknown_rank_ || value.rank() == static_cast<int>(slot->dims_.size());
  for (int i = 0; fits && !slot->unknown_rank_ && i < value.rank(); ++i) {
    fits = slot->dims_[i] < 0 || slot->dims_[i] == value.dim(i);
  }
  if (!fits) {
    return InvalidArgument("resource variable '", slot->name(), "' has shape [",
                           absl::StrJoin(slot->dims_, ","), "], assigned ",
                           value.shape().DebugString());
  }
  // A private copy: the caller's tensor may be reused or written later.
  TFD_ASSIGN_OR_RETURN(Tensor copy, value.CopyTo());
  absl::MutexLock lock(&mu_);
  slot->value_ = std::move(copy);
  return absl::OkStatus();
}

std::vector<std::string> ResourceVariables::Names() const {
  absl::MutexLock lock(&mu_);
  std::vector<std::string> names;
  for (const auto& [name, slot] : slots_) names.push_back(name);
  return names;
}

}  // namespace graph
}  // namespace tfd
