// A small JSON reader (RFC 8259) for configuration text: TF_CONFIG for the
// cluster resolvers, Keras's model.to_json() for nn::ModelFromJson. It
// builds a tree of JsonValue; nothing here writes JSON. Its users need
// little: no streaming, no schema, inputs of a few hundred kilobytes at
// most.
//
// Objects keep their members in document order; a repeated key is kept
// too and Find returns its last occurrence, as Python's json.loads does.
// Numbers keep their literal text so callers can insist on integers.
// Nesting deeper than kMaxJsonDepth is refused rather than recursed into.
//
//   TFD_ASSIGN_OR_RETURN(JsonValue v, ParseJson(R"({"task": {"index": 1}})"));
//   const JsonValue* task = v.Find("task");
#ifndef TFD_CORE_IO_JSON_H_
#define TFD_CORE_IO_JSON_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tfd {
namespace io {

constexpr int kMaxJsonDepth = 64;

class JsonValue {
 public:
  enum class Type { kNull, kBool, kNumber, kString, kArray, kObject };
  using Members = std::vector<std::pair<std::string, JsonValue>>;

  JsonValue() = default;  // null
  static JsonValue Bool(bool b);
  static JsonValue Number(std::string literal, double value);
  static JsonValue String(std::string s);
  static JsonValue Array(std::vector<JsonValue> items);
  static JsonValue Object(Members members);

  Type type() const { return type_; }
  bool is_null() const { return type_ == Type::kNull; }
  bool is_string() const { return type_ == Type::kString; }
  bool is_number() const { return type_ == Type::kNumber; }
  bool is_array() const { return type_ == Type::kArray; }
  bool is_object() const { return type_ == Type::kObject; }

  // Accessors for the matching type; other types read as false/0/empty.
  bool bool_value() const { return bool_; }
  double number_value() const { return number_; }
  // The number as written ("3", "-0.5e2") or the string's decoded text.
  const std::string& text() const { return text_; }
  const std::vector<JsonValue>& items() const { return items_; }
  const Members& members() const { return members_; }

  // The last member named `key`, or nullptr (also for non-objects).
  const JsonValue* Find(absl::string_view key) const;

  // "a string", "an object", ...: for error messages.
  const char* TypeName() const;

 private:
  Type type_ = Type::kNull;
  bool bool_ = false;
  double number_ = 0;
  std::string text_;
  std::vector<JsonValue> items_;
  Members members_;
};

// Parses exactly one JSON value surrounded by optional whitespace.
// INVALID_ARGUMENT naming the line, column and what was expected.
absl::StatusOr<JsonValue> ParseJson(absl::string_view text);

}  // namespace io
}  // namespace tfd

#endif  // TFD_CORE_IO_JSON_H_
