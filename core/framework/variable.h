// Variable: mutable state (weights, optimizer slots, counters) as a
// resource, like TensorFlow's ResourceVariable.
//
// Read() returns a snapshot: a tensor sharing the current buffer. Writes
// never modify a buffer that a snapshot still holds; they either write in
// place (when the variable holds the only reference) or install a new
// buffer, so a value read earlier in a step never changes under its reader.
//
// Reads are reported to this thread's ExecutionObservers, which is how a
// GradientTape differentiates with respect to variables: each variable has
// a process-unique handle_id() that the tape uses as the source id.
//
// Thread-safe: reads and writes may come from many threads (replicas).
//
//   Variable w("dense/kernel", initial);
//   Tensor snapshot = w.Read();
//   TFD_RETURN_IF_ERROR(w.AssignSub(lr_times_grad));
#ifndef TFD_CORE_FRAMEWORK_VARIABLE_H_
#define TFD_CORE_FRAMEWORK_VARIABLE_H_

#include <cstdint>
#include <string>

#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "core/framework/tensor.h"

namespace tfd {

class Variable {
 public:
  // The variable takes `initial` (its dtype, shape and device) as its value.
  Variable(std::string name, Tensor initial, bool trainable = true);
  Variable(const Variable&) = delete;
  Variable& operator=(const Variable&) = delete;

  const std::string& name() const { return name_; }
  bool trainable() const { return trainable_; }
  uint64_t handle_id() const { return handle_id_; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  Device* device() const { return device_; }

  // A snapshot of the current value; notifies observers (tapes).
  Tensor Read() const;
  // The current value without notifying observers (checkpointing, tests).
  Tensor Peek() const;

  // Replaces the value. `value` must have the variable's dtype and shape;
  // it is copied to the variable's device when it lives elsewhere.
  absl::Status Assign(const Tensor& value);
  // value += delta, value -= delta (delta: same dtype and shape).
  absl::Status AssignAdd(const Tensor& delta);
  absl::Status AssignSub(const Tensor& delta);

  // For fused update kernels (optimizers): a tensor the caller may write in
  // place, made private (copied) first if a snapshot shares its buffer.
  // Hold the lock returned by Mutex() around the write.
  absl::StatusOr<Tensor> MutableValue() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  absl::Mutex* Mutex() const ABSL_LOCK_RETURNED(mu_) { return &mu_; }

 private:
  absl::Status CheckCompatible(const Tensor& t, const char* what) const;
  absl::Status Combine(const Tensor& delta, const char* op);

  const std::string name_;
  const bool trainable_;
  const uint64_t handle_id_;
  const DataType dtype_;
  const TensorShape shape_;
  Device* const device_;
  mutable absl::Mutex mu_;
  Tensor value_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_VARIABLE_H_
