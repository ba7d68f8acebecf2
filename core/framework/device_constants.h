// Device constants: small host values (a batch's element count, a
// learning rate, the 1 a step counter grows by) kept in a device's memory
// once, so that the ops of a step that read them run without a
// host->device copy each. Execute takes its small host inputs of device
// ops from here; the header is Execute's own (a private header of
// //core/framework:execute). TensorFlow gets the same from its graphs,
// whose Const kernels hold their device tensor from the first run on.
//
// Safe to share because tensors are immutable: kernels never write their
// inputs, and a Variable copies a buffer that anyone else still holds
// before writing it (variable.h).
//
// Thread safety: may be called from any thread.
//
//   TFD_ASSIGN_OR_RETURN(Tensor one, DeviceConstant(Tensor::Scalar<int64_t>(1), gpu));
#ifndef TFD_CORE_FRAMEWORK_DEVICE_CONSTANTS_H_
#define TFD_CORE_FRAMEWORK_DEVICE_CONSTANTS_H_

#include "absl/status/statusor.h"
#include "core/framework/tensor.h"

namespace tfd {

// The largest value kept.
inline constexpr size_t kDeviceConstantMaxBytes = 16;

// `value` (a host tensor of at most kDeviceConstantMaxBytes) in
// `device`'s memory: the copy made by the first call for the same device,
// dtype, shape and bytes, or `value` itself when `device` is host memory.
// The first 4096 values are kept for the process; later ones are copied
// on every call, so a caller passing ever-new values costs what a plain
// copy does. INVALID_ARGUMENT for a larger or non-host `value`; the copy's
// errors.
absl::StatusOr<Tensor> DeviceConstant(const Tensor& value, Device* device);

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_DEVICE_CONSTANTS_H_
