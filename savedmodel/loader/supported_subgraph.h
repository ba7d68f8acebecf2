// Keeps the part of a flat GraphDef that tfd can run.
//
// A TensorFlow-written SavedModel holds more than its signatures need: the
// save function, for one, uses string ops tfd does not implement
// (StaticRegexFullMatch, ShardedFilename). A node whose op tfd does not
// know, and every node that depends on it, is dropped, unless one of the
// `required` nodes (signature tensors, the restore and init ops) depends on
// it: then loading fails with NOT_FOUND naming the node and its op.
#ifndef TFD_SAVEDMODEL_LOADER_SUPPORTED_SUBGRAPH_H_
#define TFD_SAVEDMODEL_LOADER_SUPPORTED_SUBGRAPH_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/protobuf/graph.pb.h"

namespace tfd {
namespace savedmodel {

// `graph` must have no function calls left (InlineFunctionCalls). For each
// dropped node, `dropped` (if not null) gets why: "it depends on node 'n',
// whose op 'X' tfd does not have".
absl::StatusOr<tensorflow::GraphDef> KeepSupportedNodes(
    const tensorflow::GraphDef& graph, const std::vector<std::string>& required,
    std::map<std::string, std::string>* dropped = nullptr);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_LOADER_SUPPORTED_SUBGRAPH_H_
