// The outputs a node has, from its op and attrs: what GraphDef import,
// function inlining and validation need to resolve "node:k" and
// "node:out_arg:k" references and to type every edge.
//
// Ops come from two places. Compute ops are tfd's registered OpDefs
// (core/framework/op_def.h). Graph ops are the ones a graph runtime
// executes itself because they touch session state or describe the graph
// rather than compute: feeds (Placeholder), constants, resource variables,
// checkpoint I/O, no-ops and function calls. Their signatures are
// TensorFlow's and live in the table in op_signature.cc.
#ifndef TFD_CORE_GRAPH_OP_SIGNATURE_H_
#define TFD_CORE_GRAPH_OP_SIGNATURE_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/framework/types.h"
#include "core/graph/graph.h"

namespace tfd {
namespace graph {

// One output argument of an op: its name ("product", "tensors") and the
// dtypes of its tensors (one, or several for a list).
struct OutputArg {
  std::string name;
  std::vector<DataType> types;
};

// True for the graph ops listed in op_signature.cc.
bool IsGraphOp(absl::string_view op);
// True for StatefulPartitionedCall and PartitionedCall.
bool IsFunctionCallOp(absl::string_view op);

// The output arguments of a node running `op` with `attrs`. NOT_FOUND
// "op 'X' is not known to tfd" for an op that is neither registered nor a
// graph op; INVALID_ARGUMENT when an attr that sizes or types the outputs
// is missing or malformed.
absl::StatusOr<std::vector<OutputArg>> OutputArgs(absl::string_view op,
                                                  const ProtoAttrMap& attrs);
// The flattened output dtypes.
absl::StatusOr<std::vector<DataType>> OutputTypes(absl::string_view op,
                                                  const ProtoAttrMap& attrs);

// How many data inputs a graph op takes: [min, max]; max < 0 means no
// limit. For compute ops Execute checks the count.
struct InputCount {
  int min = 0;
  int max = -1;
};
absl::StatusOr<InputCount> GraphOpInputCount(absl::string_view op, const ProtoAttrMap& attrs);

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_OP_SIGNATURE_H_
