// TensorShape: the dimensions of a dense tensor, row-major. Every dimension
// is known and >= 0 (size-0 dimensions are valid). Shapes print as
// TensorFlow prints them: "[64,28,28,1]", "[]" for a scalar.
#ifndef TFD_CORE_FRAMEWORK_TENSOR_SHAPE_H_
#define TFD_CORE_FRAMEWORK_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace tfd {

class TensorShape {
 public:
  TensorShape() = default;  // A scalar.
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(std::vector<int64_t> dims) : dims_(std::move(dims)) {}

  // Validates untrusted dimensions (from a tensor, a file, the C API): each
  // must be >= 0 and the element count must fit in int64.
  static absl::StatusOr<TensorShape> FromDims(absl::Span<const int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  const std::vector<int64_t>& dims() const { return dims_; }
  int64_t num_elements() const;

  void AddDim(int64_t size) { dims_.push_back(size); }
  void set_dim(int i, int64_t size) { dims_[i] = size; }
  void InsertDim(int i, int64_t size) { dims_.insert(dims_.begin() + i, size); }
  void RemoveDim(int i) { dims_.erase(dims_.begin() + i); }

  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }

  std::string DebugString() const;

 private:
  std::vector<int64_t> dims_;
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_TENSOR_SHAPE_H_
