#include "core/graph/attr_proto.h"

#include <type_traits>

#include "core/framework/status.h"
#include "core/graph/tensor_proto.h"

namespace tfd {
namespace graph {
namespace {

absl::Status WrongKind(const std::string& name, const std::string& type,
                       const tensorflow::AttrValue& proto) {
  return InvalidArgument("attr '", name, "' must be ", type, ", got ",
                         proto.ShortDebugString());
}

// A list attr must hold only the wanted element field (or nothing: an empty
// list).
bool ListHoldsOnly(const tensorflow::AttrValue::ListValue& l, int field) {
  const int sizes[] = {l.s_size(), l.i_size(), l.f_size(), l.b_size(), l.type_size(),
                       l.shape_size(), l.tensor_size(), l.func_size()};
  for (int k = 0; k < 8; ++k) {
    if (k != field && sizes[k] > 0) return false;
  }
  return true;
}

}  // namespace

absl::StatusOr<tensorflow::AttrValue> AttrToProto(const AttrValue& value) {
  tensorflow::AttrValue p;
  absl::Status status;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, int64_t>) {
          p.set_i(v);
        } else if constexpr (std::is_same_v<T, float>) {
          p.set_f(v);
        } else if constexpr (std::is_same_v<T, bool>) {
          p.set_b(v);
        } else if constexpr (std::is_same_v<T, std::string>) {
          p.set_s(v);
        } else if constexpr (std::is_same_v<T, DataType>) {
          p.set_type(static_cast<tensorflow::DataType>(v));
        } else if constexpr (std::is_same_v<T, TensorShape>) {
          *p.mutable_shape() = ShapeToProto(v.dims());
        } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
          auto* l = p.mutable_list();
          for (int64_t x : v) l->add_i(x);
        } else if constexpr (std::is_same_v<T, std::vector<float>>) {
          auto* l = p.mutable_list();
          for (float x : v) l->add_f(x);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          auto* l = p.mutable_list();
          for (const std::string& x : v) l->add_s(x);
        } else if constexpr (std::is_same_v<T, std::vector<DataType>>) {
          auto* l = p.mutable_list();
          for (DataType x : v) l->add_type(static_cast<tensorflow::DataType>(x));
        } else if constexpr (std::is_same_v<T, Tensor>) {
          absl::StatusOr<tensorflow::TensorProto> t = TensorToProto(v);
          if (t.ok()) {
            *p.mutable_tensor() = *std::move(t);
          } else {
            status = t.status();
          }
        }
      },
      value);
  TFD_RETURN_IF_ERROR(status);
  // An empty list still needs the `list` field set to say "a list".
  if (p.value_case() == tensorflow::AttrValue::VALUE_NOT_SET) p.mutable_list();
  return p;
}

absl::StatusOr<AttrValue> AttrFromProto(const std::string& name,
                                        const tensorflow::AttrValue& p,
                                        const std::string& type) {
  using V = tensorflow::AttrValue;
  const bool is_list = p.value_case() == V::kList;
  if (type == "int") {
    if (p.value_case() != V::kI) return WrongKind(name, type, p);
    return AttrValue(int64_t{p.i()});
  }
  if (type == "float") {
    if (p.value_case() != V::kF) return WrongKind(name, type, p);
    return AttrValue(p.f());
  }
  if (type == "bool") {
    if (p.value_case() != V::kB) return WrongKind(name, type, p);
    return AttrValue(p.b());
  }
  if (type == "string") {
    if (p.value_case() != V::kS) return WrongKind(name, type, p);
    return AttrValue(p.s());
  }
  if (type == "type") {
    if (p.value_case() != V::kType) return WrongKind(name, type, p);
    return AttrValue(static_cast<DataType>(p.type()));
  }
  if (type == "shape") {
    if (p.value_case() != V::kShape) return WrongKind(name, type, p);
    absl::StatusOr<TensorShape> s = ShapeFromProto(p.shape());
    if (!s.ok()) {
      return InvalidArgument("attr '", name, "': ", s.status().message());
    }
    return AttrValue(*std::move(s));
  }
  if (type == "tensor") {
    if (p.value_case() != V::kTensor) return WrongKind(name, type, p);
    absl::StatusOr<Tensor> t = TensorFromProto(p.tensor());
    if (!t.ok()) return InvalidArgument("attr '", name, "': ", t.status().message());
    return AttrValue(*std::move(t));
  }
  // Lists: field numbers of ListValue in the order ListHoldsOnly checks.
  if (type == "list(int)") {
    if (!is_list || !ListHoldsOnly(p.list(), 1)) return WrongKind(name, type, p);
    return AttrValue(std::vector<int64_t>(p.list().i().begin(), p.list().i().end()));
  }
  if (type == "list(float)") {
    if (!is_list || !ListHoldsOnly(p.list(), 2)) return WrongKind(name, type, p);
    return AttrValue(std::vector<float>(p.list().f().begin(), p.list().f().end()));
  }
  if (type == "list(string)") {
    if (!is_list || !ListHoldsOnly(p.list(), 0)) return WrongKind(name, type, p);
    return AttrValue(std::vector<std::string>(p.list().s().begin(), p.list().s().end()));
  }
  if (type == "list(type)") {
    if (!is_list || !ListHoldsOnly(p.list(), 4)) return WrongKind(name, type, p);
    std::vector<DataType> types;
    for (int t : p.list().type()) types.push_back(static_cast<DataType>(t));
    return AttrValue(std::move(types));
  }
  return Unimplemented("attr '", name, "' has type ", type,
                       ", which tfd's attrs cannot hold");
}

absl::StatusOr<AttrMap> AttrMapFromProto(
    const OpDef& op, const std::map<std::string, tensorflow::AttrValue>& attrs) {
  AttrMap out;
  for (const auto& [name, proto] : attrs) {
    if (!name.empty() && name[0] == '_') continue;
    const AttrDef* def = op.FindAttr(name);
    if (def == nullptr) {
      return InvalidArgument("attr '", name, "' is not an attr of op ", op.name);
    }
    TFD_ASSIGN_OR_RETURN(AttrValue v, AttrFromProto(name, proto, def->type));
    out.SetValue(name, std::move(v));
  }
  return out;
}

bool IsDefaultAttr(const OpDef& op, const std::string& attr_name, const AttrValue& value) {
  const AttrDef* def = op.FindAttr(attr_name);
  if (def == nullptr || !def->default_value.has_value()) return false;
  const AttrValue& d = *def->default_value;
  if (d.index() != value.index()) return false;
  // Tensors have no value equality; they are never defaults here.
  return std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, Tensor>) {
          return false;
        } else {
          return std::get<T>(d) == v;
        }
      },
      value);
}

}  // namespace graph
}  // namespace tfd
