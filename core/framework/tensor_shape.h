// TensorShape: the dimensions of a dense tensor, row-major. Every dimension
// is known and >= 0 (size-0 dimensions are valid). Shapes print as
// TensorFlow prints them: "[64,28,28,1]", "[]" for a scalar.
//
// Shapes of rank up to kInlineRank keep their dimensions inside the object,
// so making, copying and dropping one allocates nothing; every op call makes
// several (Note [Inline dimensions]). Larger ranks live on the heap.
//
//   TensorShape s({64, 28, 28, 1});
//   s.AddDim(3);                        // [64,28,28,1,3]
//   std::vector<int64_t> v = s.dims();  // A copy, when a vector is wanted.
#ifndef TFD_CORE_FRAMEWORK_TENSOR_SHAPE_H_
#define TFD_CORE_FRAMEWORK_TENSOR_SHAPE_H_

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace tfd {

// A read-only view of a shape's dimensions, valid while the shape lives and
// is not changed. It is a Span (iteration, size(), data(), operator[]) that
// also converts to std::vector<int64_t> and compares with one, so code
// written when dims() returned a vector reads the same.
class DimsView : public absl::Span<const int64_t> {
 public:
  explicit DimsView(absl::Span<const int64_t> dims) : absl::Span<const int64_t>(dims) {}

  operator std::vector<int64_t>() const { return std::vector<int64_t>(begin(), end()); }

  friend bool operator==(DimsView a, DimsView b) {
    return absl::Span<const int64_t>(a) == absl::Span<const int64_t>(b);
  }
  friend bool operator!=(DimsView a, DimsView b) { return !(a == b); }
  friend bool operator==(DimsView a, const std::vector<int64_t>& b) {
    return a == DimsView(b);
  }
  friend bool operator!=(DimsView a, const std::vector<int64_t>& b) { return !(a == b); }
  friend bool operator==(const std::vector<int64_t>& a, DimsView b) { return b == a; }
  friend bool operator!=(const std::vector<int64_t>& a, DimsView b) { return !(b == a); }
};

class TensorShape {
 public:
  // Ranks up to this many keep their dimensions inline. Six covers every
  // tensor of the usual models (NHWC activations are rank 4, Conv3D's 5).
  static constexpr int kInlineRank = 6;

  TensorShape() = default;  // A scalar.
  TensorShape(std::initializer_list<int64_t> dims) : dims_(dims) {}
  explicit TensorShape(const std::vector<int64_t>& dims) : dims_(dims.begin(), dims.end()) {}
  explicit TensorShape(absl::Span<const int64_t> dims) : dims_(dims.begin(), dims.end()) {}

  // Validates untrusted dimensions (from a tensor, a file, the C API): each
  // must be >= 0 and the element count must fit in int64.
  static absl::StatusOr<TensorShape> FromDims(absl::Span<const int64_t> dims);

  int rank() const { return static_cast<int>(dims_.size()); }
  int64_t dim(int i) const { return dims_[i]; }
  DimsView dims() const { return DimsView(dims_); }
  int64_t num_elements() const;

  void AddDim(int64_t size) { dims_.push_back(size); }
  void set_dim(int i, int64_t size) { dims_[i] = size; }
  void InsertDim(int i, int64_t size) { dims_.insert(dims_.begin() + i, size); }
  void RemoveDim(int i) { dims_.erase(dims_.begin() + i); }

  bool operator==(const TensorShape& o) const { return dims_ == o.dims_; }
  bool operator!=(const TensorShape& o) const { return dims_ != o.dims_; }

  std::string DebugString() const;

 private:
  // Note [Inline dimensions]: Execute builds the output shapes of every op
  // (the shape function's result, the kernel context's copy, each output
  // tensor's). With the dimensions in a std::vector each was a malloc and
  // a free, a visible share of a small op's host time.
  absl::InlinedVector<int64_t, kInlineRank> dims_;
};

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_TENSOR_SHAPE_H_
