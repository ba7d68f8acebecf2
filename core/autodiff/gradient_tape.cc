#include "core/autodiff/gradient_tape.h"

#include <algorithm>
#include <unordered_map>

#include "core/autodiff/gradient_registry.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

// Sums the gradients that reached one value; AddN when there are several.
absl::StatusOr<Tensor> SumGradients(std::vector<Tensor>& grads) {
  if (grads.size() > 1) {
    TFD_ASSIGN_OR_RETURN(Tensor sum, Execute1("AddN", grads));
    grads.assign(1, sum);
  }
  return grads[0];
}

absl::StatusOr<Tensor> OnesLike(const Tensor& t) {
  Tensor ones(t.dtype(), t.shape());
  switch (t.dtype()) {
#define TFD_ONES_CASE(T)                                           \
  case DataTypeToEnum<T>::value:                                   \
    std::fill_n(ones.data<T>(), ones.NumElements(), T(1.0f)); \
    break;
    TFD_FLOAT_TYPES(TFD_ONES_CASE)
#undef TFD_ONES_CASE
    default:
      return InvalidArgument("GradientTape: the target must be floating point, got ",
                             DataTypeName(t.dtype()));
  }
  return ones.CopyTo(t.device());
}

}  // namespace

GradientTape::GradientTape(bool persistent, bool watch_accessed_variables)
    : persistent_(persistent), watch_accessed_variables_(watch_accessed_variables) {
  AddObserver(this);
}

GradientTape::~GradientTape() { RemoveObserver(this); }

void GradientTape::Watch(const Tensor& t) {
  if (t.defined()) tracked_.insert(t.id());
}

void GradientTape::Watch(const Variable& v) {
  if (tracked_.insert(v.handle_id()).second) variables_.push_back(&v);
}

void GradientTape::OnExecute(const OpCall& call) {
  if (!recording_) return;
  bool watched = false;
  for (const Tensor& t : call.inputs) {
    if (t.defined() && tracked_.count(t.id()) > 0) {
      watched = true;
      break;
    }
  }
  if (!watched) return;
  Entry e{call.op, call.attrs, {}, {}, {}, {}};
  e.inputs.assign(call.inputs.begin(), call.inputs.end());
  e.outputs.assign(call.outputs.begin(), call.outputs.end());
  for (const Tensor& t : call.inputs) e.input_ids.push_back(t.defined() ? t.id() : 0);
  for (const Tensor& t : call.outputs) {
    e.output_ids.push_back(t.id());
    tracked_.insert(t.id());
  }
  entries_.push_back(std::move(e));
}

void GradientTape::OnVariableRead(const Variable& variable, const Tensor& value) {
  if (!recording_) return;
  if (watch_accessed_variables_ && variable.trainable()) Watch(variable);
  if (tracked_.count(variable.handle_id()) == 0) return;
  tracked_.insert(value.id());
  entries_.push_back(Entry{nullptr, AttrMap(), {}, {value}, {variable.handle_id()},
                           {value.id()}});
}

absl::StatusOr<std::vector<Tensor>> GradientTape::Gradient(
    absl::Span<const Tensor> targets, absl::Span<const Tensor> sources,
    absl::Span<const Tensor> output_gradients, UnconnectedGradients unconnected) {
  std::vector<uint64_t> ids;
  std::vector<Tensor> likes(sources.begin(), sources.end());
  for (const Tensor& s : sources) ids.push_back(s.defined() ? s.id() : 0);
  return GradientByIds(targets, ids, likes, output_gradients, unconnected);
}

absl::StatusOr<std::vector<Tensor>> GradientTape::Gradient(
    const Tensor& target, absl::Span<const Variable* const> sources,
    UnconnectedGradients unconnected) {
  std::vector<uint64_t> ids;
  std::vector<Tensor> likes;
  for (const Variable* v : sources) {
    if (v == nullptr) return InvalidArgument("GradientTape::Gradient: null variable");
    ids.push_back(v->handle_id());
    likes.push_back(v->Peek());
  }
  return GradientByIds({target}, ids, likes, {}, unconnected);
}

absl::StatusOr<std::vector<Tensor>> GradientTape::GradientByIds(
    absl::Span<const Tensor> targets, const std::vector<uint64_t>& source_ids,
    const std::vector<Tensor>& source_likes, absl::Span<const Tensor> output_gradients,
    UnconnectedGradients unconnected) {
  if (used_ && !persistent_) {
    return FailedPrecondition(
        "GradientTape: a non-persistent tape can only compute gradients once; "
        "make it persistent to call Gradient several times");
  }
  used_ = true;
  if (!output_gradients.empty() && output_gradients.size() != targets.size()) {
    return InvalidArgument("GradientTape: ", output_gradients.size(),
                           " output gradients for ", targets.size(), " targets");
  }
  // The gradient computation itself is not recorded on this tape (outer
  // tapes still record it, for higher-order derivatives).
  const bool was_recording = recording_;
  recording_ = false;
  struct Restore {
    GradientTape* tape;
    bool value;
    ~Restore() { tape->recording_ = value; }
  } restore{this, was_recording};

  std::unordered_map<uint64_t, std::vector<Tensor>> pending;
  for (size_t i = 0; i < targets.size(); ++i) {
    const Tensor& target = targets[i];
    if (!target.defined()) return InvalidArgument("GradientTape: undefined target");
    Tensor seed;
    if (!output_gradients.empty()) {
      seed = output_gradients[i];
      if (!seed.defined() || seed.shape() != target.shape()) {
        return InvalidArgument("GradientTape: output gradient ", i, " must have shape ",
                               target.shape().DebugString());
      }
    } else {
      TFD_ASSIGN_OR_RETURN(seed, OnesLike(target));
    }
    pending[target.id()].push_back(seed);
  }

  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    Entry& e = *it;
    std::vector<Tensor> out_grads(e.output_ids.size());
    bool any = false;
    for (size_t k = 0; k < e.output_ids.size(); ++k) {
      auto p = pending.find(e.output_ids[k]);
      if (p == pending.end()) continue;
      TFD_ASSIGN_OR_RETURN(out_grads[k], SumGradients(p->second));
      any = true;
    }
    if (!any) continue;
    std::vector<Tensor> in_grads;
    if (e.op == nullptr) {
      in_grads = {out_grads[0]};
    } else {
      TFD_ASSIGN_OR_RETURN(const GradFn* fn, LookupGradient(e.op->name));
      if (fn == nullptr) continue;  // Not differentiable: nothing flows back.
      const GradContext ctx{e.op, e.attrs, e.inputs, e.outputs, out_grads};
      absl::StatusOr<std::vector<Tensor>> grads = (*fn)(ctx);
      if (!grads.ok()) {
        return absl::Status(grads.status().code(),
                            absl::StrCat("gradient of ", e.op->name, ": ",
                                         grads.status().message()));
      }
      in_grads = *std::move(grads);
      if (in_grads.size() != e.input_ids.size()) {
        return Internal("gradient of ", e.op->name, " returned ", in_grads.size(),
                        " gradients for ", e.input_ids.size(), " inputs");
      }
    }
    for (size_t k = 0; k < in_grads.size(); ++k) {
      if (!in_grads[k].defined() || tracked_.count(e.input_ids[k]) == 0) continue;
      if (e.op != nullptr && in_grads[k].shape() != e.inputs[k].shape()) {
        return Internal("gradient of ", e.op->name, " for input ", k, " has shape ",
                        in_grads[k].shape().DebugString(), ", input has ",
                        e.inputs[k].shape().DebugString());
      }
      pending[e.input_ids[k]].push_back(std::move(in_grads[k]));
    }
  }
  if (!persistent_) entries_.clear();

  std::vector<Tensor> result;
  for (size_t i = 0; i < source_ids.size(); ++i) {
    auto p = pending.find(source_ids[i]);
    if (p != pending.end()) {
      TFD_ASSIGN_OR_RETURN(Tensor g, SumGradients(p->second));
      result.push_back(g);
    } else if (unconnected == UnconnectedGradients::kZero && source_likes[i].defined()) {
      TFD_ASSIGN_OR_RETURN(Tensor z, Tensor::Zeros(source_likes[i].dtype(),
                                                   source_likes[i].shape(),
                                                   source_likes[i].device()));
      result.push_back(z);
    } else {
      result.push_back(Tensor());
    }
  }
  return result;
}

}  // namespace tfd
