#include "core/graph/graph.h"

#include "absl/strings/str_cat.h"

namespace tfd {
namespace graph {

std::string Endpoint::TensorName() const { return absl::StrCat(node->name(), ":", index); }

std::string Endpoint::InputString() const {
  return index == 0 ? node->name() : TensorName();
}

const tensorflow::AttrValue* Node::FindAttr(absl::string_view name) const {
  auto it = spec_.attrs.find(std::string(name));
  return it == spec_.attrs.end() ? nullptr : &it->second;
}

DataType Node::input_type(int i) const {
  const Endpoint& e = spec_.inputs[i];
  return e.node->output_type(e.index);
}

std::string Graph::UniqueName(absl::string_view base) {
  std::string name(base.empty() ? "node" : base);
  if (!used_names_.contains(name)) return name;
  // Like TensorFlow's unique_name: the first free "base_k", k = 1, 2, ...
  for (int k = 1;; ++k) {
    std::string candidate = absl::StrCat(name, "_", k);
    if (!used_names_.contains(candidate)) return candidate;
  }
}

Node* Graph::AddNode(NodeSpec spec) {
  spec.name = UniqueName(spec.name);
  used_names_.insert(spec.name);
  auto node = std::unique_ptr<Node>(new Node(num_nodes(), std::move(spec)));
  Node* raw = node.get();
  by_name_[raw->name()] = raw;
  nodes_.push_back(std::move(node));
  return raw;
}

const Node* Graph::FindNode(absl::string_view name) const {
  auto it = by_name_.find(std::string(name));
  return it == by_name_.end() ? nullptr : it->second;
}

void Graph::SetNodeAttr(const Node* node, const std::string& name,
                        tensorflow::AttrValue value) {
  nodes_[node->id()]->spec_.attrs[name] = std::move(value);
}

std::vector<const Node*> Graph::Consumers(const Node* node) const {
  std::vector<const Node*> out;
  for (const auto& n : nodes_) {
    bool uses = false;
    for (const Endpoint& e : n->inputs()) uses |= e.node == node;
    for (const Node* c : n->control_inputs()) uses |= c == node;
    if (uses) out.push_back(n.get());
  }
  return out;
}

}  // namespace graph
}  // namespace tfd
