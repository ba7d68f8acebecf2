#include "core/kernels/broadcast.h"

#include <algorithm>

#include "core/framework/status.h"

namespace tfd {
namespace {

// Size of `s` at output axis `axis` of a broadcast to `rank` dimensions:
// shapes are right-aligned, missing leading dimensions count as 1.
int64_t AlignedDim(const TensorShape& s, int rank, int axis) {
  const int offset = rank - s.rank();
  return axis < offset ? 1 : s.dim(axis - offset);
}

}  // namespace

absl::StatusOr<TensorShape> BroadcastShapes(const TensorShape& a, const TensorShape& b) {
  const int rank = std::max(a.rank(), b.rank());
  std::vector<int64_t> dims(rank);
  for (int d = 0; d < rank; ++d) {
    const int64_t x = AlignedDim(a, rank, d);
    const int64_t y = AlignedDim(b, rank, d);
    if (x != y && x != 1 && y != 1) {
      return InvalidArgument("Incompatible shapes: ", a.DebugString(), " vs. ",
                             b.DebugString());
    }
    // A 1 broadcasts to the other size, including to 0.
    dims[d] = x == 1 ? y : x;
  }
  return TensorShape(std::move(dims));
}

absl::StatusOr<TensorShape> BroadcastShapes(absl::Span<const TensorShape> shapes) {
  if (shapes.empty()) return TensorShape();
  TensorShape out = shapes[0];
  for (size_t i = 1; i < shapes.size(); ++i) {
    absl::StatusOr<TensorShape> next = BroadcastShapes(out, shapes[i]);
    if (!next.ok()) {
      // Name the input shapes, not the partial result.
      for (size_t j = 0; j < i; ++j) {
        if (!BroadcastShapes(shapes[j], shapes[i]).ok()) {
          return InvalidArgument("Incompatible shapes: ", shapes[j].DebugString(), " vs. ",
                                 shapes[i].DebugString());
        }
      }
      return next.status();
    }
    out = *std::move(next);
  }
  return out;
}

BroadcastPlan MakeBroadcastPlan(absl::Span<const TensorShape> inputs,
                                const TensorShape& output) {
  const int rank = output.rank();
  const size_t n = inputs.size();
  // Row-major strides of every input over the output's axes, 0 where the
  // input has size 1 (broadcast).
  absl::InlinedVector<BroadcastDims, 3> full(n, BroadcastDims(rank, 0));
  for (size_t k = 0; k < n; ++k) {
    int64_t stride = 1;
    for (int d = rank - 1; d >= 0; --d) {
      const int64_t size = AlignedDim(inputs[k], rank, d);
      full[k][d] = size == 1 ? 0 : stride;
      stride *= size;
    }
  }
  BroadcastPlan plan;
  plan.strides.resize(n);
  for (int d = 0; d < rank; ++d) {
    const int64_t size = output.dim(d);
    if (size == 1) continue;  // Contributes nothing to any offset.
    bool merge = !plan.dims.empty();
    // Axis d merges into the previous kept axis p when, for every input,
    // stride_p == stride_d * size_d (both spanned) or both strides are 0.
    for (size_t k = 0; k < n && merge; ++k) {
      const int64_t prev = plan.strides[k].back();
      const int64_t cur = full[k][d];
      merge = (prev == 0 && cur == 0) || (cur != 0 && prev == cur * size);
    }
    if (merge) {
      plan.dims.back() *= size;
      for (size_t k = 0; k < n; ++k) plan.strides[k].back() = full[k][d];
    } else {
      plan.dims.push_back(size);
      for (size_t k = 0; k < n; ++k) plan.strides[k].push_back(full[k][d]);
    }
  }
  return plan;
}

absl::StatusOr<GradientReductionAxes> BroadcastGradientAxes(const TensorShape& s0,
                                                            const TensorShape& s1) {
  TFD_ASSIGN_OR_RETURN(TensorShape out, BroadcastShapes(s0, s1));
  const int rank = out.rank();
  GradientReductionAxes axes;
  for (int d = 0; d < rank; ++d) {
    const int64_t x = AlignedDim(s0, rank, d);
    const int64_t y = AlignedDim(s1, rank, d);
    if (x == 1 && y == 1) {
      // TensorFlow lists all-ones axes for both inputs.
      axes.r0.push_back(d);
      axes.r1.push_back(d);
    } else if (x == 1) {
      axes.r0.push_back(d);
    } else if (y == 1) {
      axes.r1.push_back(d);
    }
  }
  return axes;
}

std::vector<int64_t> BroadcastReductionAxes(const TensorShape& input,
                                            const TensorShape& output) {
  std::vector<int64_t> axes;
  const int rank = output.rank();
  for (int d = 0; d < rank; ++d) {
    if (AlignedDim(input, rank, d) == 1 && output.dim(d) != 1) axes.push_back(d);
  }
  return axes;
}

}  // namespace tfd
