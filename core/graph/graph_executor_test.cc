#include "core/graph/graph_executor.h"

#include "core/framework/tensor_testutil.h"

#include "absl/time/clock.h"
#include "core/graph/graph_def.h"
#include "core/graph/tensor_proto.h"
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
  return n;
}

void SetType(tensorflow::NodeDef* n, const std::string& attr, tensorflow::DataType t) {
  (*n->mutable_attr())[attr].set_type(t);
}

// v = variable [2]; out = relu(x + read(v)); assign = v := c
tensorflow::GraphDef VariableGraph() {
  tensorflow::GraphDef g;
  tensorflow::NodeDef* x = g.add_node();
  *x = MakeNode("x", "Placeholder");
  SetType(x, "dtype", tensorflow::DT_FLOAT);
  *(*x->mutable_attr())["shape"].mutable_shape() = ShapeToProto({-1, 2});
  tensorflow::NodeDef* v = g.add_node();
  *v = MakeNode("v", "VarHandleOp");
  SetType(v, "dtype", tensorflow::DT_FLOAT);
  *(*v->mutable_attr())["shape"].mutable_shape() = ShapeToProto({2});
  (*v->mutable_attr())["shared_name"].set_s("v");
  tensorflow::NodeDef* read = g.add_node();
  *read = MakeNode("read", "ReadVariableOp", {"v"});
  SetType(read, "dtype", tensorflow::DT_FLOAT);
  tensorflow::NodeDef* add = g.add_node();
  *add = MakeNode("add", "AddV2", {"x", "read"});
  SetType(add, "T", tensorflow::DT_FLOAT);
  tensorflow::NodeDef* relu = g.add_node();
  *relu = MakeNode("out", "Relu", {"add"});
  SetType(relu, "T", tensorflow::DT_FLOAT);
  tensorflow::NodeDef* c = g.add_node();
  *c = MakeNode("c", "Const");
  SetType(c, "dtype", tensorflow::DT_FLOAT);
  *(*c->mutable_attr())["value"].mutable_tensor() =
      *TensorToProto(*Tensor::FromVector<float>({10.f, -10.f}, {2}));
  tensorflow::NodeDef* assign = g.add_node();
  *assign = MakeNode("assign", "AssignVariableOp", {"v", "c"});
  SetType(assign, "dtype", tensorflow::DT_FLOAT);
  *g.add_node() = MakeNode("init", "NoOp", {"^assign"});
  return g;
}

std::unique_ptr<GraphExecutor> MakeExecutor(const tensorflow::GraphDef& def,
                                            GraphExecutor::Options options = {}) {
  auto graph = GraphFromGraphDef(def);
  EXPECT_TRUE(graph.ok()) << graph.status();
  auto exec = GraphExecutor::Create(*std::move(graph), std::move(options));
  EXPECT_TRUE(exec.ok()) << exec.status();
  return exec.ok() ? *std::move(exec) : nullptr;
}

TEST(GraphExecutorTest, VariablesFeedsFetchesTargets) {
  auto exec = MakeExecutor(VariableGraph());
  ASSERT_NE(exec, nullptr);
  Tensor x = *Tensor::FromVector<float>({1.f, 2.f, 3.f, 4.f}, {2, 2});
  // Reading before the variable is assigned fails, naming the node.
  auto early = exec->Run({{"x:0", x}}, {"out:0"}, {});
  ASSERT_FALSE(early.ok());
  EXPECT_EQ(early.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(early.status().message().find("node 'read'"), std::string::npos) << early.status();

  ASSERT_TRUE(exec->Run({}, {}, {"init"}).ok());
  auto out = exec->Run({{"x", x}}, {"out:0", "read:0"}, {});
  ASSERT_TRUE(out.ok()) << out.status();
  // Fetches live where their ops ran: read them through a host copy.
  const Tensor out0 = test::ToHost((*out)[0]);
  EXPECT_EQ(out0.flat<float>()[0], 11.f);
  EXPECT_EQ(out0.flat<float>()[1], 0.f);
  EXPECT_EQ(out0.flat<float>()[2], 13.f);
  EXPECT_EQ(test::ToHost((*out)[1]).flat<float>()[1], -10.f);
  EXPECT_EQ(exec->variables().Names(), std::vector<std::string>{"v"});

  // Feeding an intermediate tensor skips what produces it.
  auto fed = exec->Run({{"add:0", x}}, {"out:0"}, {});
  ASSERT_TRUE(fed.ok()) << fed.status();
  EXPECT_EQ(test::ToHost((*fed)[0]).flat<float>()[3], 4.f);
}

TEST(GraphExecutorTest, BadRunsAreClearErrors) {
  auto exec = MakeExecutor(VariableGraph());
  ASSERT_NE(exec, nullptr);
  ASSERT_TRUE(exec->Run({}, {}, {"init"}).ok());
  auto unfed = exec->Run({}, {"out:0"}, {});
  EXPECT_NE(unfed.status().message().find("feed a value for placeholder tensor 'x'"),
            std::string::npos)
      << unfed.status();
  Tensor ints = *Tensor::FromVector<int32_t>({1, 2}, {1, 2});
  EXPECT_NE(exec->Run({{"x:0", ints}}, {"out:0"}, {}).status().message().find("int32"),
            std::string::npos);
  Tensor wrong_shape = *Tensor::FromVector<float>({1, 2, 3}, {1, 3});
  EXPECT_NE(exec->Run({{"x:0", wrong_shape}}, {"out:0"}, {}).status().message().find("[-1,2]"),
            std::string::npos);
  EXPECT_FALSE(exec->Run({}, {"nope:0"}, {}).ok());
  EXPECT_FALSE(exec->Run({}, {"out:1"}, {}).ok());
  EXPECT_FALSE(exec->Run({}, {}, {"nope"}).ok());
  EXPECT_FALSE(exec->Run({}, {"v:0"}, {}).ok());  // A resource.
  Tensor x = *Tensor::FromVector<float>({1.f, 2.f}, {1, 2});
  EXPECT_FALSE(exec->Run({{"x:0", x}, {"x", x}}, {"out:0"}, {}).ok());
}

TEST(GraphExecutorTest, KernelErrorsNameTheNode) {
  tensorflow::GraphDef g = VariableGraph();
  auto exec = MakeExecutor(g);
  ASSERT_TRUE(exec->Run({}, {}, {"init"}).ok());
  // x of width 2 is fine for the placeholder only when the add broadcasts;
  // feeding "read" with a width-3 value makes AddV2 fail.
  Tensor x = *Tensor::FromVector<float>({1.f, 2.f}, {1, 2});
  Tensor three = *Tensor::FromVector<float>({1.f, 2.f, 3.f}, {3});
  auto bad = exec->Run({{"x:0", x}, {"read:0", three}}, {"out:0"}, {});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("node 'add' (AddV2)"), std::string::npos)
      << bad.status();
}

TEST(GraphExecutorTest, ARunPastItsDeadlineStopsBeforeTheNextNode) {
  auto exec = MakeExecutor(VariableGraph());
  ASSERT_NE(exec, nullptr);
  // Nothing runs once the deadline has passed: the variable stays unset.
  auto late = exec->Run({}, {}, {"init"}, absl::InfinitePast());
  EXPECT_EQ(late.status().code(), absl::StatusCode::kDeadlineExceeded) << late.status();
  EXPECT_NE(late.status().message().find("passed its deadline before node"), std::string::npos)
      << late.status();
  Tensor x = *Tensor::FromVector<float>({1.f, 2.f}, {1, 2});
  EXPECT_EQ(exec->Run({{"x:0", x}}, {"out:0"}, {}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_TRUE(exec->Run({}, {}, {"init"}, absl::Now() + absl::Hours(1)).ok());

  // A deadline passing while a node runs stops the run before the next.
  tensorflow::GraphDef g;
  *g.add_node() = MakeNode("first", "NoOp");
  *g.add_node() = MakeNode("second", "NoOp", {"^first"});
  absl::Time deadline = absl::Now() + absl::Milliseconds(200);
  int ran = 0;
  GraphExecutor::Options options;
  options.host_ops["NoOp"] = [&](const HostOpContext&) -> absl::StatusOr<std::vector<Tensor>> {
    ++ran;
    while (absl::Now() <= deadline) absl::SleepFor(absl::Milliseconds(10));
    return std::vector<Tensor>{};
  };
  auto slow = MakeExecutor(g, std::move(options));
  ASSERT_NE(slow, nullptr);
  auto stopped = slow->Run({}, {}, {"second"}, deadline);
  EXPECT_EQ(stopped.status().code(), absl::StatusCode::kDeadlineExceeded) << stopped.status();
  EXPECT_NE(stopped.status().message().find("node 'second'"), std::string::npos)
      << stopped.status();
  EXPECT_EQ(ran, 1);
}

TEST(GraphExecutorTest, PreparationErrors) {
  tensorflow::GraphDef unknown_attr = VariableGraph();
  (*unknown_attr.mutable_node(3)->mutable_attr())["bogus"].set_i(1);
  auto graph = GraphFromGraphDef(unknown_attr);
  ASSERT_TRUE(graph.ok());
  auto exec = GraphExecutor::Create(*std::move(graph), {});
  ASSERT_FALSE(exec.ok());
  EXPECT_NE(exec.status().message().find("node 'add'"), std::string::npos) << exec.status();
  EXPECT_NE(exec.status().message().find("bogus"), std::string::npos);

  tensorflow::GraphDef restore;
  *restore.add_node() = MakeNode("r", "RestoreV2", {"a", "a", "a"});
  (*restore.mutable_node(0)->mutable_attr())["dtypes"].mutable_list();
  tensorflow::NodeDef* a = restore.add_node();
  *a = MakeNode("a", "Const");
  SetType(a, "dtype", tensorflow::DT_STRING);
  *(*a->mutable_attr())["value"].mutable_tensor() = *TensorToProto(Tensor::Scalar<std::string>("p"));
  graph = GraphFromGraphDef(restore);
  ASSERT_TRUE(graph.ok()) << graph.status();
  exec = GraphExecutor::Create(*std::move(graph), {});
  EXPECT_EQ(exec.status().code(), absl::StatusCode::kUnimplemented);

  // Supplied as a host op, it runs.
  graph = GraphFromGraphDef(restore);
  GraphExecutor::Options options;
  int calls = 0;
  options.host_ops["RestoreV2"] = [&](const HostOpContext& ctx) {
    ++calls;
    EXPECT_EQ(ctx.inputs.size(), 3u);
    return absl::StatusOr<std::vector<Tensor>>(std::vector<Tensor>{});
  };
  exec = GraphExecutor::Create(*std::move(graph), std::move(options));
  ASSERT_TRUE(exec.ok()) << exec.status();
  EXPECT_TRUE((*exec)->Run({}, {}, {"r"}).ok());
  EXPECT_EQ(calls, 1);
}

}  // namespace
}  // namespace graph
}  // namespace tfd
