#include "core/graph/graph_def.h"

#include <deque>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "core/framework/status.h"
#include "core/graph/op_signature.h"

namespace tfd {
namespace graph {
namespace {

// The inputs of one NodeDef, parsed once.
struct ParsedNode {
  const tensorflow::NodeDef* def;
  std::vector<ParsedInput> inputs;
};

// A node on a cycle: follows inputs among the nodes a topological sort
// could not place until one repeats.
std::string NodeOnCycle(const std::vector<ParsedNode>& nodes,
                        const absl::flat_hash_map<std::string, int>& index,
                        const std::vector<int>& pending) {
  int at = -1;
  for (int i = 0; i < static_cast<int>(pending.size()); ++i) {
    if (pending[i] > 0) {
      at = i;
      break;
    }
  }
  std::vector<bool> seen(nodes.size(), false);
  while (at >= 0 && !seen[at]) {
    seen[at] = true;
    int next = -1;
    for (const ParsedInput& in : nodes[at].inputs) {
      const int j = index.at(in.node);
      if (pending[j] > 0) {
        next = j;
        break;
      }
    }
    at = next;
  }
  return at >= 0 ? nodes[at].def->name() : "?";
}

}  // namespace

absl::StatusOr<ParsedInput> ParseInput(absl::string_view input) {
  ParsedInput p;
  if (!input.empty() && input[0] == '^') {
    p.control = true;
    input.remove_prefix(1);
  }
  const size_t colon = input.rfind(':');
  if (!p.control && colon != absl::string_view::npos) {
    if (!absl::SimpleAtoi(input.substr(colon + 1), &p.index) || p.index < 0) {
      return InvalidArgument("malformed input '", input, "'");
    }
    input = input.substr(0, colon);
  }
  if (input.empty()) return InvalidArgument("empty input name");
  p.node = std::string(input);
  return p;
}

tensorflow::GraphDef ToGraphDef(const Graph& graph) {
  tensorflow::GraphDef def;
  def.mutable_versions()->set_producer(kGraphDefProducer);
  for (const auto& node : graph.nodes()) {
    tensorflow::NodeDef* n = def.add_node();
    n->set_name(node->name());
    n->set_op(node->op());
    for (const Endpoint& e : node->inputs()) n->add_input(e.InputString());
    for (const Node* c : node->control_inputs()) n->add_input("^" + c->name());
    if (!node->device().empty()) n->set_device(node->device());
    for (const auto& [name, value] : node->attrs()) (*n->mutable_attr())[name] = value;
  }
  return def;
}

absl::StatusOr<std::unique_ptr<Graph>> GraphFromGraphDef(const tensorflow::GraphDef& def) {
  if (def.versions().min_consumer() > kGraphDefProducer) {
    return InvalidArgument("GraphDef needs a consumer of version ",
                           def.versions().min_consumer(), " or newer; tfd reads up to ",
                           kGraphDefProducer);
  }
  const int n = def.node_size();
  std::vector<ParsedNode> nodes(n);
  absl::flat_hash_map<std::string, int> index;
  for (int i = 0; i < n; ++i) {
    const tensorflow::NodeDef& nd = def.node(i);
    if (nd.name().empty()) return InvalidArgument("GraphDef node ", i, " has no name");
    if (!index.emplace(nd.name(), i).second) {
      return InvalidArgument("GraphDef has two nodes named '", nd.name(), "'");
    }
    if (IsFunctionCallOp(nd.op())) {
      return Unimplemented("node '", nd.name(), "': function call op ", nd.op(),
                           " must be inlined before the graph is built");
    }
    nodes[i].def = &nd;
    bool seen_control = false;
    for (const std::string& s : nd.input()) {
      absl::StatusOr<ParsedInput> p = ParseInput(s);
      if (!p.ok()) return InvalidArgument("node '", nd.name(), "': ", p.status().message());
      if (p->control) {
        seen_control = true;
      } else if (seen_control) {
        return InvalidArgument("node '", nd.name(), "': data input '", s,
                               "' follows a control input");
      }
      nodes[i].inputs.push_back(*p);
    }
  }
  // Kahn's algorithm over data and control edges.
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> consumers(n);
  for (int i = 0; i < n; ++i) {
    for (const ParsedInput& in : nodes[i].inputs) {
      auto it = index.find(in.node);
      if (it == index.end()) {
        return InvalidArgument("node '", nodes[i].def->name(), "' has input '",
                               in.control ? "^" : "", in.node,
                               "', but no node of that name exists");
      }
      ++pending[i];
      consumers[it->second].push_back(i);
    }
  }
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i] == 0) ready.push_back(i);
  }
  auto graph = std::make_unique<Graph>();
  std::vector<const Node*> built(n, nullptr);
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    const tensorflow::NodeDef& nd = *nodes[i].def;
    NodeSpec spec;
    spec.name = nd.name();
    spec.op = nd.op();
    spec.device = nd.device();
    spec.attrs = ProtoAttrMap(nd.attr().begin(), nd.attr().end());
    absl::StatusOr<std::vector<DataType>> types = OutputTypes(nd.op(), spec.attrs);
    if (!types.ok()) {
      return absl::Status(types.status().code(),
                          absl::StrCat("node '", nd.name(), "': ", types.status().message()));
    }
    spec.output_types = *std::move(types);
    if (IsGraphOp(nd.op())) {
      TFD_ASSIGN_OR_RETURN(InputCount count, GraphOpInputCount(nd.op(), spec.attrs));
      int data_inputs = 0;
      for (const ParsedInput& in : nodes[i].inputs) data_inputs += in.control ? 0 : 1;
      if (data_inputs < count.min || (count.max >= 0 && data_inputs > count.max)) {
        return InvalidArgument("node '", nd.name(), "' (", nd.op(), ") has ", data_inputs,
                               " inputs; the op takes ", count.min,
                               count.max == count.min ? "" : " or more");
      }
    }
    for (const ParsedInput& in : nodes[i].inputs) {
      const Node* src = built[index.at(in.node)];
      if (in.control) {
        spec.control_inputs.push_back(src);
        continue;
      }
      if (in.index >= src->num_outputs()) {
        return InvalidArgument("node '", nd.name(), "' reads output ", in.index, " of '",
                               in.node, "' (", src->op(), "), which has ",
                               src->num_outputs(), " outputs");
      }
      spec.inputs.push_back({src, in.index});
    }
    built[i] = graph->AddNode(std::move(spec));
    for (int c : consumers[i]) {
      if (--pending[c] == 0) ready.push_back(c);
    }
  }
  if (graph->num_nodes() != n) {
    return InvalidArgument("graph has a cycle through node '", NodeOnCycle(nodes, index, pending),
                           "'");
  }
  return graph;
}

}  // namespace graph
}  // namespace tfd
