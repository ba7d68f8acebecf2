// GraphDef serialization of the graph IR, and import with validation.
//
// ToGraphDef writes nodes in the graph's order with TensorFlow's input
// strings ("node", "node:k", "^control") and the VersionDef numbers TF
// expects (tf_formats.md §3.4): producer kGraphDefProducer, min_consumer 0.
//
// GraphFromGraphDef checks what a loader must refuse before running
// anything, each error naming the node:
//   - duplicate or empty node names, malformed input strings, data inputs
//     after control inputs;
//   - inputs naming nodes that do not exist, or outputs they do not have;
//   - ops tfd does not know (neither registered nor graph ops), and function
//     calls (InlineFunctionCalls, function_inliner.h, removes them first);
//   - a cycle ("graph has a cycle through node 'a'").
// It accepts a graph version TF would accept for this producer range and
// rejects min_consumer above kGraphDefProducer.
#ifndef TFD_CORE_GRAPH_GRAPH_DEF_H_
#define TFD_CORE_GRAPH_GRAPH_DEF_H_

#include <memory>

#include "absl/status/statusor.h"
#include "core/graph/graph.h"
#include "core/protobuf/graph.pb.h"

namespace tfd {
namespace graph {

// TF_GRAPH_DEF_VERSION of TensorFlow 2.12: a modern producer (no legacy
// behaviours) that every TensorFlow since 2.12 reads without a warning.
inline constexpr int kGraphDefProducer = 1394;

tensorflow::GraphDef ToGraphDef(const Graph& graph);

// INVALID_ARGUMENT (bad structure, a cycle) or NOT_FOUND (unknown op), each
// naming the node; UNIMPLEMENTED for a function call left in the graph.
absl::StatusOr<std::unique_ptr<Graph>> GraphFromGraphDef(const tensorflow::GraphDef& def);

// Splits a NodeDef input string: "^a" (control), "a" (output 0), "a:3".
struct ParsedInput {
  std::string node;
  int index = 0;
  bool control = false;
};
absl::StatusOr<ParsedInput> ParseInput(absl::string_view input);

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_GRAPH_DEF_H_
