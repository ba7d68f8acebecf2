#include "savedmodel/checkpoint/object_graph.h"

#include <deque>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tfd {
namespace savedmodel {

std::string EscapeLocalName(absl::string_view name) {
  std::string out;
  out.reserve(name.size());
  for (char c : name) {
    if (c == '.') {
      out += "..";
    } else if (c == '/') {
      out += ".S";
    } else {
      out += c;
    }
  }
  return out;
}

ObjectGraph::ObjectGraph() { nodes_.emplace_back(); }

int ObjectGraph::AddNode() {
  nodes_.emplace_back();
  return num_nodes() - 1;
}

int ObjectGraph::AddNode(SaveableValue value) {
  nodes_.emplace_back();
  nodes_.back().value = std::move(value);
  return num_nodes() - 1;
}

void ObjectGraph::AddChild(int parent, std::string local_name, int child) {
  nodes_[parent].children.emplace_back(std::move(local_name), child);
}

std::optional<int> ObjectGraph::FindChild(int node, absl::string_view local_name) const {
  for (const auto& [name, child] : nodes_[node].children) {
    if (name == local_name) return child;
  }
  return std::nullopt;
}

// Note [Breadth-first names]
// TensorFlow walks the graph breadth-first from the root, visiting each
// node's edges in order and queueing a node the first time an edge reaches
// it; that order numbers the proto's nodes, and the path of edges by which
// a node was first reached names it. So "optimizer/_iterations" names the
// step counter although "_variables/0" leads to it too: the optimizer's
// own edge is found one level earlier. A node whose subtree saves nothing
// still gets a node, with has_checkpoint_values = false.
SerializedObjectGraph ObjectGraph::Serialize() const {
  std::vector<int> order;                   // proto id -> node
  std::map<int, int> proto_id;              // node -> proto id
  std::map<int, std::vector<std::string>> path;  // node -> escaped names
  std::deque<int> queue = {kRoot};
  proto_id[kRoot] = 0;
  path[kRoot] = {};
  order.push_back(kRoot);
  while (!queue.empty()) {
    const int node = queue.front();
    queue.pop_front();
    for (const auto& [name, child] : nodes_[node].children) {
      if (proto_id.count(child) > 0) continue;
      proto_id[child] = static_cast<int>(order.size());
      order.push_back(child);
      path[child] = path[node];
      path[child].push_back(EscapeLocalName(name));
      queue.push_back(child);
    }
  }

  // A node has checkpoint values when it or a descendant saves a value.
  // Visit in reverse breadth-first order and iterate to a fixed point, so
  // edges back towards the root (a model referring to its optimizer) are
  // covered too.
  std::vector<bool> has_values(order.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (int id = static_cast<int>(order.size()) - 1; id >= 0; --id) {
      const Node& n = nodes_[order[id]];
      bool has = n.value.has_value();
      for (const auto& edge : n.children) has = has || has_values[proto_id[edge.second]];
      if (has && !has_values[id]) {
        has_values[id] = true;
        changed = true;
      }
    }
  }

  SerializedObjectGraph out;
  for (size_t id = 0; id < order.size(); ++id) {
    const Node& n = nodes_[order[id]];
    auto* proto = out.proto.add_nodes();
    for (const auto& [name, child] : n.children) {
      auto* ref = proto->add_children();
      ref->set_node_id(proto_id[child]);
      ref->set_local_name(name);
    }
    if (n.value.has_value()) {
      std::string key = absl::StrCat(absl::StrJoin(path[order[id]], "/"), "/.ATTRIBUTES/",
                                     kVariableValueAttribute);
      auto* attribute = proto->add_attributes();
      attribute->set_name(kVariableValueAttribute);
      attribute->set_full_name(n.value->full_name);
      attribute->set_checkpoint_key(key);
      out.values.push_back({std::move(key), &*n.value});
    }
    proto->mutable_has_checkpoint_values()->set_value(has_values[id]);
  }
  return out;
}

}  // namespace savedmodel
}  // namespace tfd
