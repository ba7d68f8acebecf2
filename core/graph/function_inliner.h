// Function inlining: turns a GraphDef whose nodes call functions of its
// FunctionDefLibrary (TF2's StatefulPartitionedCall and PartitionedCall,
// what tf.saved_model.save writes) into a flat GraphDef that the graph IR
// and executor run directly.
//
// A call node C calling F is replaced by F's body, each body node renamed
// "C/<node>", with references to F's arguments replaced by C's inputs and
// "node:out_arg:k" references resolved to flat output indices. C's own
// name then belongs to an IdentityN node whose inputs are F's return
// values, with control inputs on F's control outputs, so "C:k" and "^C"
// keep their meaning (a NoOp when F returns nothing). Control inputs of C
// become control inputs of every body node, through a NoOp "C/_control".
// Nested calls are inlined recursively, at most kMaxCallDepth deep
// (recursion is refused), into at most kMaxInlinedNodes nodes. The result
// has an empty library.
//
// Ops tfd does not know are copied as they are (the graph importer or the
// loader refuses them, naming node and op); a reference "node:out:k" to
// one becomes "node:k".
//
// Errors, naming the call node: NOT_FOUND for a function missing from the
// library; INVALID_ARGUMENT for an argument count that does not match the
// signature or a reference to a node or argument the body lacks.
#ifndef TFD_CORE_GRAPH_FUNCTION_INLINER_H_
#define TFD_CORE_GRAPH_FUNCTION_INLINER_H_

#include "absl/status/statusor.h"
#include "core/protobuf/graph.pb.h"

namespace tfd {
namespace graph {

inline constexpr int kMaxCallDepth = 32;
// Calls that fan out at every level could otherwise grow the graph
// exponentially with the depth.
inline constexpr int kMaxInlinedNodes = 1 << 20;

absl::StatusOr<tensorflow::GraphDef> InlineFunctionCalls(const tensorflow::GraphDef& graph);

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_FUNCTION_INLINER_H_
