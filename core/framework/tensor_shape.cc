#include "core/framework/tensor_shape.h"

#include <limits>

#include "absl/strings/str_join.h"
#include "core/framework/status.h"

namespace tfd {

absl::StatusOr<TensorShape> TensorShape::FromDims(
    absl::Span<const int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) {
      return InvalidArgument("shape dimensions must be >= 0, got [",
                             absl::StrJoin(dims, ","), "]");
    }
    if (d != 0 && n > std::numeric_limits<int64_t>::max() / d) {
      return InvalidArgument("shape [", absl::StrJoin(dims, ","),
                             "] has more than 2^63 elements");
    }
    n *= d;
  }
  return TensorShape(dims);
}

int64_t TensorShape::num_elements() const {
  int64_t n = 1;
  for (int64_t d : dims_) n *= d;
  return n;
}

std::string TensorShape::DebugString() const {
  return "[" + absl::StrJoin(dims_, ",") + "]";
}

}  // namespace tfd
