// Tracing: builds a Graph from a function by running it eagerly while
// observing every op it executes (Execute's observers, execute.h).
//
// Inputs become Placeholder nodes; each variable the function reads
// becomes a VarHandleOp (named after the variable, shared_name the same)
// plus a ReadVariableOp per read; each op call becomes a node with the
// call's complete attrs, minus those equal to the op's defaults (as
// TensorFlow strips them on export); any other tensor an op consumes (a
// shape, an axis, a constant) becomes a Const node holding its value.
//
// Unknown input dimensions (-1, normally the batch) are handled by tracing
// twice, with the unknown dimensions set to 2 and then 3. The two graphs
// must agree node for node; a Reshape shape constant that differs in one
// position by the batch factor (Flatten's [batch, rest]) gets -1 there,
// and any other difference is UNIMPLEMENTED naming the node, because the
// graph would only be right for one batch size.
//
// A tensor that shares memory with a traced value but was not produced by
// an op (a view made outside Execute) cannot be expressed in the graph and
// is INVALID_ARGUMENT rather than silently frozen into a constant.
//
// Thread safety: tracing observes the calling thread only; the function
// must run its ops on that thread.
//
//   TFD_ASSIGN_OR_RETURN(TracedGraph traced,
//       TraceFunction(fn, {{"inputs", DT_FLOAT, {-1, 784}}}));
#ifndef TFD_CORE_GRAPH_TRACER_H_
#define TFD_CORE_GRAPH_TRACER_H_

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/framework/tensor.h"
#include "core/framework/variable.h"
#include "core/graph/graph.h"

namespace tfd {
namespace graph {

// One input of the traced function: the Placeholder's name, dtype and
// shape (-1 for an unknown dimension).
struct TraceInput {
  std::string name;
  DataType dtype = DT_FLOAT;
  std::vector<int64_t> shape;
};

struct TracedVariable {
  const Variable* variable;
  const Node* handle;  // Its VarHandleOp.
};

struct TracedGraph {
  std::unique_ptr<Graph> graph;
  std::vector<const Node*> placeholders;  // One per TraceInput, in order.
  std::vector<Endpoint> outputs;          // One per function output.
  std::vector<TracedVariable> variables;  // In order of first read.
};

using TraceableFunction =
    std::function<absl::StatusOr<std::vector<Tensor>>(const std::vector<Tensor>& inputs)>;

// Errors: the function's own; INVALID_ARGUMENT for bad input specs or an
// untraceable tensor; UNIMPLEMENTED for batch-dependent structure.
absl::StatusOr<TracedGraph> TraceFunction(const TraceableFunction& fn,
                                          const std::vector<TraceInput>& inputs);

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_TRACER_H_
