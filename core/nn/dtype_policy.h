// DTypePolicy: Keras's mixed-precision dtype policies
// (tf.keras.mixed_precision.Policy) and the global policy layers default to.
//
// A policy names two dtypes: the compute dtype, in which a layer casts its
// inputs, reads its weights and produces its output, and the variable
// dtype, in which it creates its weights. "float32" (the default),
// "float64", "float16" and "bfloat16" use one dtype for both;
// "mixed_float16" and "mixed_bfloat16" compute in 16 bits and keep float32
// variables, so updates are not lost to 16-bit rounding. Keras's advice
// holds here too: give the model's last layer (the softmax) dtype float32,
// and wrap the optimizer in a LossScaleOptimizer under mixed_float16
// (loss_scale_optimizer.h; WrapOptimizerForPolicy does it as Keras's
// compile() does).
//
// A layer takes its policy when it is constructed: LayerOptions's explicit
// policy or dtype, else the global policy of that moment. Changing the
// global policy later does not change existing layers.
//
// Thread safety: GlobalPolicy and SetGlobalPolicy may be called from any
// thread; the global policy is process-wide, as in Keras.
//
//   TFD_ASSIGN_OR_RETURN(DTypePolicy mixed, DTypePolicy::FromName("mixed_bfloat16"));
//   SetGlobalPolicy(mixed);
//   Dense hidden(128);   // bfloat16 compute, float32 kernel and bias
//   Dense logits(10, Dense::Options().Dtype(DT_FLOAT));   // float32 output
#ifndef TFD_CORE_NN_DTYPE_POLICY_H_
#define TFD_CORE_NN_DTYPE_POLICY_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/framework/types.h"

namespace tfd {
namespace nn {

class DTypePolicy {
 public:
  // The policy of a layer with dtype `dtype`: both dtypes `dtype`, named
  // after it ("float32").
  explicit DTypePolicy(DataType dtype);

  // "mixed_float16", "mixed_bfloat16" or a dtype name ("float32", "half",
  // ...). INVALID_ARGUMENT with Keras's message for any other name.
  static absl::StatusOr<DTypePolicy> FromName(absl::string_view name);

  const std::string& name() const { return name_; }
  DataType compute_dtype() const { return compute_dtype_; }
  DataType variable_dtype() const { return variable_dtype_; }
  // Whether compute and variable dtypes differ (Keras's mixed policies).
  bool is_mixed() const { return compute_dtype_ != variable_dtype_; }

  bool operator==(const DTypePolicy& other) const { return name_ == other.name_; }
  bool operator!=(const DTypePolicy& other) const { return !(*this == other); }

 private:
  DTypePolicy(std::string name, DataType compute_dtype, DataType variable_dtype);

  std::string name_;
  DataType compute_dtype_;
  DataType variable_dtype_;
};

// The policy new layers take when their options name neither a policy nor
// a dtype; "float32" until set.
DTypePolicy GlobalPolicy();

// Replaces the global policy. INVALID_ARGUMENT (Keras's message) when its
// compute dtype is not floating.
absl::Status SetGlobalPolicy(const DTypePolicy& policy);
absl::Status SetGlobalPolicy(absl::string_view name);

// Sets the global policy for the lifetime of the object and restores the
// previous one after, for tests and scoped model construction.
class ScopedGlobalPolicy {
 public:
  explicit ScopedGlobalPolicy(const DTypePolicy& policy);
  ~ScopedGlobalPolicy();
  ScopedGlobalPolicy(const ScopedGlobalPolicy&) = delete;
  ScopedGlobalPolicy& operator=(const ScopedGlobalPolicy&) = delete;

 private:
  DTypePolicy previous_;
};

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_DTYPE_POLICY_H_
