#include "core/graph/graph_def.h"

#include "gtest/gtest.h"

namespace tfd {
namespace graph {
namespace {

tensorflow::NodeDef MakeNode(const std::string& name, const std::string& op,
                             std::vector<std::string> inputs = {}) {
  tensorflow::NodeDef n;
  n.set_name(name);
  n.set_op(op);
  for (const std::string& in : inputs) n.add_input(in);
  if (op == "Placeholder" || op == "Relu" || op == "MatMul" || op == "Identity") {
    (*n.mutable_attr())[op == "Placeholder" ? "dtype" : "T"].set_type(tensorflow::DT_FLOAT);
  }
  return n;
}

tensorflow::GraphDef SmallGraph() {
  tensorflow::GraphDef g;
  *g.add_node() = MakeNode("x", "Placeholder");
  *g.add_node() = MakeNode("relu", "Relu", {"x"});
  *g.add_node() = MakeNode("done", "NoOp", {"^relu"});
  return g;
}

TEST(GraphDefTest, RoundTrip) {
  auto graph = GraphFromGraphDef(SmallGraph());
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Node* relu = (*graph)->FindNode("relu");
  ASSERT_NE(relu, nullptr);
  EXPECT_EQ(relu->inputs()[0].node->name(), "x");
  EXPECT_EQ(relu->output_types(), std::vector<DataType>{DT_FLOAT});
  tensorflow::GraphDef back = ToGraphDef(**graph);
  EXPECT_EQ(back.versions().producer(), kGraphDefProducer);
  EXPECT_EQ(back.versions().min_consumer(), 0);
  ASSERT_EQ(back.node_size(), 3);
  EXPECT_EQ(back.node(2).input(0), "^relu");
  EXPECT_EQ(back.node(1).input(0), "x");
}

TEST(GraphDefTest, NodesOutOfOrderAreSorted) {
  tensorflow::GraphDef g;
  *g.add_node() = MakeNode("relu", "Relu", {"x:0"});
  *g.add_node() = MakeNode("x", "Placeholder");
  auto graph = GraphFromGraphDef(g);
  ASSERT_TRUE(graph.ok()) << graph.status();
  EXPECT_EQ((*graph)->nodes()[0]->name(), "x");
}

TEST(GraphDefTest, UnknownOpNamesNodeAndOp) {
  tensorflow::GraphDef g = SmallGraph();
  *g.add_node() = MakeNode("weird", "FrobnicateV7", {"x"});
  auto graph = GraphFromGraphDef(g);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(graph.status().message().find("'weird'"), std::string::npos) << graph.status();
  EXPECT_NE(graph.status().message().find("FrobnicateV7"), std::string::npos);
}

TEST(GraphDefTest, MissingInputNamesNode) {
  tensorflow::GraphDef g = SmallGraph();
  *g.add_node() = MakeNode("y", "Relu", {"nowhere"});
  auto graph = GraphFromGraphDef(g);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("node 'y' has input 'nowhere'"), std::string::npos)
      << graph.status();
}

TEST(GraphDefTest, OutputIndexOutOfRange) {
  tensorflow::GraphDef g = SmallGraph();
  *g.add_node() = MakeNode("y", "Relu", {"x:3"});
  auto graph = GraphFromGraphDef(g);
  ASSERT_FALSE(graph.ok());
  EXPECT_NE(graph.status().message().find("output 3 of 'x'"), std::string::npos)
      << graph.status();
}

TEST(GraphDefTest, CycleNamesANodeOnIt) {
  tensorflow::GraphDef g;
  *g.add_node() = MakeNode("x", "Placeholder");
  *g.add_node() = MakeNode("a", "MatMul", {"x", "b"});
  *g.add_node() = MakeNode("b", "Relu", {"a"});
  *g.add_node() = MakeNode("after", "Relu", {"b"});
  auto graph = GraphFromGraphDef(g);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kInvalidArgument);
  const std::string msg(graph.status().message());
  EXPECT_TRUE(msg.find("cycle through node 'a'") != std::string::npos ||
              msg.find("cycle through node 'b'") != std::string::npos)
      << msg;
}

TEST(GraphDefTest, StructuralErrors) {
  tensorflow::GraphDef dup = SmallGraph();
  *dup.add_node() = MakeNode("x", "Placeholder");
  EXPECT_NE(GraphFromGraphDef(dup).status().message().find("two nodes named 'x'"),
            std::string::npos);

  tensorflow::GraphDef late = SmallGraph();
  *late.add_node() = MakeNode("m", "MatMul", {"^relu", "x"});
  EXPECT_NE(GraphFromGraphDef(late).status().message().find("follows a control input"),
            std::string::npos);

  tensorflow::GraphDef arity = SmallGraph();
  *arity.add_node() = MakeNode("r", "ReadVariableOp", {});
  (*arity.mutable_node(3)->mutable_attr())["dtype"].set_type(tensorflow::DT_FLOAT);
  EXPECT_NE(GraphFromGraphDef(arity).status().message().find("node 'r' (ReadVariableOp) has 0"),
            std::string::npos);

  tensorflow::GraphDef call = SmallGraph();
  *call.add_node() = MakeNode("c", "StatefulPartitionedCall", {});
  EXPECT_EQ(GraphFromGraphDef(call).status().code(), absl::StatusCode::kUnimplemented);

  tensorflow::GraphDef bad_input = SmallGraph();
  *bad_input.add_node() = MakeNode("y", "Relu", {"x:-1"});
  EXPECT_FALSE(GraphFromGraphDef(bad_input).ok());

  tensorflow::GraphDef future = SmallGraph();
  future.mutable_versions()->set_min_consumer(kGraphDefProducer + 1);
  EXPECT_FALSE(GraphFromGraphDef(future).ok());
}

TEST(GraphDefTest, ParseInput) {
  EXPECT_EQ(ParseInput("a/b:2")->node, "a/b");
  EXPECT_EQ(ParseInput("a/b:2")->index, 2);
  EXPECT_TRUE(ParseInput("^c")->control);
  EXPECT_EQ(ParseInput("d")->index, 0);
  EXPECT_FALSE(ParseInput("").ok());
  EXPECT_FALSE(ParseInput("e:x").ok());
}

}  // namespace
}  // namespace graph
}  // namespace tfd
