// Kernels: the per-device implementations of ops. A kernel is registered for
// (op name, device type, dtype) and receives a KernelContext holding the
// call's inputs and attrs, already validated by the op's shape function,
// and the output shapes that function computed.
//
//   template <typename T>
//   absl::Status ReluKernel(KernelContext& ctx) {
//     const Tensor& x = ctx.input(0);
//     TFD_ASSIGN_OR_RETURN(Tensor* y, ctx.AllocateOutput(0));
//     ...
//     return absl::OkStatus();
//   }
//   TFD_REGISTER_KERNEL("Relu", DeviceType::kCPU, DT_FLOAT, ReluKernel<float>);
//
// DT_INVALID as the dtype registers a kernel for every dtype (the op then
// says AnyTypeKernel()). Kernel libraries are alwayslink.
#ifndef TFD_CORE_FRAMEWORK_KERNEL_H_
#define TFD_CORE_FRAMEWORK_KERNEL_H_

#include <functional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "core/framework/attr_value.h"
#include "core/framework/device.h"
#include "core/framework/op_def.h"
#include "core/framework/tensor.h"

namespace tfd {

class ThreadPool;

class KernelContext {
 public:
  KernelContext(const OpDef* op, absl::Span<const Tensor> inputs, const AttrMap* attrs,
                Device* device, std::vector<TensorShape> output_shapes,
                absl::Span<const DataType> output_dtypes);

  const std::string& op_name() const { return op_->name; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  const Tensor& input(int i) const { return inputs_[i]; }
  const AttrMap& attrs() const { return *attrs_; }
  template <typename T>
  absl::StatusOr<T> GetAttr(absl::string_view name) const {
    absl::StatusOr<T> v = attrs_->Get<T>(name);
    if (!v.ok()) return InvalidArgument(op_->name, ": ", v.status().message());
    return v;
  }
  Device* device() const { return device_; }
  // The device's pool; for GPUs, the host's (for host-side work).
  ThreadPool* thread_pool() const;

  int num_outputs() const { return static_cast<int>(output_shapes_.size()); }
  const TensorShape& output_shape(int i) const { return output_shapes_[i]; }
  DataType output_dtype(int i) const { return output_dtypes_[i]; }

  // Allocates output i on the device with the inferred shape and dtype.
  absl::StatusOr<Tensor*> AllocateOutput(int i);
  // Sets output i to an existing tensor (a view of an input, for Reshape).
  // Its shape and dtype must be the inferred ones.
  absl::Status SetOutput(int i, Tensor t);

  // INVALID_ARGUMENT prefixed with the op's name.
  template <typename... Args>
  absl::Status Error(const Args&... args) const {
    return InvalidArgument(op_->name, ": ", args...);
  }

  // For Execute: the outputs, all of which must have been produced.
  absl::StatusOr<std::vector<Tensor>> TakeOutputs();

 private:
  const OpDef* op_;
  absl::Span<const Tensor> inputs_;
  const AttrMap* attrs_;
  Device* device_;
  std::vector<TensorShape> output_shapes_;
  // Inline: made on every op call, and ops have few outputs.
  absl::InlinedVector<DataType, 4> output_dtypes_;
  std::vector<Tensor> outputs_;  // Becomes Execute's result.
};

using KernelFn = std::function<absl::Status(KernelContext&)>;

struct KernelRegistrar {
  KernelRegistrar(const char* op, DeviceType device, DataType dtype, KernelFn fn);
};

// The kernel for (op, device, dtype), falling back to one registered for
// every dtype. NOT_FOUND names what is missing and what exists. A device
// type other than kCPU has no kernel for a host-only dtype (IsHostOnlyType:
// strings), even one registered for it or for every dtype.
absl::StatusOr<const KernelFn*> LookupKernel(absl::string_view op, DeviceType device,
                                            DataType dtype);

// Whether any kernel exists for (op, device).
bool HasKernel(absl::string_view op, DeviceType device);

// One registered kernel's key. dtype DT_INVALID: the kernel serves every
// dtype.
struct KernelRegistration {
  std::string op;
  DeviceType device;
  DataType dtype;
};

// Every registered kernel, sorted by (op, device, dtype): what this build
// can run, for tools and tests that compare builds.
std::vector<KernelRegistration> RegisteredKernels();

}  // namespace tfd

#define TFD_REGISTER_KERNEL(op, device, dtype, fn)                               \
  static ::tfd::KernelRegistrar TFD_INTERNAL_CONCAT(tfd_kernel_registrar_, __COUNTER__) \
      [[maybe_unused]](op, device, dtype, fn)

#endif  // TFD_CORE_FRAMEWORK_KERNEL_H_
