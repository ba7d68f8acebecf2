// ListVariables: tf.train.list_variables for tfd, the name, dtype and shape
// of every key of a checkpoint (`_CHECKPOINTABLE_OBJECT_GRAPH` included,
// as TensorFlow lists it), sorted by name. The `tfd inspect` command
// prints it.
//
//   TFD_ASSIGN_OR_RETURN(auto vars, ListVariables("/ckpts"));   // latest
//   for (const auto& v : vars) std::cout << v.name << " " << v.shape.DebugString();
#ifndef TFD_SAVEDMODEL_CHECKPOINT_LIST_VARIABLES_H_
#define TFD_SAVEDMODEL_CHECKPOINT_LIST_VARIABLES_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/framework/tensor_shape.h"
#include "core/framework/types.h"

namespace tfd {
namespace savedmodel {

struct CheckpointVariable {
  std::string name;
  DataType dtype;
  TensorShape shape;
};

// `path` is a checkpoint prefix, or a directory whose `checkpoint` state
// file names the latest one. NOT_FOUND when neither exists; DATA_LOSS for
// a damaged .index or entry, naming the file or key.
absl::StatusOr<std::vector<CheckpointVariable>> ListVariables(const std::string& path);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_LIST_VARIABLES_H_
