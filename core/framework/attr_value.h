// AttrValue and AttrMap: the attributes of an op call, named and typed as
// TensorFlow names them ("transpose_a": bool, "strides": list(int),
// "padding": string, "T": type). An AttrMap is sorted by name, like a
// NodeDef's attr map, so a traced node serializes without reordering.
#ifndef TFD_CORE_FRAMEWORK_ATTR_VALUE_H_
#define TFD_CORE_FRAMEWORK_ATTR_VALUE_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_shape.h"
#include "core/framework/types.h"

namespace tfd {

using AttrValue =
    std::variant<int64_t, float, bool, std::string, DataType, TensorShape,
                 std::vector<int64_t>, std::vector<float>,
                 std::vector<std::string>, std::vector<DataType>, Tensor>;

// "int", "float", "bool", "string", "type", "shape", "list(int)", ...
const char* AttrTypeName(const AttrValue& value);
std::string AttrValueDebugString(const AttrValue& value);

class AttrMap {
 public:
  AttrMap() = default;

  // Setters normalize C++ literal types: ints become int64, doubles float.
  AttrMap& Set(absl::string_view name, int value) { return SetValue(name, int64_t{value}); }
  AttrMap& Set(absl::string_view name, int64_t value) { return SetValue(name, value); }
  AttrMap& Set(absl::string_view name, double value) {
    return SetValue(name, static_cast<float>(value));
  }
  AttrMap& Set(absl::string_view name, float value) { return SetValue(name, value); }
  AttrMap& Set(absl::string_view name, bool value) { return SetValue(name, value); }
  AttrMap& Set(absl::string_view name, const char* value) {
    return SetValue(name, std::string(value));
  }
  AttrMap& Set(absl::string_view name, std::string value) {
    return SetValue(name, std::move(value));
  }
  AttrMap& Set(absl::string_view name, DataType value) { return SetValue(name, value); }
  AttrMap& Set(absl::string_view name, TensorShape value) { return SetValue(name, std::move(value)); }
  AttrMap& Set(absl::string_view name, std::vector<int64_t> value) {
    return SetValue(name, std::move(value));
  }
  AttrMap& Set(absl::string_view name, std::initializer_list<int64_t> value) {
    return SetValue(name, std::vector<int64_t>(value));
  }
  AttrMap& Set(absl::string_view name, std::vector<float> value) {
    return SetValue(name, std::move(value));
  }
  AttrMap& Set(absl::string_view name, std::vector<std::string> value) {
    return SetValue(name, std::move(value));
  }
  AttrMap& Set(absl::string_view name, std::vector<DataType> value) {
    return SetValue(name, std::move(value));
  }
  AttrMap& Set(absl::string_view name, Tensor value) { return SetValue(name, std::move(value)); }
  AttrMap& SetValue(absl::string_view name, AttrValue value);

  bool Has(absl::string_view name) const { return values_.find(name) != values_.end(); }
  const AttrValue* Find(absl::string_view name) const;

  // The value of `name` as T; INVALID_ARGUMENT naming the attr when it is
  // missing or of another type.
  template <typename T>
  absl::StatusOr<T> Get(absl::string_view name) const {
    const AttrValue* v = Find(name);
    if (v == nullptr) return InvalidArgument("missing attr '", name, "'");
    if (const T* t = std::get_if<T>(v)) return *t;
    return InvalidArgument("attr '", name, "' is a ", AttrTypeName(*v),
                           ", not the expected type");
  }

  // Ordered by name; std::less<> so that lookups by string_view build no
  // string (Execute looks attrs up on every op).
  const std::map<std::string, AttrValue, std::less<>>& values() const { return values_; }
  // "{padding=SAME, strides=[1,1,1,1]}"
  std::string DebugString() const;

 private:
  std::map<std::string, AttrValue, std::less<>> values_;
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_ATTR_VALUE_H_
