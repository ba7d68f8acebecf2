// Matching a live ObjectGraph with the object graph saved in a checkpoint,
// as TensorFlow's restore does: from both roots, a live object's child
// matches the saved node's child of the same edge name, recursively. The
// saved node's VARIABLE_VALUE attribute then names the bundle key to
// restore from. Variable names never enter the matching, so renamed
// layers restore and same-named variables in other positions do not.
#ifndef TFD_SAVEDMODEL_CHECKPOINT_OBJECT_GRAPH_MATCH_H_
#define TFD_SAVEDMODEL_CHECKPOINT_OBJECT_GRAPH_MATCH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/protobuf/trackable_object_graph.pb.h"
#include "savedmodel/checkpoint/object_graph.h"

namespace tfd {
namespace savedmodel {

struct MatchedValue {
  const SaveableValue* value;  // Owned by the live graph.
  std::string key;             // Where the checkpoint holds it.
  std::string live_key;        // The key this graph would save it under.
};

// The bundle key of every live value found in `saved`. Errors:
//   NOT_FOUND naming the key, for a required live value whose object is
//     not in `saved` or whose saved node has no VARIABLE_VALUE;
//   DATA_LOSS for a saved graph with a child id out of range or no root.
// Optional values that are absent are left out.
absl::StatusOr<std::vector<MatchedValue>> MatchObjectGraph(
    const ObjectGraph& live, const tensorflow::TrackableObjectGraph& saved);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_OBJECT_GRAPH_MATCH_H_
