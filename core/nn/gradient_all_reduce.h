// Gradient all-reduce: how an optimizer sums gradients across replicas,
// after the backward pass (AllReduceGradients) or during it
// (AllReduceDuringBackward, which Optimizer::Minimize uses).
//
// Note [Gradient all-reduce order]
// Both hand the gradients to the collectives in REVERSE variable order,
// the order in which a backward pass through layers finalizes them (Note
// [When a gradient is final], gradient_tape.cc). The collectives cut that
// sequence into buckets of bytes_per_pack (collectives/bucketing.h) and
// reduce a bucket once every replica has handed in its tensors, so the
// first buckets hold the last layers' gradients and can be reduced while
// the earlier layers are still being differentiated. The order is fixed
// by the variable list alone, the same on every replica and worker,
// whatever order a replica's gradients actually become final in: a bucket
// simply waits for its last tensor. Because both paths use this one
// layout, each bucket is summed in the same order either way and the
// results are the same bits with overlap on or off.
//
// Thread safety: called on a replica's thread, inside Strategy::Run.
#ifndef TFD_CORE_NN_GRADIENT_ALL_REDUCE_H_
#define TFD_CORE_NN_GRADIENT_ALL_REDUCE_H_

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/autodiff/gradient_tape.h"
#include "core/distribute/distributed_variable.h"
#include "core/distribute/strategy.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace nn {

// Sums the defined tensors of `grads` across the replicas with one
// all-reduce, in the order of Note [Gradient all-reduce order]; returns
// them in their original places, undefined ones left undefined. Every
// replica must have the same ones defined. Errors of the collectives.
absl::StatusOr<std::vector<Tensor>> AllReduceGradients(distribute::ReplicaContext& ctx,
                                                       std::vector<Tensor> grads);

// What a replica does to each of its own gradients before they are summed
// (a LossScaleOptimizer unscales them there, as Keras's compute_gradients
// does); it keeps the dtype and shape.
using GradientTransform = std::function<absl::StatusOr<Tensor>(const Tensor& gradient)>;

// Why the gradients of `loss` cannot be all-reduced during the backward
// pass, or nullopt when they can: overlap is off, there are no
// variables, the backward pass communicates itself (synchronized batch
// normalization: its collectives would interleave with the gradient
// buckets), or some variable certainly gets no gradient (Keras drops it;
// the plain path does the same). Every replica comes to the same answer,
// since it depends on the model and the variables only. Errors of
// GradientTape::PlanBackward.
absl::StatusOr<std::optional<std::string>> WhyNotOverlap(
    distribute::ReplicaContext& ctx, const GradientTape& tape, const Tensor& loss,
    absl::Span<distribute::DistributedVariable* const> vars);

// Differentiates `loss` with respect to this replica's component of each
// of `vars` and sums the gradients across replicas while the backward
// pass runs: one ReplicaContext::StartAllReduce in the order of Note
// [Gradient all-reduce order], each gradient handed in as soon as the
// tape reports it final, after `transform` when one is given (so the
// transform runs during the backward pass too, exactly as it would on the
// whole gradient afterwards). Call it only when WhyNotOverlap says nullopt.
// Returns the summed gradients by variable; a gradient the backward pass
// did not produce after all (a gradient function that returns none for
// an input it reads) is handed in as zeros, to keep the replicas'
// collectives in step, and returned undefined. Errors: INVALID_ARGUMENT
// for a gradient whose dtype or shape is not its variable's; errors of
// the tape and the collectives.
absl::StatusOr<std::vector<Tensor>> AllReduceDuringBackward(
    distribute::ReplicaContext& ctx, GradientTape& tape, const Tensor& loss,
    absl::Span<distribute::DistributedVariable* const> vars,
    const GradientTransform& transform = nullptr);

}  // namespace nn
}  // namespace tfd

#endif  // TFD_CORE_NN_GRADIENT_ALL_REDUCE_H_
