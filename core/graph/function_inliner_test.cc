#include "core/graph/function_inliner.h"

#include "core/framework/tensor_testutil.h"

#include "core/graph/graph_def.h"
#include "core/graph/graph_executor.h"
#include "core/graph/tensor_proto.h"
#include "gtest/gtest.h"

namespace tfd {
namespace graph {
namespace {

void SetType(tensorflow::NodeDef* n, const std::string& attr, tensorflow::DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}

void SetTypes(tensorflow::NodeDef* n, const std::string& attr,
              std::vector<tensorflow::DataType> types) {
  auto* list = (*n->mutable_attr())[attr].mutable_list();
  for (auto t : types) list->add_type(t);
}

// inner(a) = relu(a) ; outer(x) = inner(x) + x, called as in TF2 SavedModels.
tensorflow::GraphDef CallingGraph() {
  tensorflow::GraphDef g;
  tensorflow::FunctionDef* inner = g.mutable_library()->add_function();
  inner->mutable_signature()->set_name("inner");
  inner->mutable_signature()->add_input_arg()->set_name("a");
  inner->mutable_signature()->add_output_arg()->set_name("y");
  tensorflow::NodeDef* relu = inner->add_node_def();
  relu->set_name("Relu");
  relu->set_op("Relu");
  relu->add_input("a");
  SetType(relu, "T", tensorflow::DT_FLOAT);
  (*inner->mutable_ret())["y"] = "Relu:activations:0";

  tensorflow::FunctionDef* outer = g.mutable_library()->add_function();
  outer->mutable_signature()->set_name("outer");
  outer->mutable_signature()->add_input_arg()->set_name("x");
  outer->mutable_signature()->add_output_arg()->set_name("identity");
  tensorflow::NodeDef* call = outer->add_node_def();
  call->set_name("layer/PartitionedCall");
  call->set_op("PartitionedCall");
  call->add_input("x");
  (*call->mutable_attr())["f"].mutable_func()->set_name("inner");
  SetTypes(call, "Tin", {tensorflow::DT_FLOAT});
  SetTypes(call, "Tout", {tensorflow::DT_FLOAT});
  tensorflow::NodeDef* add = outer->add_node_def();
  add->set_name("add");
  add->set_op("AddV2");
  add->add_input("layer/PartitionedCall:output:0");
  add->add_input("x");
  SetType(add, "T", tensorflow::DT_FLOAT);
  tensorflow::NodeDef* noop = outer->add_node_def();
  noop->set_name("NoOp");
  noop->set_op("NoOp");
  (*outer->mutable_ret())["identity"] = "add:z:0";
  (*outer->mutable_control_ret())["NoOp"] = "NoOp";

  tensorflow::NodeDef* x = g.add_node();
  x->set_name("serving_x");
  x->set_op("Placeholder");
  SetType(x, "dtype", tensorflow::DT_FLOAT);
  tensorflow::NodeDef* top = g.add_node();
  top->set_name("StatefulPartitionedCall");
  top->set_op("StatefulPartitionedCall");
  top->add_input("serving_x");
  (*top->mutable_attr())["f"].mutable_func()->set_name("outer");
  SetTypes(top, "Tin", {tensorflow::DT_FLOAT});
  SetTypes(top, "Tout", {tensorflow::DT_FLOAT});
  return g;
}

TEST(FunctionInlinerTest, NestedCallsRunAsOneGraph) {
  auto flat = InlineFunctionCalls(CallingGraph());
  ASSERT_TRUE(flat.ok()) << flat.status();
  EXPECT_EQ(flat->library().function_size(), 0);
  auto graph = GraphFromGraphDef(*flat);
  ASSERT_TRUE(graph.ok()) << graph.status();
  const Node* result = (*graph)->FindNode("StatefulPartitionedCall");
  ASSERT_NE(result, nullptr);
  EXPECT_EQ(result->op(), "IdentityN");
  EXPECT_NE((*graph)->FindNode("StatefulPartitionedCall/layer/PartitionedCall/Relu"), nullptr);
  auto exec = GraphExecutor::Create(*std::move(graph), {});
  ASSERT_TRUE(exec.ok()) << exec.status();
  Tensor x = *Tensor::FromVector<float>({-1.f, 2.f}, {2});
  auto out = (*exec)->Run({{"serving_x:0", x}}, {"StatefulPartitionedCall:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status();
  // Fetches live where their ops ran: read them through a host copy.
  const Tensor y = test::ToHost((*out)[0]);
  EXPECT_EQ(y.flat<float>()[0], -1.f);  // relu(-1) + -1
  EXPECT_EQ(y.flat<float>()[1], 4.f);   // relu(2) + 2
}

TEST(FunctionInlinerTest, ErrorsNameTheCall) {
  tensorflow::GraphDef missing = CallingGraph();
  missing.mutable_library()->mutable_function()->RemoveLast();
  auto s = InlineFunctionCalls(missing).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("'StatefulPartitionedCall'"), std::string::npos) << s;
  EXPECT_NE(s.message().find("function 'outer'"), std::string::npos) << s;

  tensorflow::GraphDef arity = CallingGraph();
  arity.mutable_node(1)->add_input("serving_x");
  EXPECT_NE(InlineFunctionCalls(arity).status().message().find("takes 1 arguments"),
            std::string::npos);

  tensorflow::GraphDef bad_ref = CallingGraph();
  (*bad_ref.mutable_library()->mutable_function(1)->mutable_ret())["identity"] = "nowhere:z:0";
  EXPECT_FALSE(InlineFunctionCalls(bad_ref).ok());

  tensorflow::GraphDef bad_out = CallingGraph();
  (*bad_out.mutable_library()->mutable_function(1)->mutable_ret())["identity"] = "add:z:4";
  EXPECT_FALSE(InlineFunctionCalls(bad_out).ok());

  // A function calling itself.
  tensorflow::GraphDef recursive = CallingGraph();
  auto* self_call = recursive.mutable_library()->mutable_function(0)->mutable_node_def(0);
  self_call->set_op("PartitionedCall");
  (*self_call->mutable_attr())["f"].mutable_func()->set_name("inner");
  SetTypes(self_call, "Tout", {tensorflow::DT_FLOAT});
  auto r = InlineFunctionCalls(recursive).status();
  EXPECT_NE(r.message().find("deeper than"), std::string::npos) << r;
}

TEST(FunctionInlinerTest, UnknownOpInBodyIsNamedOnImport) {
  tensorflow::GraphDef g = CallingGraph();
  g.mutable_library()->mutable_function(0)->mutable_node_def(0)->set_op("MysteryOp");
  auto flat = InlineFunctionCalls(g);
  ASSERT_TRUE(flat.ok()) << flat.status();
  auto graph = GraphFromGraphDef(*flat);
  ASSERT_FALSE(graph.ok());
  EXPECT_EQ(graph.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(graph.status().message().find(
                "node 'StatefulPartitionedCall/layer/PartitionedCall/Relu'"),
            std::string::npos)
      << graph.status();
  EXPECT_NE(graph.status().message().find("MysteryOp"), std::string::npos);
}

}  // namespace
}  // namespace graph
}  // namespace tfd
