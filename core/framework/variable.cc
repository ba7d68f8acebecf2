#include "core/framework/variable.h"

#include <atomic>

#include "core/framework/execute.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

// Handle ids share no space with tensor ids: they count down from the top.
std::atomic<uint64_t> next_handle_id{~uint64_t{0}};

}  // namespace

Variable::Variable(std::string name, Tensor initial, bool trainable)
    : name_(std::move(name)),
      trainable_(trainable),
      handle_id_(next_handle_id.fetch_sub(1)),
      dtype_(initial.dtype()),
      shape_(initial.shape()),
      device_(initial.defined() ? initial.device() : HostDevice()),
      value_(std::move(initial)) {}

Tensor Variable::Peek() const {
  absl::MutexLock lock(&mu_);
  return value_;
}

Tensor Variable::Read() const {
  Tensor snapshot;
  {
    absl::MutexLock lock(&mu_);
    // A fresh handle (new id) over the same buffer: the tape links this id
    // to the variable.
    snapshot = *value_.Reshaped(shape_);
  }
  const std::vector<ExecutionObserver*> current = CurrentObservers();
  for (auto it = current.rbegin(); it != current.rend(); ++it) {
    (*it)->OnVariableRead(*this, snapshot);
  }
  return snapshot;
}

absl::Status Variable::CheckCompatible(const Tensor& t, const char* what) const {
  if (!t.defined()) {
    return InvalidArgument(what, " to variable '", name_, "': value is undefined");
  }
  if (t.dtype() != dtype_ || t.shape() != shape_) {
    return InvalidArgument(what, " to variable '", name_, "' of ", DataTypeName(dtype_),
                           " ", shape_.DebugString(), ": got ", DataTypeName(t.dtype()),
                           " ", t.shape().DebugString());
  }
  return absl::OkStatus();
}

absl::Status Variable::Assign(const Tensor& value) {
  TFD_RETURN_IF_ERROR(CheckCompatible(value, "Assign"));
  // Copy: the caller keeps its tensor, and later writes must not reach it.
  TFD_ASSIGN_OR_RETURN(Tensor copy, value.CopyTo(device_));
  absl::MutexLock lock(&mu_);
  value_ = std::move(copy);
  return absl::OkStatus();
}

absl::Status Variable::Combine(const Tensor& delta, const char* op) {
  TFD_RETURN_IF_ERROR(CheckCompatible(delta, op));
  absl::MutexLock lock(&mu_);
  TFD_ASSIGN_OR_RETURN(Tensor updated,
                       Execute1(op, {value_, delta}, AttrMap(), device_));
  value_ = std::move(updated);
  return absl::OkStatus();
}

absl::Status Variable::AssignAdd(const Tensor& delta) { return Combine(delta, "AddV2"); }

absl::Status Variable::AssignSub(const Tensor& delta) { return Combine(delta, "Sub"); }

absl::StatusOr<Tensor> Variable::MutableValue() {
  if (!value_.BufferIsUnique()) {
    TFD_ASSIGN_OR_RETURN(value_, value_.CopyTo(device_));
  }
  return value_;
}

}  // namespace tfd
