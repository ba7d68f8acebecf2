// How AddN of many inputs is split into GPU launches.
//
// One launch reads at most `max_per_launch` inputs (their pointers travel
// in the kernel's parameters). More inputs take further launches, each
// starting from the partial sum the previous one left. That partial sum
// must stay in the accumulation type: rounding it to half or bfloat16
// between launches would round the sum once per launch, where our CPU
// kernel accumulates in float and rounds once at the end. (TensorFlow's
// own CPU AddN rounds its partial sums to bfloat16: for 40 inputs its
// sums differ from a float sum rounded once in most elements.) So for
// 16-bit outputs the partial sum lives in a float scratch buffer and only
// the last launch writes the output; for float, double and integers the
// accumulation type is the output's own, and the output holds the partial
// sum.
//
//   AddNPlan plan = PlanAddN(/*count=*/40, /*max_per_launch=*/16,
//                            /*narrow_output=*/true);
//   // 3 launches: [0,16) -> scratch, [16,32) scratch -> scratch,
//   // [32,40) scratch -> output. plan.needs_scratch == true.
//
// Plain C++ (no CUDA): tested on every machine (add_n_plan_test.cc).
#ifndef TFD_CORE_KERNELS_CUDA_ADD_N_PLAN_H_
#define TFD_CORE_KERNELS_CUDA_ADD_N_PLAN_H_

#include <vector>

#include "absl/status/statusor.h"

namespace tfd {
namespace cuda_kernels {

// One launch: adds inputs [first, first + count) to the running sum.
struct AddNLaunch {
  int first = 0;
  int count = 0;
  // Starts from the partial sum instead of zero.
  bool read_partial = false;
  // Leaves the sum, unrounded, in the partial buffer; false for the last
  // launch, which writes the output (rounded once, in its type).
  bool write_partial = false;
};

struct AddNPlan {
  std::vector<AddNLaunch> launches;
  // The partial sum needs a buffer of the accumulation type (float) the
  // size of the output: more than one launch into a narrower output.
  bool needs_scratch = false;
};

// The launches for `count` inputs. `narrow_output`: the output type is
// narrower than its accumulation type (half and bfloat16 accumulate in
// float). INVALID_ARGUMENT for count < 1 or max_per_launch < 1.
absl::StatusOr<AddNPlan> PlanAddN(int count, int max_per_launch, bool narrow_output);

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_ADD_N_PLAN_H_
