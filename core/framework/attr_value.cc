#include "core/framework/attr_value.h"

#include "absl/strings/str_join.h"

namespace tfd {

const char* AttrTypeName(const AttrValue& value) {
  static const char* const kNames[] = {
      "int",       "float",       "bool",         "string",     "type",  "shape",
      "list(int)", "list(float)", "list(string)", "list(type)", "tensor"};
  return kNames[value.index()];
}

std::string AttrValueDebugString(const AttrValue& value) {
  struct Printer {
    std::string operator()(int64_t v) const { return absl::StrCat(v); }
    std::string operator()(float v) const { return absl::StrCat(v); }
    std::string operator()(bool v) const { return v ? "true" : "false"; }
    std::string operator()(const std::string& v) const { return v; }
    std::string operator()(DataType v) const { return DataTypeName(v); }
    std::string operator()(const TensorShape& v) const { return v.DebugString(); }
    std::string operator()(const std::vector<int64_t>& v) const {
      return "[" + absl::StrJoin(v, ",") + "]";
    }
    std::string operator()(const std::vector<float>& v) const {
      return "[" + absl::StrJoin(v, ",") + "]";
    }
    std::string operator()(const std::vector<std::string>& v) const {
      return "[" + absl::StrJoin(v, ",") + "]";
    }
    std::string operator()(const std::vector<DataType>& v) const {
      std::vector<std::string> names;
      for (DataType t : v) names.push_back(DataTypeName(t));
      return "[" + absl::StrJoin(names, ",") + "]";
    }
    std::string operator()(const Tensor& v) const { return v.DebugString(); }
  };
  return std::visit(Printer{}, value);
}

AttrMap& AttrMap::SetValue(absl::string_view name, AttrValue value) {
  auto it = values_.lower_bound(name);
  if (it != values_.end() && it->first == name) {
    it->second = std::move(value);
  } else {
    values_.emplace_hint(it, std::string(name), std::move(value));
  }
  return *this;
}

const AttrValue* AttrMap::Find(absl::string_view name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

std::string AttrMap::DebugString() const {
  std::vector<std::string> parts;
  for (const auto& [name, value] : values_) {
    parts.push_back(name + "=" + AttrValueDebugString(value));
  }
  return "{" + absl::StrJoin(parts, ", ") + "}";
}

}  // namespace tfd
