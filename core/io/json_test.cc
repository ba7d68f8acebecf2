// Tests for the JSON reader: every value type, escapes, and malformed text
// reported with its position.
#include "core/io/json.h"

#include <random>

#include "gtest/gtest.h"

namespace tfd {
namespace io {
namespace {

TEST(JsonTest, ParsesEveryType) {
  absl::StatusOr<JsonValue> v = ParseJson(
      R"( {"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 1},
           "ok": true, "no": false, "none": null, "x": -12.5e1, "empty": [], "e": {}} )");
  ASSERT_TRUE(v.ok()) << v.status();
  ASSERT_TRUE(v->is_object());
  EXPECT_EQ(v->members().size(), 8u);
  const JsonValue* workers = v->Find("cluster")->Find("worker");
  ASSERT_NE(workers, nullptr);
  ASSERT_TRUE(workers->is_array());
  ASSERT_EQ(workers->items().size(), 2u);
  EXPECT_EQ(workers->items()[1].text(), "b:2");
  const JsonValue* index = v->Find("task")->Find("index");
  EXPECT_TRUE(index->is_number());
  EXPECT_EQ(index->text(), "1");
  EXPECT_EQ(index->number_value(), 1.0);
  EXPECT_TRUE(v->Find("ok")->bool_value());
  EXPECT_EQ(v->Find("no")->type(), JsonValue::Type::kBool);
  EXPECT_FALSE(v->Find("no")->bool_value());
  EXPECT_TRUE(v->Find("none")->is_null());
  EXPECT_EQ(v->Find("x")->number_value(), -125.0);
  EXPECT_EQ(v->Find("x")->text(), "-12.5e1");
  EXPECT_TRUE(v->Find("empty")->items().empty());
  EXPECT_TRUE(v->Find("e")->is_object());
  EXPECT_EQ(v->Find("missing"), nullptr);
  EXPECT_EQ(v->Find("task")->Find("type")->Find("x"), nullptr);  // Not an object.
}

TEST(JsonTest, RepeatedKeysKeepTheLastAsPython) {
  absl::StatusOr<JsonValue> v = ParseJson(R"({"a": 1, "a": 2})");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->Find("a")->text(), "2");
}

TEST(JsonTest, DecodesEscapes) {
  absl::StatusOr<JsonValue> v =
      ParseJson(R"("q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u20ac\ud83d\ude00")");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->text(), "q\" b\\ s/ \b\f\n\r\t A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80");
}

TEST(JsonTest, MalformedTextNamesThePosition) {
  const char* bad[] = {
      "",
      "{",
      "{\"a\" 1}",
      "{\"a\": 1,}",
      "[1 2]",
      "[1,]",
      "01",
      "-",
      "1.",
      "1e",
      "tru",
      "\"abc",
      "\"a\\x\"",
      "\"\\u12g4\"",
      "\"\\udc00\"",
      "\"\\ud800\"",
      "{a: 1}",
      "1 2",
      "\"tab\there\"",
      "nul",
  };
  for (const char* text : bad) {
    absl::Status s = ParseJson(text).status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_NE(s.message().find("invalid JSON at line 1, column"), std::string::npos)
        << text << ": " << s;
  }
  absl::Status s = ParseJson("{\n  \"a\": [1,\n  2,, 3]}").status();
  EXPECT_NE(s.message().find("line 3, column 5"), std::string::npos) << s;
  EXPECT_NE(s.message().find("found ','"), std::string::npos) << s;
}

TEST(JsonTest, RefusesDeepNesting) {
  std::string deep(kMaxJsonDepth + 5, '[');
  deep += std::string(kMaxJsonDepth + 5, ']');
  EXPECT_EQ(ParseJson(deep).status().code(), absl::StatusCode::kInvalidArgument);
  std::string ok(kMaxJsonDepth, '[');
  ok += std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(ParseJson(ok).ok());
}

TEST(JsonTest, MutatedInputNeverCrashes) {
  // Byte flips, truncations and insertions of a valid document: each parse
  // must end in a value or an error, never read out of bounds (run under
  // --config=asan to check the latter).
  const std::string valid =
      R"({"cluster": {"worker": ["a:1", "b:2"]}, "task": {"type": "worker", "index": 1},)"
      R"( "s": "\u00e9\ud83d\ude00\n", "n": [-1.5e3, 0, true, null]})";
  ASSERT_TRUE(ParseJson(valid).ok());
  const std::string alphabet = "{}[]\",:\\u0123456789.eE+-truefalsn \t";
  std::mt19937 rng(17);
  int parsed = 0;
  for (int trial = 0; trial < 5000; ++trial) {
    std::string text = valid;
    const int edits = 1 + rng() % 4;
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const size_t at = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 8);
          break;
        default:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
      }
    }
    if (rng() % 4 == 0) text.resize(rng() % (text.size() + 1));
    absl::StatusOr<JsonValue> v = ParseJson(text);
    if (v.ok()) {
      ++parsed;
    } else {
      EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument) << text;
    }
  }
  EXPECT_LT(parsed, 5000);  // Most mutations break the document.
}

}  // namespace
}  // namespace io
}  // namespace tfd
