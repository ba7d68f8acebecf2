// GradientTape: reverse-mode automatic differentiation, as tf.GradientTape.
//
// While a tape is alive on a thread it observes every op that thread runs
// through Execute. An op is recorded when one of its inputs is watched or
// was computed from a watched value. Gradient() then walks the records
// backwards from the target, calling each op's registered gradient function
// and summing gradients where a value fed several ops.
//
// Trainable variables read under the tape are watched automatically
// (watch_accessed_variables, as in TensorFlow). A non-persistent tape
// answers one Gradient() call; a persistent one answers many. Tapes nest:
// an outer tape records the ops an inner tape's Gradient() runs, which is
// how second derivatives are taken.
//
// A tape belongs to the thread that made it and must be destroyed on it.
//
//   GradientTape tape;
//   Tensor loss = ...;              // ops reading variables w and b
//   TFD_ASSIGN_OR_RETURN(auto grads, tape.Gradient(loss, {&w, &b}));
#ifndef TFD_CORE_AUTODIFF_GRADIENT_TAPE_H_
#define TFD_CORE_AUTODIFF_GRADIENT_TAPE_H_

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_set>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/framework/execute.h"
#include "core/framework/variable.h"

namespace tfd {

enum class UnconnectedGradients { kNone, kZero };

// Called by Gradient() with a source's index and its final gradient (the
// same tensor Gradient() returns for it: undefined or zeros when the
// source is unconnected, as `unconnected` says). An error stops the
// backward pass and is returned by Gradient().
using GradientReadyFn = std::function<absl::Status(int source, const Tensor& gradient)>;

// What a backward pass from a target would do, known before running it
// (GradientTape::PlanBackward).
struct BackwardPlan {
  // Per source: whether a gradient can flow into it (through ops that have
  // gradient functions). A gradient function may still return none for an
  // input, so true means "maybe", false means "certainly not".
  std::vector<bool> reachable;
  // Whether some op on the path has a gradient that communicates across
  // replicas (MarkGradientCommunicates, gradient_registry.h).
  bool communicates = false;
};

class GradientTape : public ExecutionObserver {
 public:
  explicit GradientTape(bool persistent = false, bool watch_accessed_variables = true);
  ~GradientTape() override;
  GradientTape(const GradientTape&) = delete;
  GradientTape& operator=(const GradientTape&) = delete;

  void Watch(const Tensor& t);
  void Watch(const Variable& v);
  // Variables watched so far, in the order first watched.
  const std::vector<const Variable*>& watched_variables() const { return variables_; }

  // Pauses and resumes recording (tape.stop_recording()).
  void StopRecording() { recording_ = false; }
  void StartRecording() { recording_ = true; }

  // d(sum of targets)/d(source) for each source. `output_gradients`, when
  // given, weights each target (one per target, same shape). Sources that
  // the targets do not depend on get an undefined tensor (kNone) or zeros
  // (kZero). Errors: FAILED_PRECONDITION when a non-persistent tape is
  // asked twice; NOT_FOUND naming an op on the path that has no gradient.
  absl::StatusOr<std::vector<Tensor>> Gradient(
      absl::Span<const Tensor> targets, absl::Span<const Tensor> sources,
      absl::Span<const Tensor> output_gradients = {},
      UnconnectedGradients unconnected = UnconnectedGradients::kNone);
  absl::StatusOr<std::vector<Tensor>> Gradient(
      const Tensor& target, absl::Span<const Variable* const> sources,
      UnconnectedGradients unconnected = UnconnectedGradients::kNone);
  absl::StatusOr<std::vector<Tensor>> Gradient(
      const Tensor& target, std::initializer_list<const Variable*> sources,
      UnconnectedGradients unconnected = UnconnectedGradients::kNone) {
    return Gradient(target, absl::Span<const Variable* const>(sources.begin(), sources.size()),
                    unconnected);
  }

  // Gradient() that also calls `on_ready` once per source, as soon as the
  // source's gradient is final (Note [When a gradient is final] in the
  // .cc), in the order they become final; unconnected sources are
  // reported when the pass reaches the point where they could last have
  // received a gradient. A caller can thus hand early gradients to an
  // all-reduce while the backward pass goes on. The result and the
  // errors are Gradient()'s, plus on_ready's first error.
  absl::StatusOr<std::vector<Tensor>> Gradient(
      const Tensor& target, absl::Span<const Variable* const> sources,
      const GradientReadyFn& on_ready,
      UnconnectedGradients unconnected = UnconnectedGradients::kNone);

  // The BackwardPlan of Gradient(target, sources), from the recorded ops
  // alone: runs nothing and does not use up a non-persistent tape.
  // NOT_FOUND naming an op on the path that has no gradient.
  absl::StatusOr<BackwardPlan> PlanBackward(const Tensor& target,
                                            absl::Span<const Variable* const> sources) const;

  void OnExecute(const OpCall& call) override;
  void OnVariableRead(const Variable& variable, const Tensor& value) override;

 private:
  // One recorded op; op == null records a variable read (identity from the
  // variable's handle id to the snapshot's id).
  // Inline room for two inputs and outputs: most ops have no more, and
  // recording one then allocates nothing but its attrs.
  struct Entry {
    const OpDef* op;
    AttrMap attrs;
    absl::InlinedVector<Tensor, 2> inputs;
    absl::InlinedVector<Tensor, 2> outputs;
    absl::InlinedVector<uint64_t, 2> input_ids;
    absl::InlinedVector<uint64_t, 2> output_ids;
  };

  absl::StatusOr<std::vector<Tensor>> GradientByIds(
      absl::Span<const Tensor> targets, const std::vector<uint64_t>& source_ids,
      const std::vector<Tensor>& source_likes, absl::Span<const Tensor> output_gradients,
      UnconnectedGradients unconnected, const GradientReadyFn* on_ready = nullptr);
  // The handle ids and shapes of variable sources.
  static absl::Status SourcesOf(absl::Span<const Variable* const> sources,
                                std::vector<uint64_t>* ids, std::vector<Tensor>* likes);
  // For each source, the index of the earliest entry that reads it
  // (entries_.size() when none does).
  std::vector<size_t> FirstConsumers(const std::vector<uint64_t>& source_ids) const;

  const bool persistent_;
  const bool watch_accessed_variables_;
  bool recording_ = true;
  bool used_ = false;
  std::unordered_set<uint64_t> tracked_;
  std::vector<const Variable*> variables_;
  std::vector<Entry> entries_;
};

}  // namespace tfd

#endif  // TFD_CORE_AUTODIFF_GRADIENT_TAPE_H_
