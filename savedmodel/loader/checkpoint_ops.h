// RestoreV2 and SaveV2 for the graph executor (core/graph/graph_executor.h):
// the checkpoint I/O ops of a SavedModel's saver, over tfd's TensorBundle
// reader and writer.
//
// RestoreV2(prefix, tensor_names[N], shape_and_slices[N]) -> N tensors
// reads each name from the bundle at `prefix` and checks its dtype against
// the node's `dtypes`. SaveV2(prefix, tensor_names, shape_and_slices,
// tensors...) writes a bundle. Partitioned variables (non-empty
// shape_and_slices) are UNIMPLEMENTED; a missing key is NOT_FOUND naming
// it; a dtype mismatch is INVALID_ARGUMENT naming key and dtypes.
#ifndef TFD_SAVEDMODEL_LOADER_CHECKPOINT_OPS_H_
#define TFD_SAVEDMODEL_LOADER_CHECKPOINT_OPS_H_

#include <map>
#include <string>

#include "core/graph/graph_executor.h"

namespace tfd {
namespace savedmodel {

// {"RestoreV2": ..., "SaveV2": ...}, for GraphExecutor::Options::host_ops.
std::map<std::string, graph::HostOp> CheckpointHostOps();

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_LOADER_CHECKPOINT_OPS_H_
