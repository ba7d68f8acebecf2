#include "core/graph/tracer.h"

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "core/framework/execute.h"
#include "core/framework/status.h"
#include "core/graph/attr_proto.h"
#include "core/graph/tensor_proto.h"

namespace tfd {
namespace graph {
namespace {

tensorflow::AttrValue TypeAttrProto(DataType t) {
  tensorflow::AttrValue v;
  v.set_type(static_cast<tensorflow::DataType>(t));
  return v;
}

// Records the ops of one run of the function into a Graph.
class Recorder : public ExecutionObserver {
 public:
  Recorder() : graph_(std::make_unique<Graph>()) {}

  const Node* AddPlaceholder(const TraceInput& input, const Tensor& value) {
    NodeSpec spec{input.name, "Placeholder"};
    spec.attrs["dtype"] = TypeAttrProto(input.dtype);
    *spec.attrs["shape"].mutable_shape() = ShapeToProto(input.shape);
    spec.output_types = {input.dtype};
    const Node* node = graph_->AddNode(std::move(spec));
    Map(value, {node, 0});
    return node;
  }

  void OnVariableRead(const Variable& variable, const Tensor& value) override {
    snapshots_[value.id()] = &variable;
    traced_.push_back(value);
  }

  void OnExecute(const OpCall& call) override {
    if (!status_.ok()) return;
    status_ = Record(call);
  }

  absl::StatusOr<Endpoint> Resolve(const Tensor& t) {
    if (auto it = endpoints_.find(t.id()); it != endpoints_.end()) return it->second;
    if (auto it = snapshots_.find(t.id()); it != snapshots_.end()) return ReadVariable(*it->second, t);
    for (const Tensor& seen : traced_) {
      if (t.SharesBufferWith(seen)) {
        return InvalidArgument("a ", DataTypeName(t.dtype()), " ", t.shape().DebugString(),
                               " tensor shares memory with a traced value but was not made "
                               "by an op, so the graph cannot compute it");
      }
    }
    NodeSpec spec{"Const", "Const"};
    TFD_ASSIGN_OR_RETURN(*spec.attrs["value"].mutable_tensor(), TensorToProto(t));
    spec.attrs["dtype"] = TypeAttrProto(t.dtype());
    spec.output_types = {t.dtype()};
    Endpoint e{graph_->AddNode(std::move(spec)), 0};
    Map(t, e);
    return e;
  }

  const absl::Status& status() const { return status_; }
  std::unique_ptr<Graph> TakeGraph() { return std::move(graph_); }
  const std::vector<TracedVariable>& variables() const { return variables_; }

 private:
  void Map(const Tensor& t, Endpoint e) {
    endpoints_[t.id()] = e;
    traced_.push_back(t);
  }

  absl::StatusOr<Endpoint> ReadVariable(const Variable& var, const Tensor& snapshot) {
    const Node*& handle = handles_[&var];
    if (handle == nullptr) {
      NodeSpec spec{var.name(), "VarHandleOp"};
      spec.attrs["dtype"] = TypeAttrProto(var.dtype());
      *spec.attrs["shape"].mutable_shape() = ShapeToProto(var.shape().dims());
      spec.attrs["shared_name"].set_s(var.name());
      spec.output_types = {DT_RESOURCE};
      handle = graph_->AddNode(std::move(spec));
      variables_.push_back({&var, handle});
    }
    NodeSpec read{absl::StrCat(var.name(), "/Read/ReadVariableOp"), "ReadVariableOp"};
    read.inputs = {{handle, 0}};
    read.attrs["dtype"] = TypeAttrProto(var.dtype());
    read.output_types = {var.dtype()};
    Endpoint e{graph_->AddNode(std::move(read)), 0};
    Map(snapshot, e);
    return e;
  }

  absl::Status Record(const OpCall& call) {
    NodeSpec spec{call.op->name, call.op->name};
    for (const Tensor& in : call.inputs) {
      absl::StatusOr<Endpoint> e = Resolve(in);
      if (!e.ok()) return InvalidArgument(call.op->name, ": ", e.status().message());
      spec.inputs.push_back(*e);
    }
    for (const auto& [name, value] : call.attrs.values()) {
      if (IsDefaultAttr(*call.op, name, value)) continue;
      absl::StatusOr<tensorflow::AttrValue> p = AttrToProto(value);
      if (!p.ok()) return InvalidArgument(call.op->name, ": attr ", name, ": ", p.status().message());
      spec.attrs[name] = *std::move(p);
    }
    for (const Tensor& out : call.outputs) spec.output_types.push_back(out.dtype());
    const Node* node = graph_->AddNode(std::move(spec));
    for (int i = 0; i < static_cast<int>(call.outputs.size()); ++i) Map(call.outputs[i], {node, i});
    return absl::OkStatus();
  }

  std::unique_ptr<Graph> graph_;
  absl::flat_hash_map<uint64_t, Endpoint> endpoints_;
  absl::flat_hash_map<uint64_t, const Variable*> snapshots_;
  absl::flat_hash_map<const Variable*, const Node*> handles_;
  std::vector<TracedVariable> variables_;
  // Every tensor the graph knows, kept alive so their buffers stay
  // distinguishable from new ones.
  std::vector<Tensor> traced_;
  absl::Status status_;
};

// Registers the recorder for the duration of a scope.
class ObserverScope {
 public:
  explicit ObserverScope(ExecutionObserver* o) : o_(o) { AddObserver(o_); }
  ~ObserverScope() { RemoveObserver(o_); }

 private:
  ExecutionObserver* o_;
};

// A copy of `traced` holding only the nodes its outputs depend on (tracing
// also sees ops that produce nothing the outputs use, such as a layer's
// weight initialization on first call).
TracedGraph Prune(const TracedGraph& traced) {
  const Graph& g = *traced.graph;
  std::vector<bool> keep(g.num_nodes(), false);
  std::vector<const Node*> stack;
  for (const Node* p : traced.placeholders) stack.push_back(p);
  for (const Endpoint& e : traced.outputs) stack.push_back(e.node);
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    if (keep[n->id()]) continue;
    keep[n->id()] = true;
    for (const Endpoint& e : n->inputs()) stack.push_back(e.node);
    for (const Node* c : n->control_inputs()) stack.push_back(c);
  }
  TracedGraph out;
  out.graph = std::make_unique<Graph>();
  std::vector<const Node*> copy(g.num_nodes(), nullptr);
  for (const auto& n : g.nodes()) {  // Added in dependency order.
    if (!keep[n->id()]) continue;
    NodeSpec spec{n->name(), n->op()};
    for (const Endpoint& e : n->inputs()) spec.inputs.push_back({copy[e.node->id()], e.index});
    for (const Node* c : n->control_inputs()) spec.control_inputs.push_back(copy[c->id()]);
    spec.attrs = n->attrs();
    spec.output_types = n->output_types();
    spec.device = n->device();
    copy[n->id()] = out.graph->AddNode(std::move(spec));
  }
  for (const Node* p : traced.placeholders) out.placeholders.push_back(copy[p->id()]);
  for (const Endpoint& e : traced.outputs) out.outputs.push_back({copy[e.node->id()], e.index});
  for (const TracedVariable& v : traced.variables) {
    if (keep[v.handle->id()]) out.variables.push_back({v.variable, copy[v.handle->id()]});
  }
  return out;
}

absl::StatusOr<TracedGraph> TraceOnce(const TraceableFunction& fn,
                                      const std::vector<TraceInput>& inputs, int64_t unknown_dim) {
  Recorder recorder;
  TracedGraph traced;
  std::vector<Tensor> values;
  for (const TraceInput& in : inputs) {
    std::vector<int64_t> dims = in.shape;
    for (int64_t& d : dims) {
      if (d < 0) d = unknown_dim;
    }
    TFD_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::FromDims(dims));
    TFD_ASSIGN_OR_RETURN(Tensor zeros, Tensor::Zeros(in.dtype, shape));
    traced.placeholders.push_back(recorder.AddPlaceholder(in, zeros));
    values.push_back(zeros);
  }
  std::vector<Tensor> outputs;
  {
    ObserverScope scope(&recorder);
    TFD_ASSIGN_OR_RETURN(outputs, fn(values));
  }
  TFD_RETURN_IF_ERROR(recorder.status());
  for (const Tensor& out : outputs) {
    if (!out.defined()) return InvalidArgument("the traced function returned an undefined tensor");
    TFD_ASSIGN_OR_RETURN(Endpoint e, recorder.Resolve(out));
    traced.outputs.push_back(e);
  }
  traced.variables = recorder.variables();
  traced.graph = recorder.TakeGraph();
  return Prune(traced);
}

// The values of an int32/int64 vector constant.
std::vector<int64_t> IntVector(const tensorflow::AttrValue& value) {
  absl::StatusOr<Tensor> t = TensorFromProto(value.tensor());
  std::vector<int64_t> out;
  if (!t.ok() || t->rank() != 1) return out;
  for (int64_t i = 0; i < t->NumElements(); ++i) {
    out.push_back(t->dtype() == DT_INT32 ? t->data<int32_t>()[i] : t->data<int64_t>()[i]);
  }
  return out;
}

// Makes the batch-2 trace `a` valid for any batch, given the batch-3 trace
// `b` of the same function; see the file comment.
absl::Status Generalize(TracedGraph* a, const TracedGraph& b) {
  const Graph& ga = *a->graph;
  const Graph& gb = *b.graph;
  if (ga.num_nodes() != gb.num_nodes()) {
    return Unimplemented("the traced graph has ", ga.num_nodes(), " nodes for batch 2 but ",
                         gb.num_nodes(), " for batch 3: its structure depends on the batch size");
  }
  for (int i = 0; i < ga.num_nodes(); ++i) {
    const Node& na = *ga.nodes()[i];
    const Node& nb = *gb.nodes()[i];
    bool same = na.op() == nb.op() && na.inputs().size() == nb.inputs().size() &&
                na.attrs().size() == nb.attrs().size();
    for (size_t k = 0; same && k < na.inputs().size(); ++k) {
      same = na.inputs()[k].node->id() == nb.inputs()[k].node->id() &&
             na.inputs()[k].index == nb.inputs()[k].index;
    }
    if (!same) {
      return Unimplemented("node '", na.name(), "' differs between batch sizes 2 and 3");
    }
    for (const auto& [name, va] : na.attrs()) {
      const tensorflow::AttrValue* vb = nb.FindAttr(name);
      if (vb != nullptr && vb->SerializeAsString() == va.SerializeAsString()) continue;
      if (na.op() != "Const" || name != "value" || vb == nullptr) {
        return Unimplemented("node '", na.name(), "': attr '", name,
                             "' depends on the batch size");
      }
      // Only a Reshape's shape may vary, in one position, by the batch.
      const std::vector<int64_t> xa = IntVector(va);
      const std::vector<int64_t> xb = IntVector(*vb);
      int varying = -1;
      bool ok = !xa.empty() && xa.size() == xb.size();
      for (size_t k = 0; ok && k < xa.size(); ++k) {
        if (xa[k] == xb[k]) continue;
        ok = varying < 0 && xa[k] > 0 && xa[k] % 2 == 0 && xb[k] == xa[k] / 2 * 3;
        varying = static_cast<int>(k);
      }
      for (const Node* c : ga.Consumers(&na)) {
        ok = ok && c->op() == "Reshape" && c->inputs().size() == 2 &&
             c->inputs()[1].node == &na && c->inputs()[0].node != &na;
      }
      if (!ok) {
        return Unimplemented("constant '", na.name(),
                             "' depends on the batch size in a way the graph cannot express");
      }
      absl::StatusOr<Tensor> t = TensorFromProto(va.tensor());
      TFD_RETURN_IF_ERROR(t.status());
      if (t->dtype() == DT_INT32) {
        t->data<int32_t>()[varying] = -1;
      } else {
        t->data<int64_t>()[varying] = -1;
      }
      tensorflow::AttrValue generalized;
      TFD_ASSIGN_OR_RETURN(*generalized.mutable_tensor(), TensorToProto(*t));
      a->graph->SetNodeAttr(&na, "value", std::move(generalized));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<TracedGraph> TraceFunction(const TraceableFunction& fn,
                                          const std::vector<TraceInput>& inputs) {
  bool has_unknown = false;
  for (const TraceInput& in : inputs) {
    if (in.name.empty()) return InvalidArgument("TraceFunction: an input has no name");
    for (int64_t d : in.shape) {
      if (d < -1) return InvalidArgument("TraceFunction: input '", in.name, "' has dimension ", d);
      has_unknown |= d == -1;
    }
  }
  TFD_ASSIGN_OR_RETURN(TracedGraph traced, TraceOnce(fn, inputs, 2));
  if (has_unknown) {
    TFD_ASSIGN_OR_RETURN(TracedGraph other, TraceOnce(fn, inputs, 3));
    TFD_RETURN_IF_ERROR(Generalize(&traced, other));
  }
  return traced;
}

}  // namespace graph
}  // namespace tfd
