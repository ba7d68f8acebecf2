// ObjectGraph: the dependency graph of a TF2 object-based checkpoint
// (tf.train.Checkpoint), built in memory and turned into the
// TrackableObjectGraph proto stored under `_CHECKPOINTABLE_OBJECT_GRAPH`.
//
// Nodes are objects (a model, a layer, an optimizer, a list); a node may
// save one value (a variable's VARIABLE_VALUE attribute). Edges are named
// ("model", "layer_with_weights-0", "kernel") and several edges may lead to
// the same node, as Keras's "layer-0" and "layer_with_weights-0" do.
//
// Serialize() numbers the nodes reachable from the root in TensorFlow's
// breadth-first order and names each value by the first path found to it
// (see Note [Breadth-first names] in the .cc):
//   model/layer_with_weights-0/kernel/.ATTRIBUTES/VARIABLE_VALUE
// Local names are escaped as TensorFlow does ("." -> "..", "/" -> ".S").
//
// Not thread-safe; the SaveableValue functions run on the calling thread.
//
//   ObjectGraph graph;                       // node 0 is the root
//   int model = graph.AddNode();
//   graph.AddChild(ObjectGraph::kRoot, "model", model);
//   int kernel = graph.AddNode(std::move(kernel_value));
//   graph.AddChild(model, "kernel", kernel);
//   SerializedObjectGraph s = graph.Serialize();
#ifndef TFD_SAVEDMODEL_CHECKPOINT_OBJECT_GRAPH_H_
#define TFD_SAVEDMODEL_CHECKPOINT_OBJECT_GRAPH_H_

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/framework/tensor.h"
#include "core/protobuf/trackable_object_graph.pb.h"

namespace tfd {
namespace savedmodel {

// The bundle key of the serialized object graph (a DT_STRING scalar).
inline constexpr char kObjectGraphKey[] = "_CHECKPOINTABLE_OBJECT_GRAPH";
// The attribute name of a variable's value.
inline constexpr char kVariableValueAttribute[] = "VARIABLE_VALUE";

// One tensor an object saves and restores.
struct SaveableValue {
  std::string full_name;  // The variable's own name: "dense/kernel".
  DataType dtype = DT_INVALID;
  TensorShape shape;
  // The value to save (host or device tensor of dtype and shape).
  std::function<absl::StatusOr<Tensor>()> read;
  // Restores a value already checked to have dtype and shape.
  std::function<absl::Status(const Tensor&)> assign;
  // Whether restoring fails when the checkpoint lacks the value. Only
  // bookkeeping that TensorFlow creates lazily (save_counter) is optional.
  bool required = true;
};

// "." -> "..", "/" -> ".S" (TensorFlow's escape of local names in keys).
std::string EscapeLocalName(absl::string_view name);

// The proto plus, for each saved value, its key, in node order.
struct SerializedObjectGraph {
  tensorflow::TrackableObjectGraph proto;
  struct Entry {
    std::string key;
    const SaveableValue* value;  // Owned by the ObjectGraph.
  };
  std::vector<Entry> values;
};

class ObjectGraph {
 public:
  static constexpr int kRoot = 0;

  ObjectGraph();

  // A new node, with or without a value; returns its id (not the id it
  // gets in the proto, which Serialize decides).
  int AddNode();
  int AddNode(SaveableValue value);
  // An edge parent -> child named `local_name`. Names are unique per
  // parent by construction of the callers.
  void AddChild(int parent, std::string local_name, int child);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const std::vector<std::pair<std::string, int>>& children(int node) const {
    return nodes_[node].children;
  }
  const SaveableValue* value(int node) const {
    return nodes_[node].value ? &*nodes_[node].value : nullptr;
  }
  // The child of `node` named `local_name`, if any.
  std::optional<int> FindChild(int node, absl::string_view local_name) const;

  SerializedObjectGraph Serialize() const;

 private:
  struct Node {
    std::vector<std::pair<std::string, int>> children;
    std::optional<SaveableValue> value;
  };
  std::vector<Node> nodes_;
};

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_CHECKPOINT_OBJECT_GRAPH_H_
