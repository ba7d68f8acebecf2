// Launch plans of the GPU elementwise and reduction kernels: plain structs
// that cwise.cu and reduction.cu read, and the host functions that fill
// them from shapes. No CUDA here, so the plans are built and tested in
// every build (launch_plans_test) while the kernels need --config=cuda.
//
// Broadcasting (BroadcastParams). The output's dimensions, merged and
// stripped of size-1 axes by MakeBroadcastPlan (core/kernels/broadcast.h),
// with each input's element strides (0 along broadcast axes). Up to
// kMaxBroadcastDims merged dimensions, more than any TensorFlow op needs
// in practice; beyond that UNIMPLEMENTED. `kind` names the fast paths the
// kernel takes without index arithmetic.
//
// Reductions (ReductionPass). A reduction over any axes is a sequence of
// passes over a row-major view [outer, reduce, inner] of the running
// result, each removing one group of adjacent reduced axes (last group
// first), as the CPU kernels do (Note [Reduction plan] in
// core/kernels/cpu/reduction_kernels.cc). Innermost, outermost and
// all-axes reductions take one pass, unless they are long and have few
// outputs: then a first pass reduces runs of the axis and a second reduces
// the runs' results (ReductionPass::chunk).
//
//   MakeReductionPasses([8,16,32], {false,true,false}) -> {[8,16,32]}
//   MakeReductionPasses([4,5,6],   {true,false,true})  -> {[20,6,1], [1,4,5]}
//
// Thread-safe pure functions.
#ifndef TFD_CORE_KERNELS_CUDA_LAUNCH_PLANS_H_
#define TFD_CORE_KERNELS_CUDA_LAUNCH_PLANS_H_

#include <cstdint>

namespace tfd {
namespace cuda_kernels {

constexpr int kMaxBroadcastDims = 8;

struct BroadcastParams {
  enum Kind : int32_t {
    kSameShape = 0,    // both inputs contiguous with the output
    kScalarLeft = 1,   // x has one element, y is contiguous
    kScalarRight = 2,  // y has one element, x is contiguous
    kRowVector = 3,    // y (a bias) repeats along rows of x: [rows, cols] + [cols]
    kGeneral = 4,      // index arithmetic over `dims`
  };
  Kind kind = kSameShape;
  int32_t rank = 0;
  int64_t dims[kMaxBroadcastDims] = {};
  int64_t x_strides[kMaxBroadcastDims] = {};
  int64_t y_strides[kMaxBroadcastDims] = {};
  int64_t cols = 0;  // kRowVector: the row length (y's size)
};

// A byte-level copy: for every index i of `dims`,
//   dst[sum_k i_k * dst_strides[k]] = src[sum_k i_k * src_strides[k]]
// (element strides, possibly 0 or negative), the CPU's StridedCopy
// (core/kernels/cpu/strided_copy.h) on the GPU. Size-1 dimensions are
// dropped and adjacent ones contiguous in both merged.
struct StridedCopyParams {
  int32_t rank = 0;
  int64_t dims[kMaxBroadcastDims] = {};
  int64_t src_strides[kMaxBroadcastDims] = {};
  int64_t dst_strides[kMaxBroadcastDims] = {};
};

// One reduction pass over a row-major [outer, reduce, inner] view.
//
// chunk == 0 reduces the whole `reduce` axis: the output is [outer, inner].
// chunk > 0 reduces each run of `chunk` consecutive positions along it (the
// last run may be shorter): the output is [outer, ReducedLength(), inner],
// which a later pass reduces. Long reductions into few outputs are split
// so, or a whole axis of millions of elements would be walked by a handful
// of threads (a bias gradient over a batch of activations; Note [Split
// reductions] in launch_plan_builders.cc).
struct ReductionPass {
  int64_t outer = 1;
  int64_t reduce = 1;
  int64_t inner = 1;
  int64_t chunk = 0;

  // The length of the reduce axis in the output: 1, or the number of runs.
  int64_t ReducedLength() const {
    return chunk == 0 || reduce == 0 ? 1 : (reduce + chunk - 1) / chunk;
  }
  // The elements the pass writes.
  int64_t OutputElements() const { return outer * ReducedLength() * inner; }
};

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_LAUNCH_PLANS_H_
