// Execute: the one dispatch point of every op in tfd.
//
// It looks the op up, binds inputs to the OpDef (inferring type attrs such
// as "T" from the inputs, filling attr defaults, checking dtypes), runs the
// shape function, picks the device (explicit argument, else the innermost
// DeviceScope, else the device of the first non-host input, else the host),
// moves inputs between host and device memory where needed, runs the kernel
// for (op, device type, dtype), and then tells this thread's observers.
//
// Observers are how GradientTape records ops and how a tracer will build
// graphs: both see every op executed on their thread while registered.
//
//   TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("MatMul", {x, w},
//                                           AttrMap().Set("transpose_b", true)));
//
// Errors: NOT_FOUND for an unknown op or missing kernel; INVALID_ARGUMENT,
// naming the op, for bad inputs or attrs; RESOURCE_EXHAUSTED for memory.
#ifndef TFD_CORE_FRAMEWORK_EXECUTE_H_
#define TFD_CORE_FRAMEWORK_EXECUTE_H_

#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/framework/attr_value.h"
#include "core/framework/op_def.h"
#include "core/framework/tensor.h"

namespace tfd {

class Variable;

// One executed op, as observers see it.
struct OpCall {
  const OpDef* op;
  const AttrMap& attrs;  // Complete: inferred type attrs and defaults included.
  absl::Span<const Tensor> inputs;
  absl::Span<const Tensor> outputs;
  Device* device;
};

class ExecutionObserver {
 public:
  virtual ~ExecutionObserver() = default;
  virtual void OnExecute(const OpCall& call) = 0;
  // A variable was read; `value` is the snapshot handed out.
  virtual void OnVariableRead(const Variable& variable, const Tensor& value) {}
};

// Registers `observer` for this thread's ops until RemoveObserver. Observers
// are notified innermost (last added) first.
void AddObserver(ExecutionObserver* observer);
void RemoveObserver(ExecutionObserver* observer);
// This thread's observers, outermost first.
const std::vector<ExecutionObserver*>& CurrentObservers();

absl::StatusOr<std::vector<Tensor>> Execute(absl::string_view op,
                                            absl::Span<const Tensor> inputs,
                                            const AttrMap& attrs = AttrMap(),
                                            Device* device = nullptr);

// For ops with exactly one output.
absl::StatusOr<Tensor> Execute1(absl::string_view op, absl::Span<const Tensor> inputs,
                                const AttrMap& attrs = AttrMap(),
                                Device* device = nullptr);

// Infers the output shapes and dtypes of a call without running it (the
// validation half of Execute). Fills `attrs` with inferred and default
// values. Used by Execute and by graph tracing.
struct InferredCall {
  std::vector<TensorShape> shapes;
  absl::InlinedVector<DataType, 4> dtypes;
};
absl::StatusOr<InferredCall> InferCall(const OpDef& op, absl::Span<const Tensor> inputs,
                                       AttrMap* attrs);

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_EXECUTE_H_
