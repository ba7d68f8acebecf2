#include "savedmodel/checkpoint/object_graph_match.h"

#include <deque>
#include <map>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/framework/status.h"

namespace tfd {
namespace savedmodel {

absl::StatusOr<std::vector<MatchedValue>> MatchObjectGraph(
    const ObjectGraph& live, const tensorflow::TrackableObjectGraph& saved) {
  if (saved.nodes_size() == 0) {
    return absl::DataLossError("checkpoint object graph has no nodes (no root object)");
  }
  // Breadth-first over live objects; the first saved node that reaches a
  // live object is its match (TensorFlow keeps the first one too).
  std::map<int, int> match = {{ObjectGraph::kRoot, 0}};
  std::deque<int> queue = {ObjectGraph::kRoot};
  while (!queue.empty()) {
    const int node = queue.front();
    queue.pop_front();
    const auto& saved_node = saved.nodes(match[node]);
    for (const auto& [name, child] : live.children(node)) {
      if (match.count(child) > 0) continue;
      for (const auto& ref : saved_node.children()) {
        if (ref.local_name() != name) continue;
        if (ref.node_id() < 0 || ref.node_id() >= saved.nodes_size()) {
          return absl::DataLossError(absl::StrCat("checkpoint object graph: child '", name,
                                                  "' refers to node ", ref.node_id(), " of ",
                                                  saved.nodes_size()));
        }
        match[child] = ref.node_id();
        queue.push_back(child);
        break;
      }
    }
  }

  // The keys this graph would write, to name what is missing.
  std::map<const SaveableValue*, std::string> live_keys;
  for (const auto& entry : live.Serialize().values) live_keys[entry.value] = entry.key;

  std::vector<MatchedValue> matched;
  std::vector<std::string> missing;
  for (int node = 0; node < live.num_nodes(); ++node) {
    const SaveableValue* value = live.value(node);
    if (value == nullptr || live_keys.count(value) == 0) continue;  // unreachable
    const std::string& live_key = live_keys[value];
    auto found = match.find(node);
    const tensorflow::TrackableObjectGraph::TrackableObject::SerializedTensor* attribute =
        nullptr;
    if (found != match.end()) {
      for (const auto& a : saved.nodes(found->second).attributes()) {
        if (a.name() == kVariableValueAttribute) attribute = &a;
      }
    }
    if (attribute == nullptr) {
      if (value->required) missing.push_back(live_key);
      continue;
    }
    matched.push_back({value, attribute->checkpoint_key(), live_key});
  }
  if (!missing.empty()) {
    return NotFound("checkpoint has no value for ", missing.size(), " object(s): ",
                    absl::StrJoin(missing, ", "));
  }
  return matched;
}

}  // namespace savedmodel
}  // namespace tfd
