#include "core/graph/function_inliner.h"

#include <map>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "core/framework/status.h"
#include "core/graph/op_signature.h"

namespace tfd {
namespace graph {
namespace {

using Library = absl::flat_hash_map<std::string, const tensorflow::FunctionDef*>;

class Inliner {
 public:
  Inliner(const tensorflow::FunctionDefLibrary& lib, tensorflow::GraphDef* out) : out_(out) {
    for (const auto& f : lib.function()) library_[f.signature().name()] = &f;
  }

  // Appends `node` (inputs already in the outer graph's naming) to the
  // output, inlining it when it is a call.
  absl::Status Emit(tensorflow::NodeDef node, int depth) {
    if (out_->node_size() >= kMaxInlinedNodes) {
      return InvalidArgument("inlining function calls makes more than ", kMaxInlinedNodes,
                             " nodes");
    }
    if (!IsFunctionCallOp(node.op())) {
      *out_->add_node() = std::move(node);
      return absl::OkStatus();
    }
    absl::Status s = InlineCall(node, depth);
    if (s.ok()) return s;
    return absl::Status(s.code(), absl::StrCat("inlining call node '", node.name(), "' (",
                                               node.op(), "): ", s.message()));
  }

 private:
  // The body's view of one call: argument bindings and body nodes.
  struct Scope {
    std::string prefix;  // "C/"
    std::map<std::string, std::string> args;  // arg name -> outer input string
    absl::flat_hash_map<std::string, const tensorflow::NodeDef*> body;
  };

  // Rewrites one input string of a body node into the outer naming.
  absl::StatusOr<std::string> Rewrite(const Scope& scope, const std::string& input) {
    const bool control = !input.empty() && input[0] == '^';
    const std::string ref = control ? input.substr(1) : input;
    std::vector<std::string> parts = absl::StrSplit(ref, ':');
    if (auto arg = scope.args.find(parts[0]); arg != scope.args.end()) {
      if (parts.size() > 2 || (parts.size() == 2 && parts[1] != "0")) {
        return InvalidArgument("bad reference '", input, "' to argument '", parts[0], "'");
      }
      if (!control) return arg->second;
      // A control dependency on an argument is one on its producer.
      const std::string& outer = arg->second;
      const std::string producer = outer.substr(outer[0] == '^' ? 1 : 0, outer.rfind(':'));
      return "^" + producer;
    }
    auto it = scope.body.find(parts[0]);
    if (it == scope.body.end()) {
      return InvalidArgument("reference '", input, "' names no argument or node of the function");
    }
    const std::string name = scope.prefix + parts[0];
    if (control) return "^" + name;
    if (parts.size() == 1) return name;
    if (parts.size() == 2) {  // Graph-style "node:k".
      int k = 0;
      if (!absl::SimpleAtoi(parts[1], &k) || k < 0) return InvalidArgument("bad reference '", input, "'");
      return absl::StrCat(name, ":", k);
    }
    if (parts.size() != 3) return InvalidArgument("bad reference '", input, "'");
    int k = 0;
    if (!absl::SimpleAtoi(parts[2], &k) || k < 0) return InvalidArgument("bad reference '", input, "'");
    const tensorflow::NodeDef& src = *it->second;
    absl::StatusOr<std::vector<OutputArg>> layout =
        OutputArgs(src.op(), ProtoAttrMap(src.attr().begin(), src.attr().end()));
    if (absl::IsNotFound(layout.status())) {
      // An op tfd does not know: its outputs cannot be laid out, but the
      // node and everything reading it are refused or dropped later
      // (graph_def.h, the loader), so the index given here is never used.
      return absl::StrCat(name, ":", k);
    }
    TFD_RETURN_IF_ERROR(layout.status());
    const std::vector<OutputArg>& args = *layout;
    int offset = 0;
    for (const OutputArg& a : args) {
      // A single-output op is found by position even if its argument is
      // named differently in tfd's declaration.
      if (a.name == parts[1] || (args.size() == 1 && k < static_cast<int>(a.types.size()))) {
        if (k >= static_cast<int>(a.types.size())) break;
        return absl::StrCat(name, ":", offset + k);
      }
      offset += static_cast<int>(a.types.size());
    }
    return InvalidArgument("reference '", input, "': node '", parts[0], "' (", src.op(),
                           ") has no output '", parts[1], ":", k, "'");
  }

  absl::Status InlineCall(const tensorflow::NodeDef& call, int depth) {
    if (depth >= kMaxCallDepth) {
      return InvalidArgument("function calls nest deeper than ", kMaxCallDepth,
                             " (a recursive function?)");
    }
    auto f_attr = call.attr().find("f");
    if (f_attr == call.attr().end() || f_attr->second.value_case() != tensorflow::AttrValue::kFunc) {
      return InvalidArgument("attr 'f' (func) is missing");
    }
    const std::string& fname = f_attr->second.func().name();
    auto fit = library_.find(fname);
    if (fit == library_.end()) return NotFound("function '", fname, "' is not in the library");
    const tensorflow::FunctionDef& fn = *fit->second;

    Scope scope;
    scope.prefix = call.name() + "/";
    std::vector<std::string> data_inputs;
    std::vector<std::string> control_inputs;
    for (const std::string& in : call.input()) {
      (!in.empty() && in[0] == '^' ? control_inputs : data_inputs).push_back(in);
    }
    if (static_cast<int>(data_inputs.size()) != fn.signature().input_arg_size()) {
      return InvalidArgument("function '", fname, "' takes ", fn.signature().input_arg_size(),
                             " arguments, the call passes ", data_inputs.size());
    }
    for (int i = 0; i < fn.signature().input_arg_size(); ++i) {
      scope.args[fn.signature().input_arg(i).name()] = data_inputs[i];
    }
    for (const tensorflow::NodeDef& n : fn.node_def()) {
      if (!scope.body.emplace(n.name(), &n).second) {
        return InvalidArgument("function '", fname, "' has two nodes named '", n.name(), "'");
      }
    }
    std::string control_node;
    if (!control_inputs.empty()) {
      tensorflow::NodeDef noop;
      noop.set_name(scope.prefix + "_control");
      noop.set_op("NoOp");
      for (const std::string& c : control_inputs) noop.add_input(c);
      control_node = "^" + noop.name();
      *out_->add_node() = std::move(noop);
    }
    for (const tensorflow::NodeDef& n : fn.node_def()) {
      tensorflow::NodeDef copy = n;
      copy.set_name(scope.prefix + n.name());
      copy.clear_input();
      std::vector<std::string> controls;
      for (const std::string& in : n.input()) {
        TFD_ASSIGN_OR_RETURN(std::string rewritten, Rewrite(scope, in));
        if (rewritten[0] == '^') {
          controls.push_back(rewritten);
        } else {
          copy.add_input(rewritten);
        }
      }
      if (!control_node.empty()) controls.push_back(control_node);
      for (const std::string& c : controls) copy.add_input(c);
      TFD_RETURN_IF_ERROR(Emit(std::move(copy), depth + 1));
    }
    // The call's own name now holds its results.
    tensorflow::NodeDef result;
    result.set_name(call.name());
    std::vector<std::string> rets;
    for (const auto& out_arg : fn.signature().output_arg()) {
      auto r = fn.ret().find(out_arg.name());
      if (r == fn.ret().end()) {
        return InvalidArgument("function '", fname, "' does not return output '",
                               out_arg.name(), "'");
      }
      TFD_ASSIGN_OR_RETURN(std::string ret, Rewrite(scope, r->second));
      rets.push_back(ret);
    }
    if (rets.empty()) {
      result.set_op("NoOp");
    } else {
      result.set_op("IdentityN");
      auto tout = call.attr().find("Tout");
      if (tout == call.attr().end()) return InvalidArgument("attr 'Tout' is missing");
      if (tout->second.list().type_size() != static_cast<int>(rets.size())) {
        return InvalidArgument("Tout lists ", tout->second.list().type_size(),
                               " types for ", rets.size(), " results");
      }
      (*result.mutable_attr())["T"] = tout->second;
      for (const std::string& r : rets) result.add_input(r);
    }
    for (const auto& [name, node] : fn.control_ret()) {
      TFD_ASSIGN_OR_RETURN(std::string c, Rewrite(scope, "^" + node));
      result.add_input(c);
    }
    *out_->add_node() = std::move(result);
    return absl::OkStatus();
  }

  Library library_;
  tensorflow::GraphDef* out_;
};

}  // namespace

absl::StatusOr<tensorflow::GraphDef> InlineFunctionCalls(const tensorflow::GraphDef& graph) {
  tensorflow::GraphDef out;
  *out.mutable_versions() = graph.versions();
  Inliner inliner(graph.library(), &out);
  for (const tensorflow::NodeDef& node : graph.node()) {
    TFD_RETURN_IF_ERROR(inliner.Emit(node, 0));
  }
  return out;
}

}  // namespace graph
}  // namespace tfd
