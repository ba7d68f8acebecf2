// Declarations of TensorFlow's stateful random ops: RandomUniform,
// RandomStandardNormal, TruncatedNormal and RandomUniformInt, with
// TensorFlow's inputs, attrs and defaults.
//
// Every op takes its output shape as a 1-D int32/int64 tensor `shape`
// (read on the host) and the seeds as attrs `seed`, `seed2` (default 0:
// both zero means nondeterministic). The ops are stateful: a second call
// with the same attrs continues the first's sequence (see
// guarded_philox_random.h). None is differentiable (core/autodiff/random_grad.cc).
#include <vector>

#include "core/framework/op_def.h"
#include "core/framework/tensor.h"

namespace tfd {
namespace {

// The output shape given by input `index` of `c`, a vector of int32 or
// int64 sizes, each >= 0.
absl::StatusOr<TensorShape> ShapeFromInput(const ShapeContext& c, int index) {
  const TensorShape& s = c.input_shape(index);
  if (s.rank() != 1) {
    return c.Error("shape must be a 1-D vector of sizes, got shape ", s.DebugString());
  }
  const Tensor* value = c.input_tensor(index);
  if (value == nullptr) {
    // tfd shapes are fully known, so the size vector must be too.
    return c.Error("the value of shape must be known (a host tensor or constant)");
  }
  std::vector<int64_t> dims(s.dim(0));
  for (int64_t i = 0; i < s.dim(0); ++i) {
    dims[i] = c.input_dtype(index) == DT_INT32 ? value->data<int32_t>()[i]
                                               : value->data<int64_t>()[i];
  }
  absl::StatusOr<TensorShape> shape = TensorShape::FromDims(dims);
  if (!shape.ok()) return c.Error("bad shape: ", shape.status().message());
  return shape;
}

absl::StatusOr<std::vector<TensorShape>> RandomShape(const ShapeContext& c) {
  TFD_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromInput(c, 0));
  return std::vector<TensorShape>{shape};
}

// shape: [rank] sizes; minval, maxval: scalars of Tout -> output `shape`.
absl::StatusOr<std::vector<TensorShape>> RandomUniformIntShape(const ShapeContext& c) {
  TFD_ASSIGN_OR_RETURN(TensorShape shape, ShapeFromInput(c, 0));
  for (int i : {1, 2}) {
    if (c.input_shape(i).rank() != 0) {
      return c.Error(i == 1 ? "minval" : "maxval", " must be 0-D, got shape ",
                     c.input_shape(i).DebugString());
    }
  }
  // As TensorFlow, an empty output needs no valid range. The kernel checks
  // again for values not known here.
  const Tensor* lo = c.input_tensor(1);
  const Tensor* hi = c.input_tensor(2);
  if (shape.num_elements() > 0 && lo != nullptr && hi != nullptr) {
    const bool is32 = c.input_dtype(1) == DT_INT32;
    const int64_t lo_v = is32 ? lo->scalar<int32_t>() : lo->scalar<int64_t>();
    const int64_t hi_v = is32 ? hi->scalar<int32_t>() : hi->scalar<int64_t>();
    if (!(lo_v < hi_v)) return c.Error("Need minval < maxval: ", lo_v, " >= ", hi_v);
  }
  return std::vector<TensorShape>{shape};
}

const std::vector<DataType> kRealTypes = {DT_HALF, DT_BFLOAT16, DT_FLOAT, DT_DOUBLE};
const std::vector<DataType> kIndexTypes = {DT_INT32, DT_INT64};

}  // namespace

// Uniform in [0, 1).
TFD_REGISTER_OP("RandomUniform")
    .HostMemoryInput("shape", "T")
    .Output("output", "dtype")
    .Attr("seed", 0)
    .Attr("seed2", 0)
    .TypeAttr("dtype", kRealTypes)
    .TypeAttr("T", kIndexTypes)
    .KernelTypeAttr("dtype")
    .Stateful()
    .SetShapeFn(RandomShape);

// Mean 0, standard deviation 1.
TFD_REGISTER_OP("RandomStandardNormal")
    .HostMemoryInput("shape", "T")
    .Output("output", "dtype")
    .Attr("seed", 0)
    .Attr("seed2", 0)
    .TypeAttr("dtype", kRealTypes)
    .TypeAttr("T", kIndexTypes)
    .KernelTypeAttr("dtype")
    .Stateful()
    .SetShapeFn(RandomShape);

// Standard normal conditioned on |x| < 2 (values are redrawn until inside).
TFD_REGISTER_OP("TruncatedNormal")
    .HostMemoryInput("shape", "T")
    .Output("output", "dtype")
    .Attr("seed", 0)
    .Attr("seed2", 0)
    .TypeAttr("dtype", kRealTypes)
    .TypeAttr("T", kIndexTypes)
    .KernelTypeAttr("dtype")
    .Stateful()
    .SetShapeFn(RandomShape);

// Integers uniform in [minval, maxval).
TFD_REGISTER_OP("RandomUniformInt")
    .HostMemoryInput("shape", "T")
    .HostMemoryInput("minval", "Tout")
    .HostMemoryInput("maxval", "Tout")
    .Output("output", "Tout")
    .Attr("seed", 0)
    .Attr("seed2", 0)
    .TypeAttr("Tout", kIndexTypes)
    .TypeAttr("T", kIndexTypes)
    .KernelTypeAttr("Tout")
    .Stateful()
    .SetShapeFn(RandomUniformIntShape);

}  // namespace tfd
