// AttrMap: sorted by name whatever the order of Set, values replaced in
// place, borrowed names and values (Execute's, from a registered OpDef)
// read and copy like owned ones.
#include "core/framework/attr_value.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace {

std::vector<std::string> Names(const AttrMap& m) {
  std::vector<std::string> names;
  for (const auto& [name, value] : m.values()) names.push_back(name);
  return names;
}

TEST(AttrMapTest, SortedByNameAndPrints) {
  AttrMap m;
  m.Set("strides", {1, 2, 2, 1}).Set("padding", "SAME").Set("T", DT_FLOAT).Set("a", 3);
  EXPECT_EQ(Names(m), (std::vector<std::string>{"T", "a", "padding", "strides"}));
  EXPECT_EQ(m.size(), 4u);
  EXPECT_EQ(m.values().size(), 4u);
  EXPECT_EQ(m.DebugString(), "{T=float32, a=3, padding=SAME, strides=[1,2,2,1]}");
}

TEST(AttrMapTest, SetReplacesAndGetChecksTypes) {
  AttrMap m;
  m.Set("x", 1).Set("x", 2.5);
  EXPECT_EQ(m.size(), 1u);
  EXPECT_TRUE(m.Has("x"));
  EXPECT_FALSE(m.Has("y"));
  EXPECT_EQ(m.Find("y"), nullptr);
  ASSERT_TRUE(m.Get<float>("x").ok());
  EXPECT_EQ(*m.Get<float>("x"), 2.5f);
  EXPECT_EQ(m.Get<int64_t>("x").status().message(),
            "attr 'x' is a float, not the expected type");
  EXPECT_EQ(m.Get<int64_t>("y").status().message(), "missing attr 'y'");
}

TEST(AttrMapTest, NamesLongerThanInlineStringsAndManyAttrs) {
  AttrMap m;
  const std::vector<std::string> names = {"explicit_paddings", "use_cudnn_on_gpu", "dilations",
                                          "data_format", "padding", "strides", "T"};
  for (size_t i = 0; i < names.size(); ++i) m.Set(names[i], static_cast<int>(i));
  EXPECT_EQ(Names(m), (std::vector<std::string>{"T", "data_format", "dilations",
                                                "explicit_paddings", "padding", "strides",
                                                "use_cudnn_on_gpu"}));
  for (size_t i = 0; i < names.size(); ++i) {
    EXPECT_EQ(*m.Get<int64_t>(names[i]), static_cast<int64_t>(i)) << names[i];
  }
}

TEST(AttrMapTest, BorrowedNamesAndValuesReadAndCopyLikeOwnedOnes) {
  // What a registered OpDef holds; outlives the maps below.
  const std::string type_name = "T";
  const std::string format_name = "data_format";
  const AttrValue nhwc = std::string("NHWC");

  AttrMap m;
  m.Set("strides", {1, 1});
  m.SetBorrowingName(type_name, DT_HALF);
  m.SetBorrowed(format_name, nhwc);
  EXPECT_EQ(Names(m), (std::vector<std::string>{"T", "data_format", "strides"}));
  EXPECT_EQ(m.Find("data_format"), &nhwc);  // Held by reference.
  EXPECT_EQ(*m.Get<DataType>("T"), DT_HALF);

  AttrMap copy = m;
  EXPECT_EQ(copy.DebugString(), "{T=float16, data_format=NHWC, strides=[1,1]}");
  EXPECT_EQ(copy.Find("data_format"), &nhwc);

  // Setting a borrowed attr gives the map its own value, leaving the
  // borrowed one alone.
  copy.Set("data_format", "NCHW");
  EXPECT_EQ(*copy.Get<std::string>("data_format"), "NCHW");
  EXPECT_EQ(std::get<std::string>(nhwc), "NHWC");
  EXPECT_EQ(*m.Get<std::string>("data_format"), "NHWC");
  // And borrowing over an owned value reads the borrowed one.
  copy.SetBorrowed(format_name, nhwc);
  EXPECT_EQ(copy.Find("data_format"), &nhwc);
}

TEST(AttrMapTest, ConstantValuesAreSharedAndBounded) {
  const AttrValue* f = ConstantAttrValue(DT_FLOAT);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(std::get<DataType>(*f), DT_FLOAT);
  EXPECT_EQ(ConstantAttrValue(DT_FLOAT), f);  // One per process.
  EXPECT_EQ(std::get<DataType>(*ConstantAttrValue(DT_UINT64)), DT_UINT64);
  ASSERT_NE(ConstantAttrValue(int64_t{3}), nullptr);
  EXPECT_EQ(std::get<int64_t>(*ConstantAttrValue(int64_t{3})), 3);
  EXPECT_EQ(ConstantAttrValue(int64_t{-1}), nullptr);
  EXPECT_EQ(ConstantAttrValue(int64_t{1} << 20), nullptr);
  EXPECT_EQ(ConstantAttrValue(static_cast<DataType>(1000)), nullptr);
}

TEST(AttrMapTest, OwnedBorrowedMixSurvivesCopiesAndReplacement) {
  const std::string n_name = "N";
  AttrMap m;
  m.SetBorrowingName(n_name, int64_t{100});  // Borrowed name, owned value.
  m.Set("a", "x");
  m.SetBorrowed(n_name, *ConstantAttrValue(int64_t{2}));
  m.SetBorrowingName(n_name, int64_t{7});
  AttrMap copy = m;
  m.Set("a", "changed");
  EXPECT_EQ(copy.DebugString(), "{N=7, a=x}");
  EXPECT_EQ(m.DebugString(), "{N=7, a=changed}");
}

}  // namespace
}  // namespace tfd
