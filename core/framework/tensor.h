// Tensor: a dense n-dimensional array on a device.
//
// A Tensor is a cheap, copyable handle: copies share the same refcounted
// buffer (and the same id). Views made by Slice (along dimension 0) and
// Reshaped share the buffer too, so splitting a batch between replicas or
// datasets copies nothing. Buffers are freed when the last handle goes.
//
// Every newly made tensor (allocated, viewed, or produced by an op) gets a
// fresh process-unique id(); GradientTape tracks tensors by that id.
//
// DT_STRING tensors hold std::string elements (constructed and destroyed
// with the buffer). All other supported dtypes are plain bytes.
//
// Thread safety: handles may be copied and read from many threads; writing
// a buffer while others read it is the caller's business (ops never write
// their inputs).
//
//   Tensor t(DT_FLOAT, {2, 3});                // on HostDevice()
//   absl::Span<float> v = t.flat<float>();
//   TFD_ASSIGN_OR_RETURN(Tensor row, t.Slice(1, 2));  // [1,3], no copy
#ifndef TFD_CORE_FRAMEWORK_TENSOR_H_
#define TFD_CORE_FRAMEWORK_TENSOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/framework/device.h"
#include "core/framework/device_access.h"
#include "core/framework/tensor_shape.h"
#include "core/framework/types.h"

namespace tfd {

// Owns one block of device memory. Not used directly by most code.
class TensorBuffer {
 public:
  // Memory from `allocator`, returned to it on destruction.
  TensorBuffer(Allocator* allocator, void* data, size_t bytes);
  // Memory owned elsewhere; `release(data, bytes)` is called on destruction.
  TensorBuffer(void* data, size_t bytes,
               std::function<void(void*, size_t)> release);
  ~TensorBuffer();
  TensorBuffer(const TensorBuffer&) = delete;
  TensorBuffer& operator=(const TensorBuffer&) = delete;

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

  // Set for DT_STRING buffers: the number of std::string objects to destroy.
  void set_num_strings(int64_t n) { num_strings_ = n; }

 private:
  void* const data_;
  const size_t bytes_;
  Allocator* const allocator_ = nullptr;
  std::function<void(void*, size_t)> release_;
  int64_t num_strings_ = 0;
};

class Tensor {
 public:
  // An undefined tensor (defined() is false): "no value", e.g. a missing
  // gradient.
  Tensor() = default;

  // A host tensor of uninitialized numbers (strings are empty). Memory
  // exhaustion aborts, as `new` does; use Allocate to get a Status instead.
  Tensor(DataType dtype, const TensorShape& shape);

  // Allocates on `device` (host when null). RESOURCE_EXHAUSTED when the
  // allocator has no memory; INVALID_ARGUMENT for an unsupported dtype.
  static absl::StatusOr<Tensor> Allocate(DataType dtype, const TensorShape& shape,
                                         Device* device = nullptr);

  // A host tensor over memory the caller owns; `release(data, bytes)` runs
  // when the last handle goes. `bytes` must cover the shape.
  static absl::StatusOr<Tensor> Wrap(DataType dtype, const TensorShape& shape,
                                     void* data, size_t bytes,
                                     std::function<void(void*, size_t)> release);

  // A host tensor filled with zeros (false, "" for bools and strings) on
  // `device` (host when null).
  static absl::StatusOr<Tensor> Zeros(DataType dtype, const TensorShape& shape,
                                      Device* device = nullptr);

  template <typename T>
  static Tensor Scalar(T value) {
    Tensor t(DataTypeToEnum<T>::value, TensorShape());
    *t.data<T>() = value;
    return t;
  }

  // A host tensor holding `values` (row-major), which must have
  // shape.num_elements() elements.
  template <typename T>
  static absl::StatusOr<Tensor> FromVector(const std::vector<T>& values,
                                           const TensorShape& shape);

  bool defined() const { return buffer_ != nullptr; }
  DataType dtype() const { return dtype_; }
  const TensorShape& shape() const { return shape_; }
  int rank() const { return shape_.rank(); }
  int64_t dim(int i) const { return shape_.dim(i); }
  int64_t NumElements() const { return shape_.num_elements(); }
  size_t TotalBytes() const { return NumElements() * DataTypeSize(dtype_); }
  Device* device() const { return device_; }
  uint64_t id() const { return id_; }

  // The bytes. Meaningful on the host only for tensors in host memory
  // (device()->host_memory()); copy others to the host first. Under
  // TFD_CHECK_DEVICE_READS, reading a device tensor's bytes outside a
  // kernel on its device aborts (Note [Device reads] in device_access.h).
  void* raw_data() const {
#ifdef TFD_CHECK_DEVICE_READS
    CheckHostReadable(device_, "Tensor::raw_data/data/flat/scalar");
#endif
    return unchecked_raw_data();
  }
  template <typename T>
  T* data() const {
    return reinterpret_cast<T*>(raw_data());
  }
  template <typename T>
  absl::Span<T> flat() const {
    return absl::Span<T>(data<T>(), NumElements());
  }
  // The first element; for scalars.
  template <typename T>
  T scalar() const {
    return *data<T>();
  }

  // Rows [begin, end) along dimension 0, sharing this tensor's buffer.
  absl::StatusOr<Tensor> Slice(int64_t begin, int64_t end) const;
  // The same elements under another shape, sharing the buffer.
  absl::StatusOr<Tensor> Reshaped(const TensorShape& shape) const;
  // A deep copy on `device` (this tensor's device when null).
  // INVALID_ARGUMENT for a string tensor bound for a device outside host
  // memory (IsHostOnlyType).
  absl::StatusOr<Tensor> CopyTo(Device* device = nullptr) const;
  // A copy of this host tensor on `device` made beside the device's
  // computation (Device::CopyHostToDeviceAsync), in memory from
  // device->async_copy_allocator(). Computation on `device` must wait for
  // `*ready` (Device::WaitForFence) before reading the result; null when the
  // copy is done already (host-memory devices, empty tensors, devices
  // without a copy queue). This tensor may be dropped at once.
  // INVALID_ARGUMENT for a tensor outside host memory or a string tensor
  // bound for a device outside host memory.
  absl::StatusOr<Tensor> CopyToAsync(Device* device, std::shared_ptr<DeviceFence>* ready) const;

  bool SharesBufferWith(const Tensor& other) const {
    return buffer_ != nullptr && buffer_ == other.buffer_;
  }
  // True when this handle is the buffer's only owner, so an op may write it
  // in place.
  bool BufferIsUnique() const { return buffer_ != nullptr && buffer_.use_count() == 1; }

  // "Tensor<float32 [2,3]: 1 2 3 4 5 6>", at most `max_entries` values.
  std::string DebugString(int max_entries = 8) const;

 private:
  Tensor(DataType dtype, const TensorShape& shape,
         std::shared_ptr<TensorBuffer> buffer, size_t offset, Device* device);
  // The error of a copy of a host-only dtype to `device`.
  absl::Status RefuseDeviceCopy(const Device* device) const;
  // Allocate, with memory from `allocator` (one of `device`'s).
  static absl::StatusOr<Tensor> AllocateFrom(Allocator* allocator, DataType dtype,
                                             const TensorShape& shape, Device* device);

  // For copies and fills, which hand device pointers to the Device.
  void* unchecked_raw_data() const {
    return static_cast<char*>(buffer_->data()) + offset_;
  }

  DataType dtype_ = DT_INVALID;
  TensorShape shape_;
  std::shared_ptr<TensorBuffer> buffer_;
  size_t offset_ = 0;  // Bytes from the buffer's start (views).
  Device* device_ = nullptr;
  uint64_t id_ = 0;
};

template <typename T>
absl::StatusOr<Tensor> Tensor::FromVector(const std::vector<T>& values,
                                          const TensorShape& shape) {
  if (static_cast<int64_t>(values.size()) != shape.num_elements()) {
    return absl::InvalidArgumentError(
        "Tensor::FromVector: " + std::to_string(values.size()) +
        " values do not fill shape " + shape.DebugString());
  }
  Tensor t(DataTypeToEnum<T>::value, shape);
  T* out = t.data<T>();
  for (size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_TENSOR_H_
