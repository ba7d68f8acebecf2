#include "core/kernels/cuda/launch_plan_builders.h"

#include <algorithm>

#include "core/framework/status.h"
#include "core/kernels/broadcast.h"

namespace tfd {
namespace cuda_kernels {
namespace {

// Whether `strides` walk the merged dims contiguously (row-major, dense).
bool Contiguous(absl::Span<const int64_t> dims, absl::Span<const int64_t> strides) {
  int64_t expected = 1;
  for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
    if (strides[d] != expected) return false;
    expected *= dims[d];
  }
  return true;
}

// Note [Split reductions]
// reduction.cu gives each output of a pass one block (inner == 1: rows) or
// one thread (inner > 1: columns). A pass with few outputs and a long
// reduce axis would leave the GPU idle but for those few: the bias
// gradient of ResNet-50's first convolution at batch 256 is 64 columns of
// 3.2 million rows each, 64 threads walking 3.2 million elements apiece.
// Such a pass is split: the first pass reduces runs of `chunk` positions,
// enough runs for the GPU to be busy, and a second pass reduces the runs'
// results (split again when it is itself long). The partial results are
// accumulator-typed like every intermediate, so only the order of the
// additions changes.
//
// Rows: one block of 256 threads per output; aim for kRowBlocks blocks,
// each run at least kMinRowRun long (32 elements per thread).
constexpr int64_t kRowBlocks = 1024;
constexpr int64_t kMinRowRun = 8192;
// Columns: one thread per output; aim for kColumnThreads threads (about
// 1000 per SM of a 132-SM GPU), each run at least kMinColumnRun long.
constexpr int64_t kColumnThreads = 1 << 17;
constexpr int64_t kMinColumnRun = 32;

int64_t CeilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Appends `pass` to `passes`, split as Note [Split reductions] says.
void AppendSplit(ReductionPass pass, std::vector<ReductionPass>* passes) {
  while (true) {
    const bool rows = pass.inner == 1;
    const int64_t workers = rows ? pass.outer : pass.outer * pass.inner;
    const int64_t target = rows ? kRowBlocks : kColumnThreads;
    const int64_t min_run = rows ? kMinRowRun : kMinColumnRun;
    if (workers == 0 || workers >= target || pass.reduce <= 2 * min_run) break;
    const int64_t runs_wanted = CeilDiv(target, workers);
    pass.chunk = std::max(min_run, CeilDiv(pass.reduce, runs_wanted));
    if (pass.ReducedLength() <= 1) {
      pass.chunk = 0;
      break;
    }
    passes->push_back(pass);
    pass = ReductionPass{pass.outer, pass.ReducedLength(), pass.inner, 0};
  }
  passes->push_back(pass);
}

}  // namespace

absl::StatusOr<BroadcastParams> MakeBroadcastParams(const TensorShape& x, const TensorShape& y,
                                                    const TensorShape& out) {
  const BroadcastPlan plan = MakeBroadcastPlan({x, y}, out);
  const int rank = static_cast<int>(plan.dims.size());
  if (rank > kMaxBroadcastDims) {
    return absl::UnimplementedError(
        absl::StrCat("GPU broadcasting supports up to ", kMaxBroadcastDims,
                     " merged dimensions, got ", rank, " for ", x.DebugString(), " and ",
                     y.DebugString()));
  }
  BroadcastParams p;
  p.rank = rank;
  for (int d = 0; d < rank; ++d) {
    p.dims[d] = plan.dims[d];
    p.x_strides[d] = plan.strides[0][d];
    p.y_strides[d] = plan.strides[1][d];
  }
  const bool x_dense = Contiguous(plan.dims, plan.strides[0]);
  const bool y_dense = Contiguous(plan.dims, plan.strides[1]);
  if (x_dense && y_dense) {
    p.kind = BroadcastParams::kSameShape;
  } else if (x.num_elements() == 1 && y_dense) {
    p.kind = BroadcastParams::kScalarLeft;
  } else if (y.num_elements() == 1 && x_dense) {
    p.kind = BroadcastParams::kScalarRight;
  } else if (rank == 2 && x_dense && plan.strides[1][0] == 0 && plan.strides[1][1] == 1) {
    p.kind = BroadcastParams::kRowVector;
    p.cols = plan.dims[1];
  } else {
    p.kind = BroadcastParams::kGeneral;
  }
  return p;
}

absl::StatusOr<BroadcastParams> MakeTransposeParams(const TensorShape& x,
                                                   const std::vector<int64_t>& perm) {
  std::vector<int64_t> strides(x.rank());
  int64_t stride = 1;
  for (int d = x.rank() - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= x.dim(d);
  }
  BroadcastParams p;
  p.kind = BroadcastParams::kGeneral;
  for (int64_t axis : perm) {
    if (x.dim(axis) == 1) continue;
    if (p.rank == kMaxBroadcastDims) {
      return absl::UnimplementedError(absl::StrCat(
          "GPU transposes support up to ", kMaxBroadcastDims, " non-unit dimensions, got ",
          x.DebugString()));
    }
    p.dims[p.rank] = x.dim(axis);
    p.x_strides[p.rank] = strides[axis];
    ++p.rank;
  }
  return p;
}

absl::StatusOr<StridedCopyParams> MakeStridedCopyParams(const std::vector<int64_t>& shape,
                                                       const std::vector<int64_t>& src_strides,
                                                       const std::vector<int64_t>& dst_strides) {
  std::vector<int64_t> dims, src, dst;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    // Merge into the previous dimension when both walks continue it.
    if (!dims.empty() && src.back() == src_strides[d] * shape[d] &&
        dst.back() == dst_strides[d] * shape[d]) {
      dims.back() *= shape[d];
      src.back() = src_strides[d];
      dst.back() = dst_strides[d];
      continue;
    }
    dims.push_back(shape[d]);
    src.push_back(src_strides[d]);
    dst.push_back(dst_strides[d]);
  }
  if (dims.size() > static_cast<size_t>(kMaxBroadcastDims)) {
    return absl::UnimplementedError(absl::StrCat("GPU strided copies support up to ",
                                                 kMaxBroadcastDims, " merged dimensions, got ",
                                                 dims.size()));
  }
  StridedCopyParams p;
  p.rank = static_cast<int32_t>(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    p.dims[d] = dims[d];
    p.src_strides[d] = src[d];
    p.dst_strides[d] = dst[d];
  }
  return p;
}

std::vector<ReductionPass> MakeReductionPasses(const TensorShape& input,
                                               const std::vector<bool>& reduced) {
  // Alternating groups of kept and reduced axes; size-1 axes join any group.
  struct Group {
    bool reduced;
    int64_t size;
  };
  std::vector<Group> groups;
  for (int d = 0; d < input.rank(); ++d) {
    const int64_t n = input.dim(d);
    if (n == 1) continue;
    if (!groups.empty() && groups.back().reduced == reduced[d]) {
      groups.back().size *= n;
    } else {
      groups.push_back({reduced[d], n});
    }
  }
  std::vector<ReductionPass> passes;
  // Remove reduced groups from the last to the first, so the groups before
  // the one being removed keep their sizes in the running result.
  for (int g = static_cast<int>(groups.size()) - 1; g >= 0; --g) {
    if (!groups[g].reduced) continue;
    ReductionPass pass;
    for (int i = 0; i < g; ++i) pass.outer *= groups[i].size;
    pass.reduce = groups[g].size;
    for (size_t i = g + 1; i < groups.size(); ++i) {
      if (!groups[i].reduced) pass.inner *= groups[i].size;
    }
    // Reduced groups before g are still present in `outer`; later ones are
    // gone already, so `inner` counts only kept groups.
    AppendSplit(pass, &passes);
  }
  return passes;
}

}  // namespace cuda_kernels
}  // namespace tfd
