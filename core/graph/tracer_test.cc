#include "core/graph/tracer.h"

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/graph/graph_def.h"
#include "core/graph/graph_executor.h"
#include "gtest/gtest.h"

namespace tfd {
namespace graph {
namespace {

using test::ExpectTensorNear;
using test::Int32Vector;
using test::RandomUniformTensor;

// x: [batch, 3] -> relu(x @ w + b): [batch, 2]
struct TinyDense {
  Variable w{"dense/kernel", RandomUniformTensor(DT_FLOAT, {3, 2}, 1)};
  Variable b{"dense/bias", RandomUniformTensor(DT_FLOAT, {2}, 2)};

  absl::StatusOr<std::vector<Tensor>> operator()(const std::vector<Tensor>& in) const {
    TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("MatMul", {in[0], w.Read()}));
    TFD_ASSIGN_OR_RETURN(y, Execute1("BiasAdd", {y, b.Read()}));
    TFD_ASSIGN_OR_RETURN(y, Execute1("Relu", {y}));
    return std::vector<Tensor>{y};
  }
};

// Runs the traced graph, after copying the variables' values in.
std::vector<Tensor> RunTraced(const TracedGraph& traced, const Tensor& x) {
  auto graph = GraphFromGraphDef(ToGraphDef(*traced.graph));
  EXPECT_TRUE(graph.ok()) << graph.status();
  auto exec = GraphExecutor::Create(*std::move(graph), {});
  EXPECT_TRUE(exec.ok()) << exec.status();
  for (const TracedVariable& v : traced.variables) {
    auto slot = (*exec)->variables().Handle(v.variable->name(), v.variable->dtype(),
                                            v.variable->shape().dims(), false);
    EXPECT_TRUE(slot.ok());
    EXPECT_TRUE((*exec)->variables().Assign(*slot, v.variable->Peek()).ok());
  }
  auto out = (*exec)->Run({{traced.placeholders[0]->name() + ":0", x}},
                          {traced.outputs[0].TensorName()}, {});
  EXPECT_TRUE(out.ok()) << out.status();
  return out.ok() ? *out : std::vector<Tensor>{};
}

TEST(TracerTest, DenseLayerBecomesTensorFlowNodes) {
  TinyDense dense;
  auto traced = TraceFunction(std::cref(dense), {{"x", DT_FLOAT, {-1, 3}}});
  ASSERT_TRUE(traced.ok()) << traced.status();
  std::vector<std::string> ops;
  for (const auto& n : traced->graph->nodes()) ops.push_back(n->op());
  EXPECT_EQ(ops, (std::vector<std::string>{"Placeholder", "VarHandleOp", "ReadVariableOp",
                                           "MatMul", "VarHandleOp", "ReadVariableOp",
                                           "BiasAdd", "Relu"}));
  ASSERT_EQ(traced->variables.size(), 2u);
  EXPECT_EQ(traced->variables[0].handle->name(), "dense/kernel");
  EXPECT_EQ(traced->variables[0].handle->FindAttr("shared_name")->s(), "dense/kernel");
  const Node* matmul = traced->graph->FindNode("MatMul");
  ASSERT_NE(matmul, nullptr);
  // Defaults (transpose_a/b = false) are left out; the type attr stays.
  EXPECT_EQ(matmul->FindAttr("transpose_a"), nullptr);
  ASSERT_NE(matmul->FindAttr("T"), nullptr);
  EXPECT_EQ(matmul->FindAttr("T")->type(), tensorflow::DT_FLOAT);
  const Node* x = traced->placeholders[0];
  EXPECT_EQ(x->FindAttr("shape")->shape().dim(0).size(), -1);

  Tensor input = RandomUniformTensor(DT_FLOAT, {5, 3}, 3);
  std::vector<Tensor> got = RunTraced(*traced, input);
  ASSERT_EQ(got.size(), 1u);
  auto want = dense({input});
  ASSERT_TRUE(want.ok());
  ExpectTensorNear(got[0], (*want)[0], 0);
}

TEST(TracerTest, FlattenShapeConstantGeneralizesToAnyBatch) {
  auto flatten = [](const std::vector<Tensor>& in) -> absl::StatusOr<std::vector<Tensor>> {
    const int64_t n = in[0].dim(0);
    TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("Reshape", {in[0], Int32Vector({n, 6})}));
    TFD_ASSIGN_OR_RETURN(y, Execute1("Relu", {y}));
    return std::vector<Tensor>{y};
  };
  auto traced = TraceFunction(flatten, {{"images", DT_FLOAT, {-1, 2, 3}}});
  ASSERT_TRUE(traced.ok()) << traced.status();
  const Node* shape = traced->graph->FindNode("Const");
  ASSERT_NE(shape, nullptr);
  EXPECT_EQ(shape->FindAttr("value")->tensor().tensor_content().substr(0, 4),
            std::string("\xff\xff\xff\xff", 4));
  Tensor input = RandomUniformTensor(DT_FLOAT, {7, 2, 3}, 4);
  std::vector<Tensor> got = RunTraced(*traced, input);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].shape(), TensorShape({7, 6}));
}

TEST(TracerTest, BatchDependentStructureIsUnimplemented) {
  auto fill = [](const std::vector<Tensor>& in) -> absl::StatusOr<std::vector<Tensor>> {
    TFD_ASSIGN_OR_RETURN(Tensor z, Execute1("Fill", {Int32Vector({in[0].dim(0), 2}),
                                                     Tensor::Scalar<float>(1.f)}));
    TFD_ASSIGN_OR_RETURN(z, Execute1("AddV2", {in[0], z}));
    return std::vector<Tensor>{z};
  };
  auto traced = TraceFunction(fill, {{"x", DT_FLOAT, {-1, 2}}});
  ASSERT_FALSE(traced.ok());
  EXPECT_EQ(traced.status().code(), absl::StatusCode::kUnimplemented) << traced.status();
  EXPECT_NE(traced.status().message().find("batch size"), std::string::npos);
}

TEST(TracerTest, ViewMadeOutsideExecuteIsRefused) {
  auto view = [](const std::vector<Tensor>& in) -> absl::StatusOr<std::vector<Tensor>> {
    TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("Relu", {in[0]}));
    TFD_ASSIGN_OR_RETURN(Tensor flat, y.Reshaped({y.NumElements()}));
    TFD_ASSIGN_OR_RETURN(Tensor z, Execute1("Relu", {flat}));
    return std::vector<Tensor>{z};
  };
  auto traced = TraceFunction(view, {{"x", DT_FLOAT, {2, 2}}});
  ASSERT_FALSE(traced.ok());
  EXPECT_EQ(traced.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(traced.status().message().find("shares memory"), std::string::npos)
      << traced.status();
}

TEST(TracerTest, UnusedOpsArePrunedAndErrorsPropagate) {
  auto fn = [](const std::vector<Tensor>& in) -> absl::StatusOr<std::vector<Tensor>> {
    TFD_ASSIGN_OR_RETURN(Tensor unused, Execute1("Tanh", {in[0]}));
    TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("Relu", {in[0]}));
    return std::vector<Tensor>{y};
  };
  auto traced = TraceFunction(fn, {{"x", DT_FLOAT, {2}}});
  ASSERT_TRUE(traced.ok());
  EXPECT_EQ(traced->graph->FindNode("Tanh"), nullptr);
  EXPECT_EQ(traced->graph->num_nodes(), 2);

  auto failing = [](const std::vector<Tensor>& in) -> absl::StatusOr<std::vector<Tensor>> {
    TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("MatMul", {in[0], in[0]}));
    return std::vector<Tensor>{y};
  };
  EXPECT_FALSE(TraceFunction(failing, {{"x", DT_FLOAT, {2, 3}}}).ok());
  EXPECT_FALSE(TraceFunction(fn, {{"", DT_FLOAT, {2}}}).ok());
  EXPECT_FALSE(TraceFunction(fn, {{"x", DT_FLOAT, {-2}}}).ok());
}

}  // namespace
}  // namespace graph
}  // namespace tfd
