#include "core/graph/attr_proto.h"

#include "gtest/gtest.h"

namespace tfd {
namespace graph {
namespace {

// Every alternative of AttrValue goes to its proto field and back.
TEST(AttrProtoTest, RoundTripEveryKind) {
  const std::vector<std::pair<AttrValue, std::string>> cases = {
      {AttrValue(int64_t{-3}), "int"},
      {AttrValue(2.5f), "float"},
      {AttrValue(true), "bool"},
      {AttrValue(std::string("SAME")), "string"},
      {AttrValue(DT_HALF), "type"},
      {AttrValue(TensorShape({2, 0, 5})), "shape"},
      {AttrValue(std::vector<int64_t>{1, 2, 2, 1}), "list(int)"},
      {AttrValue(std::vector<float>{0.5f}), "list(float)"},
      {AttrValue(std::vector<std::string>{"a", ""}), "list(string)"},
      {AttrValue(std::vector<DataType>{DT_FLOAT, DT_INT64}), "list(type)"},
      {AttrValue(std::vector<int64_t>{}), "list(int)"},
  };
  for (const auto& [value, type] : cases) {
    auto proto = AttrToProto(value);
    ASSERT_TRUE(proto.ok()) << type;
    auto back = AttrFromProto("a", *proto, type);
    ASSERT_TRUE(back.ok()) << type << ": " << back.status();
    EXPECT_EQ(AttrValueDebugString(*back), AttrValueDebugString(value)) << type;
  }
  auto tensor = AttrToProto(AttrValue(*Tensor::FromVector<int32_t>({4, 5}, {2})));
  ASSERT_TRUE(tensor.ok());
  auto t = AttrFromProto("value", *tensor, "tensor");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(std::get<Tensor>(*t).flat<int32_t>()[1], 5);
}

TEST(AttrProtoTest, WrongKindsNameTheAttr) {
  tensorflow::AttrValue i;
  i.set_i(3);
  auto s = AttrFromProto("padding", i, "string").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'padding'"), std::string::npos) << s;

  tensorflow::AttrValue mixed;
  mixed.mutable_list()->add_i(1);
  mixed.mutable_list()->add_s("x");
  EXPECT_FALSE(AttrFromProto("strides", mixed, "list(int)").ok());

  tensorflow::AttrValue unknown_dim;
  unknown_dim.mutable_shape()->add_dim()->set_size(-1);
  EXPECT_FALSE(AttrFromProto("shape", unknown_dim, "shape").ok());

  tensorflow::AttrValue func;
  func.mutable_func()->set_name("f");
  EXPECT_EQ(AttrFromProto("f", func, "func").status().code(), absl::StatusCode::kUnimplemented);
}

TEST(AttrProtoTest, MapDropsAnnotationsAndRefusesUnknownAttrs) {
  OpDef op = OpDefBuilder("Thing").Attr("flag", false).RequiredAttr("n", "int").Build();
  std::map<std::string, tensorflow::AttrValue> attrs;
  attrs["n"].set_i(2);
  attrs["_output_shapes"].mutable_list();
  auto map = AttrMapFromProto(op, attrs);
  ASSERT_TRUE(map.ok()) << map.status();
  EXPECT_TRUE(map->Has("n"));
  EXPECT_FALSE(map->Has("_output_shapes"));
  attrs["grad_a"].set_b(true);
  auto s = AttrMapFromProto(op, attrs).status();
  EXPECT_NE(s.message().find("'grad_a' is not an attr of op Thing"), std::string::npos) << s;

  EXPECT_TRUE(IsDefaultAttr(op, "flag", AttrValue(false)));
  EXPECT_FALSE(IsDefaultAttr(op, "flag", AttrValue(true)));
  EXPECT_FALSE(IsDefaultAttr(op, "n", AttrValue(int64_t{2})));  // No default.
}

}  // namespace
}  // namespace graph
}  // namespace tfd
