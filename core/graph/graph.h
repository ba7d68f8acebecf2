// Graph: tfd's graph IR. A node is a TensorFlow NodeDef with its edges
// resolved: an op name, attrs in TensorFlow's own AttrValue form, data
// inputs (each an output of another node), control inputs, and the dtypes
// of its outputs. Because op names and attrs are TensorFlow's, a Graph
// converts to and from a GraphDef without translation (graph_def.h).
//
// Nodes are owned by the Graph and never removed, so Node pointers stay
// valid for the Graph's lifetime. Names are unique: AddNode makes the
// requested name unique the way TensorFlow's name scopes do ("MatMul",
// "MatMul_1", ...).
//
// Thread safety: building is single-threaded; a finished Graph may be read
// from many threads.
//
//   Graph g;
//   Node* x = g.AddNode({.name = "x", .op = "Placeholder", .output_types = {DT_FLOAT}});
//   Node* y = g.AddNode({.name = "Relu", .op = "Relu", .inputs = {{x, 0}},
//                        .output_types = {DT_FLOAT}});
#ifndef TFD_CORE_GRAPH_GRAPH_H_
#define TFD_CORE_GRAPH_GRAPH_H_

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/string_view.h"
#include "core/framework/types.h"
#include "core/protobuf/attr_value.pb.h"

namespace tfd {
namespace graph {

class Node;

using ProtoAttrMap = std::map<std::string, tensorflow::AttrValue>;

// One output of a node: its `index`-th output tensor.
struct Endpoint {
  const Node* node = nullptr;
  int index = 0;

  // TensorFlow's tensor name: "node:index" ("node:0" for output 0).
  std::string TensorName() const;
  // A NodeDef input string: "node" for output 0, else "node:index".
  std::string InputString() const;
  bool operator==(const Endpoint& o) const { return node == o.node && index == o.index; }
};

// What AddNode takes.
struct NodeSpec {
  std::string name;  // Made unique by AddNode.
  std::string op;
  std::vector<Endpoint> inputs;
  std::vector<const Node*> control_inputs;
  ProtoAttrMap attrs;
  std::vector<DataType> output_types;
  std::string device;
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return spec_.name; }
  const std::string& op() const { return spec_.op; }
  const std::vector<Endpoint>& inputs() const { return spec_.inputs; }
  const std::vector<const Node*>& control_inputs() const { return spec_.control_inputs; }
  const ProtoAttrMap& attrs() const { return spec_.attrs; }
  const tensorflow::AttrValue* FindAttr(absl::string_view name) const;
  int num_outputs() const { return static_cast<int>(spec_.output_types.size()); }
  DataType output_type(int i) const { return spec_.output_types[i]; }
  const std::vector<DataType>& output_types() const { return spec_.output_types; }
  const std::string& device() const { return spec_.device; }

  // The dtype of data input i (its producer's output dtype).
  DataType input_type(int i) const;

 private:
  friend class Graph;
  Node(int id, NodeSpec spec) : id_(id), spec_(std::move(spec)) {}

  const int id_;
  NodeSpec spec_;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Adds a node; spec.name is replaced by UniqueName(spec.name). The inputs
  // must be nodes of this graph (programmer error otherwise).
  Node* AddNode(NodeSpec spec);

  // `base` if no node has that name yet, else "base_1", "base_2", ...
  std::string UniqueName(absl::string_view base);

  // The node called `name`, or null.
  const Node* FindNode(absl::string_view name) const;

  // Nodes in the order they were added.
  const std::vector<std::unique_ptr<Node>>& nodes() const { return nodes_; }
  int num_nodes() const { return static_cast<int>(nodes_.size()); }

  // Replaces one attr of a node of this graph (tracing generalizes
  // constants after the fact).
  void SetNodeAttr(const Node* node, const std::string& name, tensorflow::AttrValue value);

  // Nodes whose data or control inputs include `node`.
  std::vector<const Node*> Consumers(const Node* node) const;

 private:
  std::vector<std::unique_ptr<Node>> nodes_;
  absl::flat_hash_map<std::string, Node*> by_name_;
  absl::flat_hash_set<std::string> used_names_;
};

}  // namespace graph
}  // namespace tfd

#endif  // TFD_CORE_GRAPH_GRAPH_H_
