// ObjectGraph: breadth-first numbering, names by first path, escaping,
// shared nodes and has_checkpoint_values.
#include "savedmodel/checkpoint/object_graph.h"

#include "gtest/gtest.h"

namespace tfd {
namespace savedmodel {
namespace {

SaveableValue Value(const std::string& name) {
  SaveableValue v;
  v.full_name = name;
  v.dtype = DT_FLOAT;
  return v;
}

TEST(ObjectGraphTest, EscapesLocalNames) {
  EXPECT_EQ(EscapeLocalName("a.b/c"), "a..b.Sc");
  EXPECT_EQ(EscapeLocalName("layer_with_weights-0"), "layer_with_weights-0");
  EXPECT_EQ(EscapeLocalName("./"), "...S");
}

TEST(ObjectGraphTest, BreadthFirstNumbersAndFirstPathNames) {
  ObjectGraph graph;
  const int model = graph.AddNode();
  const int optimizer = graph.AddNode();
  const int counter = graph.AddNode(Value("iteration"));
  const int list = graph.AddNode();
  const int empty = graph.AddNode();
  const int kernel = graph.AddNode(Value("dense/kernel"));
  const int unreachable = graph.AddNode(Value("lost"));
  (void)unreachable;
  graph.AddChild(ObjectGraph::kRoot, "model", model);
  graph.AddChild(ObjectGraph::kRoot, "opt.imizer", optimizer);
  graph.AddChild(model, "a/b", kernel);
  graph.AddChild(model, "opt", optimizer);  // a second edge: the first path names it
  graph.AddChild(optimizer, "_variables", list);
  graph.AddChild(optimizer, "_iterations", counter);
  graph.AddChild(optimizer, "_index_dict", empty);
  graph.AddChild(list, "0", counter);

  const SerializedObjectGraph s = graph.Serialize();
  // root 0; model 1, optimizer 2; kernel 3; list 4, counter 5, empty 6.
  ASSERT_EQ(s.proto.nodes_size(), 7);
  EXPECT_EQ(s.proto.nodes(1).children(1).node_id(), 2);
  EXPECT_EQ(s.proto.nodes(1).children(0).node_id(), 3);
  EXPECT_EQ(s.proto.nodes(4).children(0).node_id(), 5);
  ASSERT_EQ(s.values.size(), 2u);
  EXPECT_EQ(s.values[0].key, "model/a.Sb/.ATTRIBUTES/VARIABLE_VALUE");
  EXPECT_EQ(s.values[1].key, "opt..imizer/_iterations/.ATTRIBUTES/VARIABLE_VALUE");
  EXPECT_EQ(s.proto.nodes(5).attributes(0).full_name(), "iteration");
  EXPECT_EQ(s.proto.nodes(5).attributes(0).name(), "VARIABLE_VALUE");
  EXPECT_EQ(s.proto.nodes(5).attributes(0).checkpoint_key(), s.values[1].key);
  for (int id : {0, 1, 2, 3, 4, 5}) {
    EXPECT_TRUE(s.proto.nodes(id).has_checkpoint_values().value()) << id;
  }
  EXPECT_TRUE(s.proto.nodes(6).has_has_checkpoint_values());
  EXPECT_FALSE(s.proto.nodes(6).has_checkpoint_values().value());
  EXPECT_EQ(graph.FindChild(optimizer, "_iterations"), counter);
  EXPECT_FALSE(graph.FindChild(optimizer, "nope").has_value());
}

}  // namespace
}  // namespace savedmodel
}  // namespace tfd
