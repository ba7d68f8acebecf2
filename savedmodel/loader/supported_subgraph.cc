#include "savedmodel/loader/supported_subgraph.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/framework/op_def.h"
#include "core/framework/status.h"
#include "core/graph/graph_def.h"
#include "core/graph/op_signature.h"

namespace tfd {
namespace savedmodel {

absl::StatusOr<tensorflow::GraphDef> KeepSupportedNodes(
    const tensorflow::GraphDef& graph, const std::vector<std::string>& required,
    std::map<std::string, std::string>* dropped_why) {
  const int n = graph.node_size();
  absl::flat_hash_map<std::string, int> index;
  for (int i = 0; i < n; ++i) index.emplace(graph.node(i).name(), i);
  // Edges by index; names that resolve to nothing are left for
  // GraphFromGraphDef to report.
  std::vector<std::vector<int>> inputs(n), consumers(n);
  for (int i = 0; i < n; ++i) {
    for (const std::string& in : graph.node(i).input()) {
      absl::StatusOr<graph::ParsedInput> p = graph::ParseInput(in);
      if (!p.ok()) continue;
      auto it = index.find(p->node);
      if (it == index.end()) continue;
      inputs[i].push_back(it->second);
      consumers[it->second].push_back(i);
    }
  }
  // Everything the required nodes need.
  std::vector<bool> needed(n, false);
  std::vector<int> stack;
  for (const std::string& name : required) {
    if (auto it = index.find(name); it != index.end()) stack.push_back(it->second);
  }
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (needed[i]) continue;
    needed[i] = true;
    for (int j : inputs[i]) stack.push_back(j);
  }
  // Unknown ops and everything downstream of them; cause[i] is the unknown
  // node that dropped node i.
  std::vector<bool> dropped(n, false);
  std::vector<int> cause(n, -1);
  for (int i = 0; i < n; ++i) {
    const std::string& op = graph.node(i).op();
    if (graph::IsGraphOp(op) || LookupOpDef(op).ok()) continue;
    if (needed[i]) {
      return NotFound("node '", graph.node(i).name(), "' uses op '", op,
                      "', which tfd does not have");
    }
    stack.push_back(i);
    cause[i] = i;
  }
  while (!stack.empty()) {
    const int i = stack.back();
    stack.pop_back();
    if (dropped[i]) continue;
    dropped[i] = true;
    for (int j : consumers[i]) {
      if (cause[j] < 0) cause[j] = cause[i];
      stack.push_back(j);
    }
  }
  tensorflow::GraphDef out;
  *out.mutable_versions() = graph.versions();
  for (int i = 0; i < n; ++i) {
    if (!dropped[i]) {
      *out.add_node() = graph.node(i);
    } else if (dropped_why != nullptr) {
      const tensorflow::NodeDef& c = graph.node(cause[i]);
      (*dropped_why)[graph.node(i).name()] = absl::StrCat(
          "it depends on node '", c.name(), "', whose op '", c.op(), "' tfd does not have");
    }
  }
  return out;
}

}  // namespace savedmodel
}  // namespace tfd
