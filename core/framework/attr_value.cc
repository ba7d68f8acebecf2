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

AttrMap::Entries::iterator AttrMap::LowerBound(absl::string_view name) {
  auto it = entries_.begin();
  while (it != entries_.end() && absl::string_view(it->name()) < name) ++it;
  return it;
}

AttrMap& AttrMap::SetValue(absl::string_view name, AttrValue value) {
  auto it = LowerBound(name);
  if (it != entries_.end() && it->name() == name) {
    it->set_value(std::move(value));
  } else {
    entries_.emplace(it, name, std::move(value));
  }
  return *this;
}

AttrMap& AttrMap::SetBorrowingName(const std::string& name, AttrValue value) {
  auto it = LowerBound(name);
  if (it != entries_.end() && it->name() == name) {
    it->set_value(std::move(value));
  } else {
    entries_.emplace(it, &name, std::move(value));
  }
  return *this;
}

AttrMap& AttrMap::SetBorrowed(const std::string& name, const AttrValue& value) {
  auto it = LowerBound(name);
  if (it != entries_.end() && it->name() == name) {
    it->set_borrowed_value(&value);
  } else {
    entries_.emplace(it, &name, &value);
  }
  return *this;
}

// A scan: maps hold a handful of attrs, and a length check rejects most
// names before their bytes are compared.
const AttrValue* AttrMap::Find(absl::string_view name) const {
  for (const Entry& e : entries_) {
    if (e.name() == name) return &e.value();
  }
  return nullptr;
}

std::string AttrMap::DebugString() const {
  std::vector<std::string> parts;
  for (const Entry& e : entries_) {
    parts.push_back(e.name() + "=" + AttrValueDebugString(e.value()));
  }
  return "{" + absl::StrJoin(parts, ", ") + "}";
}

}  // namespace tfd
