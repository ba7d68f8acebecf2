#include "core/graph/op_signature.h"

#include "absl/container/flat_hash_map.h"
#include "core/framework/op_def.h"
#include "core/framework/status.h"

namespace tfd {
namespace graph {
namespace {

// How a graph op's single output argument is typed.
enum class OutKind {
  kNone,        // No outputs.
  kTypeAttr,    // One tensor of the dtype in `attr`.
  kResource,    // One DT_RESOURCE handle.
  kTypeList,    // One tensor per entry of the list(type) attr `attr`.
};

struct GraphOpDef {
  std::string out_name;
  OutKind kind;
  std::string attr;
  int min_inputs;
  int max_inputs;  // -1: no limit. For kTypeList ops whose inputs follow the
                   // list (IdentityN), -2: exactly the list's length.
};

// TensorFlow's signatures of the ops a graph runtime runs itself.
const absl::flat_hash_map<std::string, GraphOpDef>& GraphOps() {
  static const auto* ops = new absl::flat_hash_map<std::string, GraphOpDef>{
      {"Placeholder", {"output", OutKind::kTypeAttr, "dtype", 0, 0}},
      {"PlaceholderWithDefault", {"output", OutKind::kTypeAttr, "dtype", 1, 1}},
      {"Const", {"output", OutKind::kTypeAttr, "dtype", 0, 0}},
      {"VarHandleOp", {"resource", OutKind::kResource, "", 0, 0}},
      {"ReadVariableOp", {"value", OutKind::kTypeAttr, "dtype", 1, 1}},
      {"AssignVariableOp", {"", OutKind::kNone, "", 2, 2}},
      {"DisableCopyOnRead", {"", OutKind::kNone, "", 1, 1}},
      {"RestoreV2", {"tensors", OutKind::kTypeList, "dtypes", 3, 3}},
      {"SaveV2", {"", OutKind::kNone, "", 4, -1}},
      {"NoOp", {"", OutKind::kNone, "", 0, 0}},
      {"IdentityN", {"output", OutKind::kTypeList, "T", 1, -2}},
      {"StatefulPartitionedCall", {"output", OutKind::kTypeList, "Tout", 0, -1}},
      {"PartitionedCall", {"output", OutKind::kTypeList, "Tout", 0, -1}},
  };
  return *ops;
}

const tensorflow::AttrValue* Find(const ProtoAttrMap& attrs, const std::string& name) {
  auto it = attrs.find(name);
  return it == attrs.end() ? nullptr : &it->second;
}

absl::StatusOr<std::vector<DataType>> TypeList(absl::string_view op, const ProtoAttrMap& attrs,
                                               const std::string& name) {
  const tensorflow::AttrValue* v = Find(attrs, name);
  if (v == nullptr || v->value_case() != tensorflow::AttrValue::kList) {
    return InvalidArgument(op, ": attr '", name, "' (list(type)) is missing");
  }
  std::vector<DataType> types;
  for (int t : v->list().type()) types.push_back(static_cast<DataType>(t));
  return types;
}

absl::StatusOr<DataType> TypeAttr(absl::string_view op, const ProtoAttrMap& attrs,
                                  const std::string& name, const AttrDef* def) {
  const tensorflow::AttrValue* v = Find(attrs, name);
  if (v != nullptr) {
    if (v->value_case() != tensorflow::AttrValue::kType) {
      return InvalidArgument(op, ": attr '", name, "' must be a type");
    }
    return static_cast<DataType>(v->type());
  }
  if (def != nullptr && def->default_value.has_value()) {
    if (const DataType* d = std::get_if<DataType>(&*def->default_value)) return *d;
  }
  return InvalidArgument(op, ": attr '", name, "' (type) is missing");
}

}  // namespace

bool IsGraphOp(absl::string_view op) { return GraphOps().contains(op); }

bool IsFunctionCallOp(absl::string_view op) {
  return op == "StatefulPartitionedCall" || op == "PartitionedCall";
}

absl::StatusOr<std::vector<OutputArg>> OutputArgs(absl::string_view op,
                                                  const ProtoAttrMap& attrs) {
  auto it = GraphOps().find(op);
  if (it != GraphOps().end()) {
    const GraphOpDef& def = it->second;
    switch (def.kind) {
      case OutKind::kNone:
        return std::vector<OutputArg>{};
      case OutKind::kResource:
        return std::vector<OutputArg>{{def.out_name, {DT_RESOURCE}}};
      case OutKind::kTypeAttr: {
        TFD_ASSIGN_OR_RETURN(DataType t, TypeAttr(op, attrs, def.attr, nullptr));
        return std::vector<OutputArg>{{def.out_name, {t}}};
      }
      case OutKind::kTypeList: {
        TFD_ASSIGN_OR_RETURN(std::vector<DataType> types, TypeList(op, attrs, def.attr));
        return std::vector<OutputArg>{{def.out_name, std::move(types)}};
      }
    }
  }
  absl::StatusOr<const OpDef*> looked_up = LookupOpDef(op);
  if (!looked_up.ok()) return NotFound("op '", op, "' is not known to tfd");
  const OpDef& def = **looked_up;
  std::vector<OutputArg> out;
  for (const ArgDef& arg : def.outputs) {
    int64_t count = 1;
    if (!arg.number_attr.empty()) {
      const tensorflow::AttrValue* n = Find(attrs, arg.number_attr);
      if (n == nullptr || n->value_case() != tensorflow::AttrValue::kI || n->i() < 0 ||
          n->i() > (1 << 20)) {
        return InvalidArgument(op, ": attr '", arg.number_attr,
                               "' (a non-negative int) is missing or invalid");
      }
      count = n->i();
    }
    DataType t = arg.fixed_type;
    if (t == DT_INVALID) {
      TFD_ASSIGN_OR_RETURN(t, TypeAttr(op, attrs, arg.type_attr, def.FindAttr(arg.type_attr)));
    }
    out.push_back({arg.name, std::vector<DataType>(count, t)});
  }
  return out;
}

absl::StatusOr<std::vector<DataType>> OutputTypes(absl::string_view op,
                                                  const ProtoAttrMap& attrs) {
  TFD_ASSIGN_OR_RETURN(std::vector<OutputArg> args, OutputArgs(op, attrs));
  std::vector<DataType> types;
  for (const OutputArg& a : args) types.insert(types.end(), a.types.begin(), a.types.end());
  return types;
}

absl::StatusOr<InputCount> GraphOpInputCount(absl::string_view op, const ProtoAttrMap& attrs) {
  auto it = GraphOps().find(op);
  if (it == GraphOps().end()) return NotFound("'", op, "' is not a graph op");
  const GraphOpDef& def = it->second;
  if (def.max_inputs == -2) {
    TFD_ASSIGN_OR_RETURN(std::vector<DataType> types, TypeList(op, attrs, def.attr));
    const int n = static_cast<int>(types.size());
    return InputCount{n, n};
  }
  return InputCount{def.min_inputs, def.max_inputs};
}

}  // namespace graph
}  // namespace tfd
