// AttrValue and AttrMap: the attributes of an op call, named and typed as
// TensorFlow names them ("transpose_a": bool, "strides": list(int),
// "padding": string, "T": type). An AttrMap is sorted by name, like a
// NodeDef's attr map, so a traced node serializes without reordering.
//
//   AttrMap attrs = AttrMap().Set("padding", "SAME").Set("strides", {1, 1, 1, 1});
//   TFD_ASSIGN_OR_RETURN(std::string padding, attrs.Get<std::string>("padding"));
#ifndef TFD_CORE_FRAMEWORK_ATTR_VALUE_H_
#define TFD_CORE_FRAMEWORK_ATTR_VALUE_H_

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "absl/container/inlined_vector.h"
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
  // One attr as iteration sees it: (name, value), both valid while the map
  // lives and is not changed.
  using Item = std::pair<const std::string&, const AttrValue&>;
  class Iterator;
  class Range;

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

  // For Execute, which fills in attrs from a registered OpDef on every op
  // call: the name (and for SetBorrowed the value too) is held by reference,
  // not copied. Both must outlive this map and every copy of it, as the
  // strings and defaults of registered OpDefs and ConstantAttrValue's values
  // do (they live as long as the process). Note [Borrowed attrs].
  AttrMap& SetBorrowingName(const std::string& name, AttrValue value);
  AttrMap& SetBorrowed(const std::string& name, const AttrValue& value);

  bool Has(absl::string_view name) const { return Find(name) != nullptr; }
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

  // Every attr, ordered by name: for (const auto& [name, value] : m.values()).
  Range values() const;
  size_t size() const { return entries_.size(); }
  // "{padding=SAME, strides=[1,1,1,1]}"
  std::string DebugString() const;

 private:
  // Note [Borrowed attrs]: Execute adds the inferred type attrs and every
  // default on each op call. Copying them (a map node, a string, a list)
  // was a visible share of a small op's host time, so an entry may point at
  // a registered OpDef's name and default, or at a constant (the dtype and
  // length values of ConstantAttrValue), instead of owning them. Entries
  // are plain pointers, copied and dropped without work; what the map does
  // own (the caller's attrs) is in owned_.
  struct Owned {
    std::string name;  // Unused when the entry borrows its name.
    AttrValue value;
  };
  struct Entry {
    const std::string* name;   // Borrowed; null: owned_[owned].name.
    const AttrValue* value;    // Borrowed; null: owned_[owned].value.
    uint32_t owned;            // Index in owned_, when either is null.
  };
  static constexpr uint32_t kNoOwned = ~uint32_t{0};

  const std::string& NameOf(const Entry& e) const {
    return e.name != nullptr ? *e.name : owned_[e.owned].name;
  }
  const AttrValue& ValueOf(const Entry& e) const {
    return e.value != nullptr ? *e.value : owned_[e.owned].value;
  }
  // The entry named `name`, inserted in name order if absent (with its name
  // borrowed when `borrowed_name` is given, else owned).
  Entry& FindOrInsert(absl::string_view name, const std::string* borrowed_name);
  // Stores `value` as e's own value.
  void Own(Entry& e, AttrValue value);

  // Sorted by name. Most op calls have a handful of attrs: inline.
  absl::InlinedVector<Entry, 6> entries_;
  std::vector<Owned> owned_;
};

// A process-lifetime AttrValue holding `dtype`, or `n` when 0 <= n < 64:
// what Execute borrows for the type and list-length attrs it infers. Null
// when there is none.
const AttrValue* ConstantAttrValue(DataType dtype);
const AttrValue* ConstantAttrValue(int64_t n);

class AttrMap::Iterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = Item;
  using difference_type = std::ptrdiff_t;
  using pointer = void;
  using reference = Item;

  Iterator(const AttrMap* map, const Entry* e) : map_(map), e_(e) {}
  Item operator*() const { return Item(map_->NameOf(*e_), map_->ValueOf(*e_)); }
  Iterator& operator++() {
    ++e_;
    return *this;
  }
  bool operator==(const Iterator& o) const { return e_ == o.e_; }
  bool operator!=(const Iterator& o) const { return e_ != o.e_; }

 private:
  const AttrMap* map_;
  const Entry* e_;
};

class AttrMap::Range {
 public:
  Range(const AttrMap* map, const Entry* begin, const Entry* end)
      : map_(map), begin_(begin), end_(end) {}
  Iterator begin() const { return Iterator(map_, begin_); }
  Iterator end() const { return Iterator(map_, end_); }
  size_t size() const { return static_cast<size_t>(end_ - begin_); }
  bool empty() const { return begin_ == end_; }

 private:
  const AttrMap* map_;
  const Entry* begin_;
  const Entry* end_;
};

inline AttrMap::Range AttrMap::values() const {
  return Range(this, entries_.data(), entries_.data() + entries_.size());
}

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_ATTR_VALUE_H_
