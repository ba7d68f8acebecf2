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

AttrMap::Entry& AttrMap::FindOrInsert(absl::string_view name,
                                       const std::string* borrowed_name) {
  auto it = entries_.begin();
  while (it != entries_.end() && absl::string_view(NameOf(*it)) < name) ++it;
  if (it != entries_.end() && NameOf(*it) == name) return *it;
  Entry e{borrowed_name, nullptr, kNoOwned};
  if (borrowed_name == nullptr) {
    e.owned = static_cast<uint32_t>(owned_.size());
    owned_.push_back(Owned{std::string(name), AttrValue()});
  }
  return *entries_.insert(it, e);
}

void AttrMap::Own(Entry& e, AttrValue value) {
  e.value = nullptr;
  if (e.owned == kNoOwned) {
    e.owned = static_cast<uint32_t>(owned_.size());
    owned_.push_back(Owned{std::string(), std::move(value)});
  } else {
    owned_[e.owned].value = std::move(value);
  }
}

AttrMap& AttrMap::SetValue(absl::string_view name, AttrValue value) {
  Own(FindOrInsert(name, nullptr), std::move(value));
  return *this;
}

AttrMap& AttrMap::SetBorrowingName(const std::string& name, AttrValue value) {
  Own(FindOrInsert(name, &name), std::move(value));
  return *this;
}

AttrMap& AttrMap::SetBorrowed(const std::string& name, const AttrValue& value) {
  FindOrInsert(name, &name).value = &value;
  return *this;
}

// A scan: maps hold a handful of attrs, and a length check rejects most
// names before their bytes are compared.
const AttrValue* AttrMap::Find(absl::string_view name) const {
  for (const Entry& e : entries_) {
    if (NameOf(e) == name) return &ValueOf(e);
  }
  return nullptr;
}

std::string AttrMap::DebugString() const {
  std::vector<std::string> parts;
  for (const Entry& e : entries_) {
    parts.push_back(NameOf(e) + "=" + AttrValueDebugString(ValueOf(e)));
  }
  return "{" + absl::StrJoin(parts, ", ") + "}";
}

namespace {
constexpr int kMaxDataType = 64;   // Above every DataType value.
constexpr int64_t kConstantInts = 64;
}  // namespace

const AttrValue* ConstantAttrValue(DataType dtype) {
  static const AttrValue* const values = [] {
    auto* v = new AttrValue[kMaxDataType];
    for (int i = 0; i < kMaxDataType; ++i) v[i].emplace<DataType>(static_cast<DataType>(i));
    return v;
  }();
  const int i = static_cast<int>(dtype);
  return i >= 0 && i < kMaxDataType ? &values[i] : nullptr;
}

const AttrValue* ConstantAttrValue(int64_t n) {
  static const AttrValue* const values = [] {
    auto* v = new AttrValue[kConstantInts];
    for (int64_t i = 0; i < kConstantInts; ++i) v[i].emplace<int64_t>(i);
    return v;
  }();
  return n >= 0 && n < kConstantInts ? &values[n] : nullptr;
}

}  // namespace tfd
