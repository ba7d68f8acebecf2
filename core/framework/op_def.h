// OpDef: the declaration of an op, once for all devices. Names, inputs,
// outputs and attrs follow TensorFlow's op registry exactly, so a traced
// call is a NodeDef. The shape function validates a call (shapes, attrs)
// and gives its output shapes; the kernels then trust what it checked.
//
//   TFD_REGISTER_OP("MatMul")
//       .Input("a", "T")
//       .Input("b", "T")
//       .Output("product", "T")
//       .TypeAttr("T", {DT_FLOAT, DT_DOUBLE})
//       .Attr("transpose_a", false)
//       .Attr("transpose_b", false)
//       .SetShapeFn(MatMulShape);
//
// The registry is filled by static initializers (libraries that register
// ops are alwayslink) and is read-only afterwards.
#ifndef TFD_CORE_FRAMEWORK_OP_DEF_H_
#define TFD_CORE_FRAMEWORK_OP_DEF_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "core/framework/attr_value.h"
#include "core/framework/tensor.h"

namespace tfd {

// One input or output. Its dtype is either a type attr ("T") or fixed.
// A list argument (ConcatV2's "values") has number_attr ("N") set.
struct ArgDef {
  std::string name;
  std::string type_attr;
  DataType fixed_type = DT_INVALID;
  std::string number_attr;
  // Inputs read on the host even when the op runs on a GPU (shapes, axes).
  bool host_memory = false;
};

struct AttrDef {
  std::string name;
  std::string type;  // "int", "float", "bool", "string", "type", "shape", "list(int)", ...
  std::optional<AttrValue> default_value;
  std::vector<DataType> allowed_types;  // For "type" attrs; empty: any.
};

// What a shape function sees: the call's input shapes and dtypes, its
// attrs (defaults filled in), and input values when they are known (always
// when executing eagerly; only for constants when tracing).
class ShapeContext {
 public:
  // Inputs given as shapes and dtypes, with the values that are known
  // (null where not): what tracing has.
  ShapeContext(std::string op_name, std::vector<TensorShape> shapes,
               std::vector<DataType> dtypes, std::vector<const Tensor*> values,
               const AttrMap* attrs)
      : owned_op_name_(std::move(op_name)),
        op_name_(&owned_op_name_),
        shapes_(std::move(shapes)),
        dtypes_(std::move(dtypes)),
        values_(std::move(values)),
        attrs_(attrs) {}
  // Inputs given as the tensors themselves, which outlive this context:
  // what Execute has. Copies nothing, since it runs for every op. Values
  // are known where the tensor is in host memory.
  ShapeContext(const std::string& op_name, absl::Span<const Tensor> tensors,
               const AttrMap* attrs)
      : op_name_(&op_name), tensors_(tensors), from_tensors_(true), attrs_(attrs) {}
  ShapeContext(const ShapeContext&) = delete;
  ShapeContext& operator=(const ShapeContext&) = delete;

  const std::string& op_name() const { return *op_name_; }
  int num_inputs() const {
    return static_cast<int>(from_tensors_ ? tensors_.size() : shapes_.size());
  }
  const TensorShape& input_shape(int i) const {
    return from_tensors_ ? tensors_[i].shape() : shapes_[i];
  }
  DataType input_dtype(int i) const {
    return from_tensors_ ? tensors_[i].dtype() : dtypes_[i];
  }
  // The input's value, or null when it is not known.
  const Tensor* input_tensor(int i) const {
    if (!from_tensors_) return values_[i];
    const Tensor& t = tensors_[i];
    return t.device()->host_memory() ? &t : nullptr;
  }
  const AttrMap& attrs() const { return *attrs_; }
  template <typename T>
  absl::StatusOr<T> GetAttr(absl::string_view name) const {
    absl::StatusOr<T> v = attrs_->Get<T>(name);
    if (!v.ok()) return InvalidArgument(*op_name_, ": ", v.status().message());
    return v;
  }

  // INVALID_ARGUMENT prefixed with the op's name: "Conv2D: input must be ...".
  template <typename... Args>
  absl::Status Error(const Args&... args) const {
    return InvalidArgument(*op_name_, ": ", args...);
  }

 private:
  std::string owned_op_name_;
  const std::string* op_name_;  // owned_op_name_ or the caller's.
  std::vector<TensorShape> shapes_;
  std::vector<DataType> dtypes_;
  std::vector<const Tensor*> values_;
  absl::Span<const Tensor> tensors_;
  bool from_tensors_ = false;
  const AttrMap* attrs_;
};

using ShapeFn =
    std::function<absl::StatusOr<std::vector<TensorShape>>(const ShapeContext&)>;

struct OpDef {
  std::string name;
  std::vector<ArgDef> inputs;
  std::vector<ArgDef> outputs;
  std::vector<AttrDef> attrs;
  ShapeFn shape_fn;
  // Stateful ops (random numbers) must not be deduplicated or folded.
  bool is_stateful = false;
  // The type attr whose value picks the kernel; empty when one kernel
  // serves every dtype (Reshape, Cast).
  std::string kernel_type_attr;

  const AttrDef* FindAttr(absl::string_view attr_name) const;
};

class OpDefBuilder {
 public:
  explicit OpDefBuilder(std::string name);

  // `type` is a type attr name ("T") or a fixed dtype name ("int32").
  OpDefBuilder& Input(std::string name, std::string type);
  // A list of tensors, all of dtype `type`, their count in attr `number_attr`.
  OpDefBuilder& InputList(std::string name, std::string type, std::string number_attr);
  // An input read on the host whatever the device (shapes, axes).
  OpDefBuilder& HostMemoryInput(std::string name, std::string type);
  OpDefBuilder& Output(std::string name, std::string type);
  OpDefBuilder& OutputList(std::string name, std::string type, std::string number_attr);
  // A type attr; the first one declared picks the kernel unless
  // KernelTypeAttr says otherwise.
  OpDefBuilder& TypeAttr(std::string name, std::vector<DataType> allowed = {});
  OpDefBuilder& TypeAttr(std::string name, std::vector<DataType> allowed, DataType default_value);
  // A required attr of the given type ("int", "list(int)", "string", ...).
  OpDefBuilder& RequiredAttr(std::string name, std::string type);
  // An attr with a default; its type is that of the value.
  OpDefBuilder& Attr(std::string name, AttrValue default_value);
  OpDefBuilder& Attr(std::string name, int v) { return Attr(std::move(name), AttrValue(int64_t{v})); }
  OpDefBuilder& Attr(std::string name, bool v) { return Attr(std::move(name), AttrValue(v)); }
  OpDefBuilder& Attr(std::string name, int64_t v) { return Attr(std::move(name), AttrValue(v)); }
  OpDefBuilder& Attr(std::string name, float v) { return Attr(std::move(name), AttrValue(v)); }
  OpDefBuilder& Attr(std::string name, double v) {
    return Attr(std::move(name), AttrValue(static_cast<float>(v)));
  }
  OpDefBuilder& Attr(std::string name, std::vector<int64_t> v) {
    return Attr(std::move(name), AttrValue(std::move(v)));
  }
  OpDefBuilder& Attr(std::string name, const char* v) {
    return Attr(std::move(name), AttrValue(std::string(v)));
  }
  OpDefBuilder& KernelTypeAttr(std::string name);
  // One kernel serves every dtype.
  OpDefBuilder& AnyTypeKernel();
  OpDefBuilder& SetShapeFn(ShapeFn fn);
  OpDefBuilder& Stateful();

  OpDef Build() const { return def_; }

 private:
  OpDef def_;
  bool kernel_type_set_ = false;
};

// Registers at static-initialization time; see TFD_REGISTER_OP.
struct OpRegistrar {
  OpRegistrar(const OpDefBuilder& builder);  // NOLINT: implicit by design.
};

// The OpDef named `name`, or NOT_FOUND "no op named 'X' is registered".
absl::StatusOr<const OpDef*> LookupOpDef(absl::string_view name);
// Every registered op, sorted by name.
std::vector<const OpDef*> AllOpDefs();

}  // namespace tfd

#define TFD_REGISTER_OP(name)                                         \
  static ::tfd::OpRegistrar TFD_INTERNAL_CONCAT(tfd_op_registrar_, __COUNTER__) \
      [[maybe_unused]] = ::tfd::OpDefBuilder(name)

#endif  // TFD_CORE_FRAMEWORK_OP_DEF_H_
