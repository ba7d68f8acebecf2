#include "core/autodiff/gradient_tape.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "core/autodiff/gradient_registry.h"
#include "core/framework/execute.h"
#include "core/framework/kernel.h"
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
  // On a device with the kernel, a fill there: no host tensor copied over
  // at every Gradient call.
  if (!t.device()->host_memory() && IsFloatingType(t.dtype()) &&
      LookupKernel("OnesLike", t.device()->type(), t.dtype()).ok()) {
    return Execute1("OnesLike", {t}, AttrMap(), t.device());
  }
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

namespace {

// Note [Recycled tape storage]: a tape's entry list grows op by op, and a
// loop that makes a tape per step regrew it (and moved every entry at each
// doubling) every time; a long tape's list is large enough that glibc gives
// its memory back to the system when it is freed, and the next tape's
// growth page-faults it in again. A tape's emptied list is therefore kept
// for the next tape made on the same thread, up to kMaxRecycledEntries.
constexpr size_t kMaxRecycledEntries = 8192;

// This thread's spare (empty) entry list. `Entries` is the tape's private
// list type.
template <typename Entries>
Entries& SpareEntries() {
  thread_local Entries spare;
  return spare;
}

}  // namespace

GradientTape::GradientTape(bool persistent, bool watch_accessed_variables)
    : persistent_(persistent), watch_accessed_variables_(watch_accessed_variables) {
  entries_.swap(SpareEntries<decltype(entries_)>());
  AddObserver(this);
}

GradientTape::~GradientTape() {
  RemoveObserver(this);
  if (entries_.capacity() > kMaxRecycledEntries) return;
  entries_.clear();
  auto& spare = SpareEntries<decltype(entries_)>();
  if (spare.capacity() < entries_.capacity()) spare.swap(entries_);
}

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

absl::Status GradientTape::SourcesOf(absl::Span<const Variable* const> sources,
                                     std::vector<uint64_t>* ids, std::vector<Tensor>* likes) {
  for (const Variable* v : sources) {
    if (v == nullptr) return InvalidArgument("GradientTape::Gradient: null variable");
    ids->push_back(v->handle_id());
    likes->push_back(v->Peek());
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> GradientTape::Gradient(
    const Tensor& target, absl::Span<const Variable* const> sources,
    UnconnectedGradients unconnected) {
  std::vector<uint64_t> ids;
  std::vector<Tensor> likes;
  TFD_RETURN_IF_ERROR(SourcesOf(sources, &ids, &likes));
  return GradientByIds({target}, ids, likes, {}, unconnected);
}

absl::StatusOr<std::vector<Tensor>> GradientTape::Gradient(
    const Tensor& target, absl::Span<const Variable* const> sources,
    const GradientReadyFn& on_ready, UnconnectedGradients unconnected) {
  std::vector<uint64_t> ids;
  std::vector<Tensor> likes;
  TFD_RETURN_IF_ERROR(SourcesOf(sources, &ids, &likes));
  return GradientByIds({target}, ids, likes, {}, unconnected, on_ready ? &on_ready : nullptr);
}

std::vector<size_t> GradientTape::FirstConsumers(const std::vector<uint64_t>& source_ids) const {
  std::unordered_map<uint64_t, size_t> first;
  for (uint64_t id : source_ids) first.emplace(id, entries_.size());
  for (size_t i = entries_.size(); i-- > 0;) {
    for (uint64_t id : entries_[i].input_ids) {
      auto it = first.find(id);
      if (it != first.end()) it->second = i;
    }
  }
  std::vector<size_t> out;
  for (uint64_t id : source_ids) out.push_back(id == 0 ? entries_.size() : first[id]);
  return out;
}

absl::StatusOr<BackwardPlan> GradientTape::PlanBackward(
    const Tensor& target, absl::Span<const Variable* const> sources) const {
  if (!target.defined()) return InvalidArgument("GradientTape: undefined target");
  std::vector<uint64_t> ids;
  std::vector<Tensor> likes;
  TFD_RETURN_IF_ERROR(SourcesOf(sources, &ids, &likes));
  // The walk of GradientByIds, following ids only.
  std::unordered_set<uint64_t> reached = {target.id()};
  BackwardPlan plan;
  for (auto it = entries_.rbegin(); it != entries_.rend(); ++it) {
    const Entry& e = *it;
    const bool any = std::any_of(e.output_ids.begin(), e.output_ids.end(),
                                 [&](uint64_t id) { return reached.count(id) > 0; });
    if (!any) continue;
    if (e.op != nullptr) {
      TFD_ASSIGN_OR_RETURN(const GradFn* fn, LookupGradient(e.op->name));
      if (fn == nullptr) continue;
      if (GradientCommunicates(e.op->name)) plan.communicates = true;
    }
    for (uint64_t id : e.input_ids) {
      if (id != 0 && tracked_.count(id) > 0) reached.insert(id);
    }
  }
  for (uint64_t id : ids) plan.reachable.push_back(reached.count(id) > 0);
  return plan;
}

// Note [When a gradient is final]
// The backward pass visits the recorded entries from the last to the
// first, and an entry adds to the gradient of a value only when that
// value is one of its inputs. A source's gradient can therefore grow
// only until the pass has visited the EARLIEST entry that reads the
// source (for a variable, its first read under the tape); after that no
// remaining entry can contribute, and the sum of what has arrived is
// final. A source that no entry reads is final before the pass starts:
// it is a target's seed or unconnected. Summing a source's
// contributions when it becomes final adds the same tensors in the same
// order as summing them at the end would, so the early gradient is the
// same bits Gradient() returns. In a network of layers the last layer's
// weights are read last and so become final first: reverse layer order.

absl::StatusOr<std::vector<Tensor>> GradientTape::GradientByIds(
    absl::Span<const Tensor> targets, const std::vector<uint64_t>& source_ids,
    const std::vector<Tensor>& source_likes, absl::Span<const Tensor> output_gradients,
    UnconnectedGradients unconnected, const GradientReadyFn* on_ready) {
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

  // Sources by the entry after which their gradient is final (Note [When
  // a gradient is final]), latest first, and the results so far.
  const std::vector<size_t> first_consumer = FirstConsumers(source_ids);
  std::vector<int> by_finality(source_ids.size());
  for (size_t i = 0; i < by_finality.size(); ++i) by_finality[i] = static_cast<int>(i);
  std::stable_sort(by_finality.begin(), by_finality.end(), [&](int a, int b) {
    return first_consumer[a] > first_consumer[b];
  });
  std::vector<Tensor> result(source_ids.size());
  size_t next_final = 0;
  // Finalizes (and reports) every source whose first reader is at or
  // after entry `index`.
  auto finalize_from = [&](size_t index) -> absl::Status {
    for (; next_final < by_finality.size() && first_consumer[by_finality[next_final]] >= index;
         ++next_final) {
      const int i = by_finality[next_final];
      auto p = pending.find(source_ids[i]);
      if (p != pending.end()) {
        TFD_ASSIGN_OR_RETURN(result[i], SumGradients(p->second));
      } else if (unconnected == UnconnectedGradients::kZero && source_likes[i].defined()) {
        TFD_ASSIGN_OR_RETURN(result[i], Tensor::Zeros(source_likes[i].dtype(),
                                                      source_likes[i].shape(),
                                                      source_likes[i].device()));
      }
      if (on_ready != nullptr) TFD_RETURN_IF_ERROR((*on_ready)(i, result[i]));
    }
    return absl::OkStatus();
  };

  for (size_t index = entries_.size(); index-- > 0;) {
    // Everything first read after this entry is final now.
    TFD_RETURN_IF_ERROR(finalize_from(index + 1));
    Entry& e = entries_[index];
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
  TFD_RETURN_IF_ERROR(finalize_from(0));
  if (!persistent_) entries_.clear();
  return result;
}

}  // namespace tfd
