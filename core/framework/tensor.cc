#include "core/framework/tensor.h"

#include <atomic>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

std::atomic<uint64_t> next_tensor_id{1};

uint64_t NewTensorId() { return next_tensor_id.fetch_add(1, std::memory_order_relaxed); }

bool IsStorableType(DataType dtype) {
  return dtype == DT_STRING || DataTypeSize(dtype) > 0;
}

size_t ElementBytes(DataType dtype) {
  return dtype == DT_STRING ? sizeof(std::string) : DataTypeSize(dtype);
}

}  // namespace

TensorBuffer::TensorBuffer(Allocator* allocator, void* data, size_t bytes)
    : data_(data), bytes_(bytes), allocator_(allocator) {}

TensorBuffer::TensorBuffer(void* data, size_t bytes,
                           std::function<void(void*, size_t)> release)
    : data_(data), bytes_(bytes), release_(std::move(release)) {}

TensorBuffer::~TensorBuffer() {
  auto* strings = static_cast<std::string*>(data_);
  for (int64_t i = 0; i < num_strings_; ++i) strings[i].~basic_string();
  if (allocator_ != nullptr) {
    allocator_->Deallocate(data_, bytes_);
  } else if (release_) {
    release_(data_, bytes_);
  }
}

Tensor::Tensor(DataType dtype, const TensorShape& shape,
               std::shared_ptr<TensorBuffer> buffer, size_t offset, Device* device)
    : dtype_(dtype),
      shape_(shape),
      buffer_(std::move(buffer)),
      offset_(offset),
      device_(device),
      id_(NewTensorId()) {}

Tensor::Tensor(DataType dtype, const TensorShape& shape) {
  absl::StatusOr<Tensor> t = Allocate(dtype, shape, HostDevice());
  if (!t.ok()) {
    // Only reachable on host memory exhaustion or an unstorable dtype, both
    // of which the caller asked for with no way to report: fail loudly.
    std::fprintf(stderr, "tfd::Tensor: %s\n", t.status().ToString().c_str());
    std::abort();
  }
  *this = *std::move(t);
}

absl::StatusOr<Tensor> Tensor::Allocate(DataType dtype, const TensorShape& shape,
                                        Device* device) {
  if (device == nullptr) device = HostDevice();
  return AllocateFrom(device->allocator(), dtype, shape, device);
}

absl::StatusOr<Tensor> Tensor::AllocateFrom(Allocator* allocator, DataType dtype,
                                            const TensorShape& shape, Device* device) {
  if (!IsStorableType(dtype)) {
    return InvalidArgument("cannot allocate a tensor of dtype ", DataTypeName(dtype));
  }
  if (dtype == DT_STRING && !device->host_memory()) {
    return InvalidArgument("string tensors live in host memory, not on ",
                           device->name());
  }
  const size_t bytes = static_cast<size_t>(shape.num_elements()) * ElementBytes(dtype);
  void* data = allocator->Allocate(bytes);
  if (data == nullptr) {
    return ResourceExhausted("out of memory allocating ", bytes, " bytes for a ",
                             DataTypeName(dtype), " tensor of shape ",
                             shape.DebugString(), " on ", device->name());
  }
  auto buffer = std::make_shared<TensorBuffer>(allocator, data, bytes);
  if (dtype == DT_STRING) {
    auto* strings = static_cast<std::string*>(data);
    for (int64_t i = 0; i < shape.num_elements(); ++i) new (&strings[i]) std::string();
    buffer->set_num_strings(shape.num_elements());
  }
  return Tensor(dtype, shape, std::move(buffer), 0, device);
}

absl::StatusOr<Tensor> Tensor::Wrap(DataType dtype, const TensorShape& shape,
                                    void* data, size_t bytes,
                                    std::function<void(void*, size_t)> release) {
  if (DataTypeSize(dtype) == 0) {
    return InvalidArgument("cannot wrap memory as a tensor of dtype ",
                           DataTypeName(dtype));
  }
  const size_t needed = static_cast<size_t>(shape.num_elements()) * DataTypeSize(dtype);
  if (bytes < needed) {
    return InvalidArgument("a ", DataTypeName(dtype), " tensor of shape ",
                           shape.DebugString(), " needs ", needed,
                           " bytes, got ", bytes);
  }
  if (data == nullptr && needed > 0) {
    return InvalidArgument("cannot wrap a null pointer as tensor data");
  }
  auto buffer = std::make_shared<TensorBuffer>(data, bytes, std::move(release));
  return Tensor(dtype, shape, std::move(buffer), 0, HostDevice());
}

absl::StatusOr<Tensor> Tensor::Zeros(DataType dtype, const TensorShape& shape,
                                     Device* device) {
  TFD_ASSIGN_OR_RETURN(Tensor t, Allocate(dtype, shape, device));
  if (dtype != DT_STRING) {
    TFD_RETURN_IF_ERROR(t.device()->Memset(t.unchecked_raw_data(), 0, t.TotalBytes()));
  }
  return t;
}

absl::StatusOr<Tensor> Tensor::Slice(int64_t begin, int64_t end) const {
  if (!defined() || rank() == 0) {
    return InvalidArgument("Slice needs a tensor of rank >= 1, got ",
                           defined() ? shape_.DebugString() : "an undefined tensor");
  }
  if (begin < 0 || end < begin || end > shape_.dim(0)) {
    return InvalidArgument("Slice [", begin, ", ", end, ") is outside dimension 0 of ",
                           shape_.DebugString());
  }
  TensorShape shape = shape_;
  shape.set_dim(0, end - begin);
  const int64_t row_elements = shape_.dim(0) == 0 ? 0 : NumElements() / shape_.dim(0);
  const size_t elem = ElementBytes(dtype_);
  return Tensor(dtype_, shape, buffer_, offset_ + begin * row_elements * elem, device_);
}

absl::StatusOr<Tensor> Tensor::Reshaped(const TensorShape& shape) const {
  if (!defined()) return InvalidArgument("cannot reshape an undefined tensor");
  if (shape.num_elements() != NumElements()) {
    return InvalidArgument("cannot reshape a tensor with ", NumElements(),
                           " elements ", shape_.DebugString(), " to shape ",
                           shape.DebugString(), " (", shape.num_elements(),
                           " elements)");
  }
  return Tensor(dtype_, shape, buffer_, offset_, device_);
}

absl::Status Tensor::RefuseDeviceCopy(const Device* device) const {
  return InvalidArgument("cannot copy a ", DataTypeName(dtype_), " tensor of shape ",
                         shape_.DebugString(), " to ", device->name(), ": ",
                         DataTypeName(dtype_), " tensors stay in host memory");
}

absl::StatusOr<Tensor> Tensor::CopyTo(Device* device) const {
  if (!defined()) return InvalidArgument("cannot copy an undefined tensor");
  if (device == nullptr) device = device_;
  // Their elements are objects: their bytes would be host pointers there.
  if (IsHostOnlyType(dtype_) && !device->host_memory()) return RefuseDeviceCopy(device);
  TFD_ASSIGN_OR_RETURN(Tensor out, Allocate(dtype_, shape_, device));
  if (dtype_ == DT_STRING) {
    for (int64_t i = 0; i < NumElements(); ++i) {
      out.data<std::string>()[i] = data<std::string>()[i];
    }
    return out;
  }
  // Copies touch both memories by design (Note [Device reads]).
  const size_t n = TotalBytes();
  void* const from = unchecked_raw_data();
  void* const to = out.unchecked_raw_data();
  if (device_->host_memory() && device->host_memory()) {
    if (n > 0) std::memcpy(to, from, n);
  } else if (device_->host_memory()) {
    TFD_RETURN_IF_ERROR(device->CopyHostToDevice(from, to, n));
  } else if (device->host_memory()) {
    TFD_RETURN_IF_ERROR(device_->CopyDeviceToHost(from, to, n));
  } else if (device == device_) {
    TFD_RETURN_IF_ERROR(device_->CopyDeviceToDevice(from, to, n));
  } else if (device->CanCopyFromPeer(device_)) {
    // GPU to GPU without the host, ordered on both devices' streams.
    TFD_RETURN_IF_ERROR(device->CopyFromPeer(device_, from, to, n));
  } else {
    // Between two GPUs that cannot reach each other: stage through the host.
    TFD_ASSIGN_OR_RETURN(Tensor host, CopyTo(HostDevice()));
    TFD_RETURN_IF_ERROR(device->CopyHostToDevice(host.unchecked_raw_data(), to, n));
  }
  return out;
}

absl::StatusOr<Tensor> Tensor::CopyToAsync(Device* device,
                                           std::shared_ptr<DeviceFence>* ready) const {
  ready->reset();
  if (!defined()) return InvalidArgument("cannot copy an undefined tensor");
  if (device == nullptr) return InvalidArgument("CopyToAsync: no device given");
  if (!device_->host_memory()) {
    return InvalidArgument("CopyToAsync copies host tensors; this one is on ", device_->name());
  }
  if (device->host_memory()) return CopyTo(device);
  if (IsHostOnlyType(dtype_)) return RefuseDeviceCopy(device);
  TFD_ASSIGN_OR_RETURN(Tensor out, AllocateFrom(device->async_copy_allocator(), dtype_, shape_,
                                                device));
  const size_t n = TotalBytes();
  if (n == 0) return out;
  // `out` is device memory: the copy only hands its address to the device.
  TFD_ASSIGN_OR_RETURN(*ready, device->CopyHostToDeviceAsync(raw_data(), out.unchecked_raw_data(),
                                                             n));
  return out;
}

namespace {

template <typename T>
void AppendValue(const Tensor& t, int64_t i, std::string* out) {
  if constexpr (std::is_same_v<T, half> || std::is_same_v<T, bfloat16>) {
    absl::StrAppend(out, static_cast<float>(t.data<T>()[i]));
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>) {
    absl::StrAppend(out, static_cast<int>(t.data<T>()[i]));
  } else {
    absl::StrAppend(out, t.data<T>()[i]);
  }
}

}  // namespace

std::string Tensor::DebugString(int max_entries) const {
  if (!defined()) return "Tensor<undefined>";
  std::string out = absl::StrCat("Tensor<", DataTypeName(dtype_), " ",
                                 shape_.DebugString());
  if (!device_->host_memory()) return out + " on " + device_->name() + ">";
  out += ":";
  const int64_t n = std::min<int64_t>(NumElements(), max_entries);
  for (int64_t i = 0; i < n; ++i) {
    out += " ";
    switch (dtype_) {
#define TFD_APPEND_CASE(T) \
  case DataTypeToEnum<T>::value: AppendValue<T>(*this, i, &out); break;
      TFD_POD_TYPES(TFD_APPEND_CASE)
      TFD_APPEND_CASE(std::string)
#undef TFD_APPEND_CASE
      default: out += "?";
    }
  }
  if (NumElements() > n) out += " ...";
  return out + ">";
}

}  // namespace tfd
