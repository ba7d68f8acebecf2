// The saver subgraph of a TF1-style SavedModel (tf_formats.md §4.5): the
// nodes through which a loader restores the variables (and a TF1 client
// saves them), under the name scope "save/", as tf.compat.v1.train.Saver
// builds them for a non-sharded V2 checkpoint:
//
//   save/filename     Const "model"               save/Const  PlaceholderWithDefault
//   save/SaveV2       SaveV2(save/Const, names, slices, <one read per variable>)
//   save/control_dependency  Identity(save/Const, ^save/SaveV2)
//   save/RestoreV2    RestoreV2(save/Const, names, slices) -> one tensor per variable
//   save/AssignVariableOp[_k]  AssignVariableOp(<handle k>, save/RestoreV2:k)
//   save/restore_all  NoOp(^every assign)
//
// A loader feeds "<export_dir>/variables/variables" to save/Const:0 and runs
// save/restore_all. The checkpoint key of each variable is its name.
#ifndef TFD_SAVEDMODEL_EXPORT_SAVER_GRAPH_H_
#define TFD_SAVEDMODEL_EXPORT_SAVER_GRAPH_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/graph/graph.h"
#include "core/protobuf/saver.pb.h"

namespace tfd {
namespace savedmodel {

// One variable of the graph: its checkpoint key, dtype, and VarHandleOp.
struct SavedVariable {
  std::string key;
  DataType dtype;
  const graph::Node* handle;
};

// Adds the subgraph to `g` and returns the SaverDef naming its tensors.
// INVALID_ARGUMENT when there are no variables (a SaverDef needs some).
absl::StatusOr<tensorflow::SaverDef> AddSaverSubgraph(const std::vector<SavedVariable>& variables,
                                                      graph::Graph* g);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_EXPORT_SAVER_GRAPH_H_
