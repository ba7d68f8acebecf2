// A recursive-descent JSON parser over a string_view. Each Parse* method
// starts at the first character of its value and leaves pos_ just past it.
#include "core/io/json.h"

#include <cstdlib>

#include "absl/strings/str_cat.h"

namespace tfd {
namespace io {

JsonValue JsonValue::Bool(bool b) {
  JsonValue v;
  v.type_ = Type::kBool;
  v.bool_ = b;
  return v;
}

JsonValue JsonValue::Number(std::string literal, double value) {
  JsonValue v;
  v.type_ = Type::kNumber;
  v.text_ = std::move(literal);
  v.number_ = value;
  return v;
}

JsonValue JsonValue::String(std::string s) {
  JsonValue v;
  v.type_ = Type::kString;
  v.text_ = std::move(s);
  return v;
}

JsonValue JsonValue::Array(std::vector<JsonValue> items) {
  JsonValue v;
  v.type_ = Type::kArray;
  v.items_ = std::move(items);
  return v;
}

JsonValue JsonValue::Object(Members members) {
  JsonValue v;
  v.type_ = Type::kObject;
  v.members_ = std::move(members);
  return v;
}

const JsonValue* JsonValue::Find(absl::string_view key) const {
  for (auto it = members_.rbegin(); it != members_.rend(); ++it) {
    if (it->first == key) return &it->second;
  }
  return nullptr;
}

const char* JsonValue::TypeName() const {
  switch (type_) {
    case Type::kNull:
      return "null";
    case Type::kBool:
      return "a boolean";
    case Type::kNumber:
      return "a number";
    case Type::kString:
      return "a string";
    case Type::kArray:
      return "an array";
    case Type::kObject:
      return "an object";
  }
  return "a value";
}

namespace {

class Parser {
 public:
  explicit Parser(absl::string_view text) : text_(text) {}

  absl::StatusOr<JsonValue> ParseDocument() {
    SkipSpace();
    absl::StatusOr<JsonValue> v = ParseValue(0);
    if (!v.ok()) return v;
    SkipSpace();
    if (pos_ != text_.size()) return Error("expected the end of the text");
    return v;
  }

 private:
  absl::Status Error(absl::string_view expected) const {
    int line = 1, column = 1;
    for (size_t i = 0; i < pos_ && i < text_.size(); ++i) {
      if (text_[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    std::string found = pos_ < text_.size() ? absl::StrCat("'", text_.substr(pos_, 1), "'")
                                            : std::string("the end of the text");
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON at line ", line, ", column ",
                                                   column, ": ", expected, ", found ", found));
  }

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' ||
                                   text_[pos_] == '\n' || text_[pos_] == '\r')) {
      ++pos_;
    }
  }

  bool Consume(absl::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }

  absl::StatusOr<JsonValue> ParseValue(int depth) {
    if (depth > kMaxJsonDepth) return Error("nesting no deeper than 64");
    if (pos_ >= text_.size()) return Error("a value");
    const char c = text_[pos_];
    if (c == '{') return ParseObject(depth);
    if (c == '[') return ParseArray(depth);
    if (c == '"') {
      absl::StatusOr<std::string> s = ParseString();
      if (!s.ok()) return s.status();
      return JsonValue::String(*std::move(s));
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber();
    if (Consume("true")) return JsonValue::Bool(true);
    if (Consume("false")) return JsonValue::Bool(false);
    if (Consume("null")) return JsonValue();
    return Error("a value");
  }

  absl::StatusOr<JsonValue> ParseObject(int depth) {
    ++pos_;  // '{'
    JsonValue::Members members;
    SkipSpace();
    if (Consume("}")) return JsonValue::Object(std::move(members));
    while (true) {
      SkipSpace();
      if (pos_ >= text_.size() || text_[pos_] != '"') return Error("a member name in quotes");
      absl::StatusOr<std::string> key = ParseString();
      if (!key.ok()) return key.status();
      SkipSpace();
      if (!Consume(":")) return Error("':' after a member name");
      SkipSpace();
      absl::StatusOr<JsonValue> value = ParseValue(depth + 1);
      if (!value.ok()) return value;
      members.emplace_back(*std::move(key), *std::move(value));
      SkipSpace();
      if (Consume("}")) return JsonValue::Object(std::move(members));
      if (!Consume(",")) return Error("',' or '}' in an object");
    }
  }

  absl::StatusOr<JsonValue> ParseArray(int depth) {
    ++pos_;  // '['
    std::vector<JsonValue> items;
    SkipSpace();
    if (Consume("]")) return JsonValue::Array(std::move(items));
    while (true) {
      SkipSpace();
      absl::StatusOr<JsonValue> value = ParseValue(depth + 1);
      if (!value.ok()) return value;
      items.push_back(*std::move(value));
      SkipSpace();
      if (Consume("]")) return JsonValue::Array(std::move(items));
      if (!Consume(",")) return Error("',' or ']' in an array");
    }
  }

  bool IsDigit() const { return pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9'; }

  // RFC 8259 number: -? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?
  absl::StatusOr<JsonValue> ParseNumber() {
    const size_t start = pos_;
    Consume("-");
    if (Consume("0")) {
      if (IsDigit()) return Error("no leading zeros in a number");
    } else {
      if (!IsDigit()) return Error("a digit");
      while (IsDigit()) ++pos_;
    }
    if (Consume(".")) {
      if (!IsDigit()) return Error("a digit after '.'");
      while (IsDigit()) ++pos_;
    }
    if (Consume("e") || Consume("E")) {
      if (!Consume("+")) Consume("-");
      if (!IsDigit()) return Error("a digit in the exponent");
      while (IsDigit()) ++pos_;
    }
    std::string literal(text_.substr(start, pos_ - start));
    const double value = std::strtod(literal.c_str(), nullptr);
    return JsonValue::Number(std::move(literal), value);
  }

  absl::StatusOr<unsigned> ParseHex4() {
    unsigned code = 0;
    for (int i = 0; i < 4; ++i, ++pos_) {
      if (pos_ >= text_.size()) return Error("four hex digits after \\u");
      const char h = text_[pos_];
      code <<= 4;
      if (h >= '0' && h <= '9')
        code |= h - '0';
      else if (h >= 'a' && h <= 'f')
        code |= h - 'a' + 10;
      else if (h >= 'A' && h <= 'F')
        code |= h - 'A' + 10;
      else
        return Error("four hex digits after \\u");
    }
    return code;
  }

  static void AppendUtf8(unsigned code, std::string* out) {
    if (code < 0x80) {
      out->push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out->push_back(static_cast<char>(0xC0 | (code >> 6)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out->push_back(static_cast<char>(0xE0 | (code >> 12)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out->push_back(static_cast<char>(0xF0 | (code >> 18)));
      out->push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out->push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  absl::StatusOr<std::string> ParseString() {
    ++pos_;  // '"'
    std::string out;
    while (true) {
      if (pos_ >= text_.size()) return Error("a closing '\"'");
      const char c = text_[pos_];
      if (c == '"') {
        ++pos_;
        return out;
      }
      if (static_cast<unsigned char>(c) < 0x20) return Error("no control characters in a string");
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      ++pos_;
      if (pos_ >= text_.size()) return Error("an escape after '\\'");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
          out.push_back('"');
          break;
        case '\\':
          out.push_back('\\');
          break;
        case '/':
          out.push_back('/');
          break;
        case 'b':
          out.push_back('\b');
          break;
        case 'f':
          out.push_back('\f');
          break;
        case 'n':
          out.push_back('\n');
          break;
        case 'r':
          out.push_back('\r');
          break;
        case 't':
          out.push_back('\t');
          break;
        case 'u': {
          absl::StatusOr<unsigned> code = ParseHex4();
          if (!code.ok()) return code.status();
          // A high surrogate must be followed by an escaped low one.
          if (*code >= 0xD800 && *code <= 0xDBFF) {
            if (!Consume("\\u")) return Error("a low surrogate \\u escape");
            absl::StatusOr<unsigned> low = ParseHex4();
            if (!low.ok()) return low.status();
            if (*low < 0xDC00 || *low > 0xDFFF) return Error("a low surrogate \\u escape");
            *code = 0x10000 + ((*code - 0xD800) << 10) + (*low - 0xDC00);
          } else if (*code >= 0xDC00 && *code <= 0xDFFF) {
            return Error("a high surrogate before a low one");
          }
          AppendUtf8(*code, &out);
          break;
        }
        default:
          --pos_;
          return Error("one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
      }
    }
  }

  absl::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

absl::StatusOr<JsonValue> ParseJson(absl::string_view text) { return Parser(text).ParseDocument(); }

}  // namespace io
}  // namespace tfd
