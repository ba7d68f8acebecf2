#include "core/framework/execute.h"

#include <algorithm>

#include "absl/container/inlined_vector.h"
#include "absl/strings/str_join.h"
#include "core/framework/device_access.h"
#include "core/framework/device_constants.h"
#include "core/framework/kernel.h"
#include "core/framework/op_counts.h"
#include "core/framework/placement.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

thread_local std::vector<ExecutionObserver*> observers;

// The ArgDef each input binds to. Inline: an op call allocates no memory
// it can avoid (Execute runs for every op).
using ArgOfInput = absl::InlinedVector<const ArgDef*, 8>;

bool AttrMatchesType(const AttrValue& v, const std::string& type) {
  return type == AttrTypeName(v);
}

// How attrs taken from the OpDef enter the call's AttrMap: Execute's OpDefs
// are registered, so it holds their names and defaults by reference, and
// the dtypes and lengths it infers are constants (Note [Borrowed attrs] in
// attr_value.h); InferCall's OpDef may be the caller's, so it copies.
enum class FromOpDef { kBorrow, kCopy };

// An inferred attr: a type attr's dtype or a list's length.
template <typename T>
void SetInferred(FromOpDef mode, const std::string& name, T value, AttrMap* attrs) {
  if (mode == FromOpDef::kCopy) {
    attrs->SetValue(name, value);
  } else if (const AttrValue* constant = ConstantAttrValue(value)) {
    attrs->SetBorrowed(name, *constant);
  } else {
    attrs->SetBorrowingName(name, value);
  }
}

// Binds inputs to the OpDef's argument list: sets number attrs (N) and type
// attrs (T) from the inputs, checks fixed dtypes and consistency.
absl::Status BindInputs(const OpDef& op, absl::Span<const Tensor> inputs, FromOpDef mode,
                        AttrMap* attrs, ArgOfInput* arg_of_input) {
  // Count how many inputs the list arguments take.
  int fixed_args = 0;
  int list_args = 0;
  for (const ArgDef& a : op.inputs) (a.number_attr.empty() ? fixed_args : list_args)++;
  const int n = static_cast<int>(inputs.size());
  if (list_args == 0 && n != fixed_args) {
    return InvalidArgument(op.name, ": expected ", fixed_args, " inputs, got ", n);
  }
  if (list_args > 1) {
    return Internal(op.name, ": ops with several input lists are not supported");
  }
  const int list_len = n - fixed_args;
  if (list_args == 1 && list_len < 1) {
    return InvalidArgument(op.name, ": expected at least ", fixed_args + 1,
                           " inputs, got ", n);
  }
  int next = 0;
  for (const ArgDef& arg : op.inputs) {
    int count = 1;
    if (!arg.number_attr.empty()) {
      count = list_len;
      if (const AttrValue* given = attrs->Find(arg.number_attr)) {
        const int64_t* g = std::get_if<int64_t>(given);
        if (g == nullptr || *g != count) {
          return InvalidArgument(op.name, ": attr ", arg.number_attr, "=",
                                 AttrValueDebugString(*given), " but ", count, " '",
                                 arg.name, "' inputs were given");
        }
      }
      SetInferred(mode, arg.number_attr, int64_t{count}, attrs);
    }
    for (int k = 0; k < count; ++k, ++next) {
      const Tensor& t = inputs[next];
      arg_of_input->push_back(&arg);
      if (!t.defined()) {
        return InvalidArgument(op.name, ": input '", arg.name, "' is undefined");
      }
      if (arg.fixed_type != DT_INVALID) {
        if (t.dtype() != arg.fixed_type) {
          return InvalidArgument(op.name, ": input '", arg.name, "' must be ",
                                 DataTypeName(arg.fixed_type), ", got ",
                                 DataTypeName(t.dtype()));
        }
        continue;
      }
      const AttrValue* bound = attrs->Find(arg.type_attr);
      if (bound == nullptr) {
        SetInferred(mode, arg.type_attr, t.dtype(), attrs);
        continue;
      }
      const DataType* want = std::get_if<DataType>(bound);
      if (want == nullptr || *want != t.dtype()) {
        return InvalidArgument(op.name, ": input '", arg.name, "' has dtype ",
                               DataTypeName(t.dtype()), " but ", arg.type_attr, " is ",
                               AttrValueDebugString(*bound));
      }
    }
  }
  return absl::OkStatus();
}

// Fills defaults, and checks that every attr is known, present and typed.
absl::Status CheckAttrs(const OpDef& op, FromOpDef mode, AttrMap* attrs) {
  for (const AttrDef& def : op.attrs) {
    const AttrValue* v = attrs->Find(def.name);
    if (v == nullptr) {
      if (!def.default_value) {
        return InvalidArgument(op.name, ": missing required attr '", def.name, "' (",
                               def.type, ")");
      }
      if (mode == FromOpDef::kBorrow) {
        attrs->SetBorrowed(def.name, *def.default_value);
      } else {
        attrs->SetValue(def.name, *def.default_value);
      }
      continue;
    }
    if (!AttrMatchesType(*v, def.type)) {
      return InvalidArgument(op.name, ": attr '", def.name, "' must be ", def.type,
                             ", got ", AttrTypeName(*v), " ", AttrValueDebugString(*v));
    }
    if (!def.allowed_types.empty()) {
      const DataType t = std::get<DataType>(*v);
      if (std::find(def.allowed_types.begin(), def.allowed_types.end(), t) ==
          def.allowed_types.end()) {
        std::vector<std::string> names;
        for (DataType a : def.allowed_types) names.push_back(DataTypeName(a));
        return InvalidArgument(op.name, ": ", def.name, "=", DataTypeName(t),
                               " is not supported; allowed: [",
                               absl::StrJoin(names, ", "), "]");
      }
    }
  }
  // Every AttrDef now has a value, so the names match the defs exactly
  // when the counts do; only a larger map holds an unknown name.
  if (attrs->size() == op.attrs.size()) return absl::OkStatus();
  for (const auto& [name, value] : attrs->values()) {
    if (op.FindAttr(name) == nullptr) {
      return InvalidArgument(op.name, ": unknown attr '", name, "'");
    }
  }
  return absl::OkStatus();
}

absl::Status OutputDtypes(const OpDef& op, const AttrMap& attrs,
                          absl::InlinedVector<DataType, 4>* dtypes) {
  for (const ArgDef& arg : op.outputs) {
    int count = 1;
    if (!arg.number_attr.empty()) {
      TFD_ASSIGN_OR_RETURN(int64_t n, attrs.Get<int64_t>(arg.number_attr));
      count = static_cast<int>(n);
    }
    DataType t = arg.fixed_type;
    if (t == DT_INVALID) {
      absl::StatusOr<DataType> bound = attrs.Get<DataType>(arg.type_attr);
      if (!bound.ok()) {
        return InvalidArgument(op.name, ": output type attr '", arg.type_attr,
                               "' is not set");
      }
      t = *bound;
    }
    for (int k = 0; k < count; ++k) dtypes->push_back(t);
  }
  return absl::OkStatus();
}

// The shape function's half of InferCall, on inputs already bound.
absl::StatusOr<InferredCall> InferShapes(const OpDef& op, absl::Span<const Tensor> inputs,
                                         const AttrMap& attrs) {
  // Values are only readable here when they are in host memory.
  ShapeContext ctx(op.name, inputs, &attrs);
  InferredCall call;
  TFD_ASSIGN_OR_RETURN(call.shapes, op.shape_fn(ctx));
  TFD_RETURN_IF_ERROR(OutputDtypes(op, attrs, &call.dtypes));
  if (call.shapes.size() != call.dtypes.size()) {
    return Internal(op.name, ": shape function gave ", call.shapes.size(),
                    " shapes for ", call.dtypes.size(), " outputs");
  }
  return call;
}

}  // namespace

void AddObserver(ExecutionObserver* observer) { observers.push_back(observer); }

void RemoveObserver(ExecutionObserver* observer) {
  auto it = std::find(observers.begin(), observers.end(), observer);
  if (it != observers.end()) observers.erase(it);
}

const std::vector<ExecutionObserver*>& CurrentObservers() { return observers; }

absl::StatusOr<InferredCall> InferCall(const OpDef& op, absl::Span<const Tensor> inputs,
                                       AttrMap* attrs) {
  ArgOfInput arg_of_input;
  TFD_RETURN_IF_ERROR(BindInputs(op, inputs, FromOpDef::kCopy, attrs, &arg_of_input));
  TFD_RETURN_IF_ERROR(CheckAttrs(op, FromOpDef::kCopy, attrs));
  return InferShapes(op, inputs, *attrs);
}

absl::StatusOr<std::vector<Tensor>> Execute(absl::string_view op_name,
                                            absl::Span<const Tensor> inputs,
                                            const AttrMap& given_attrs, Device* device) {
  TFD_ASSIGN_OR_RETURN(const OpDef* op, LookupOpDef(op_name));

  // Binding needs no device; the kernel's dtype it yields is what soft
  // placement asks about.
  AttrMap attrs = given_attrs;
  ArgOfInput arg_of_input;
  TFD_RETURN_IF_ERROR(BindInputs(*op, inputs, FromOpDef::kBorrow, &attrs, &arg_of_input));
  TFD_RETURN_IF_ERROR(CheckAttrs(*op, FromOpDef::kBorrow, &attrs));
  DataType kernel_dtype = DT_INVALID;
  if (!op->kernel_type_attr.empty()) {
    TFD_ASSIGN_OR_RETURN(kernel_dtype, attrs.Get<DataType>(op->kernel_type_attr));
  }
  TFD_ASSIGN_OR_RETURN(device, PlaceOp(*op, inputs, kernel_dtype, device));

  // Inputs in another memory space are copied over: to the device for
  // ordinary inputs, to the host for host-memory ones (shapes, axes).
  // `placed` is filled only when some input moves; otherwise the kernel
  // reads the caller's tensors.
  std::vector<Tensor> placed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& t = inputs[i];
    const bool want_host = arg_of_input[i]->host_memory || device->host_memory();
    Device* to = nullptr;
    if (want_host && !t.device()->host_memory()) {
      to = HostDevice();
    } else if (!want_host && t.device() != device) {
      to = device;
    }
    if (to == nullptr) continue;
    if (placed.empty()) placed.assign(inputs.begin(), inputs.end());
    // Small host values (a learning rate, a batch size) are copied to a
    // device once, not at every op that reads them (device_constants.h).
    const bool constant = t.device()->host_memory() && !to->host_memory() &&
                          t.TotalBytes() <= kDeviceConstantMaxBytes;
    TFD_ASSIGN_OR_RETURN(placed[i], constant ? DeviceConstant(t, to) : t.CopyTo(to));
  }
  const absl::Span<const Tensor> kernel_inputs =
      placed.empty() ? inputs : absl::Span<const Tensor>(placed);

  TFD_ASSIGN_OR_RETURN(InferredCall inferred, InferShapes(*op, kernel_inputs, attrs));
  TFD_ASSIGN_OR_RETURN(const KernelFn* kernel,
                       LookupKernel(op->name, device->type(), kernel_dtype));

  KernelContext ctx(op, kernel_inputs, &attrs, device, std::move(inferred.shapes),
                    inferred.dtypes);
  CountOpDispatch(op->name, *device);
  {
    TFD_DEVICE_ACCESS_SCOPE(device);  // Note [Device reads]
    TFD_RETURN_IF_ERROR((*kernel)(ctx));
  }
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, ctx.TakeOutputs());

  if (!observers.empty()) {
    // Copy the list: an observer may remove itself while notified.
    // Observers see the caller's tensors (their ids), not placement copies.
    const absl::InlinedVector<ExecutionObserver*, 4> current(observers.begin(),
                                                             observers.end());
    const OpCall call{op, attrs, inputs, outputs, device};
    for (auto it = current.rbegin(); it != current.rend(); ++it) (*it)->OnExecute(call);
  }
  return outputs;
}

absl::StatusOr<Tensor> Execute1(absl::string_view op, absl::Span<const Tensor> inputs,
                                const AttrMap& attrs, Device* device) {
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> outputs, Execute(op, inputs, attrs, device));
  if (outputs.size() != 1) {
    return InvalidArgument(op, " has ", outputs.size(), " outputs; Execute1 wants one");
  }
  return std::move(outputs[0]);
}

}  // namespace tfd
