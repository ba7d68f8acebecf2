// Placement: which device runs an op that Execute was not told where to
// run, and the process-wide default device that TensorFlow's eager runtime
// has (GPU:0 when a GPU is visible).
//
// The default device is off unless asked for: with none set, every op with
// no explicit placement runs where it always has (its inputs' device, else
// the host). It is set by SetDefaultDevice() or, before the first op, by
// the environment:
//
//   TFD_DEFAULT_DEVICE=/device:GPU:0   any name FindDevice() parses
//   TFD_DEFAULT_DEVICE=auto            GPU:0 when one is visible, else none
//   TFD_DEFAULT_DEVICE=cpu             none (also: unset, empty, "none")
//
// A name that does not resolve (a GPU in a build without CUDA, a GPU the
// machine lacks, a typo) is an error: every op that would consult the
// default device fails with it, naming the variable, instead of quietly
// running elsewhere.
//
// Note [Placement order]. An op runs on, in order:
//   1. the device passed to Execute;
//   2. the innermost DeviceScope's device;
//   3. the device of its first input outside host memory (a GPU tensor);
//   4. with a default device set: the host, when every input is a small
//      int32/int64 host tensor (<= 64 elements: shapes, axes, counters), as
//      TensorFlow pins such ops; otherwise the default device;
//   5. the device of its first input, else the host.
// 1 and 2 are hard placements: a missing kernel is NOT_FOUND (except for
// strings under a scope: Note [Host-only dtypes]). 3 and 4 are
// soft: when the chosen device has no kernel for (op, device type, dtype)
// the op runs on the host instead, and Execute copies its inputs there.
// TensorFlow does not let inputs pick the device (3); tfd keeps that rule
// so that tensors made on a GPU stay there without a scope.
//
// Note [Host-only dtypes]. Strings (and resource and variant handles) are
// objects, not bytes: a GPU kernel that moves elements "by element size"
// (Identity, Reshape, ... registered for every dtype) would copy host
// pointers. So they stay in host memory, as in TensorFlow, whose GPU
// kernels' type constraints leave them out. The rule: an op that reads a
// host-only dtype (IsHostOnlyType) -- its kernel dtype or any input's --
// runs on the host wherever placement had a choice:
//   - soft placement (3, 4) sends it to the host;
//   - so does a DeviceScope on a device outside host memory, as
//     TensorFlow's soft placement (on by default in eager) runs
//     `with tf.device("/GPU:0"): tf.identity(strings)` on the CPU; other
//     ops under a scope stay hard;
//   - a device passed to Execute stays hard: the op fails with an error
//     naming the dtype.
// Below placement, the same rule holds without exceptions: LookupKernel
// finds no kernel of a device type other than kCPU for a host-only dtype,
// even one registered for it, and Tensor::CopyTo and CopyToAsync refuse to
// copy a string tensor to a device outside host memory (INVALID_ARGUMENT
// naming the dtype), so nothing copies a string's bytes to a device.
// Not covered: an op that makes a string output from no string input (no
// such op exists); its kernel fails to allocate that output on a device.
//
// Thread safety: everything here may be called from any thread; a new
// default device applies to ops started after the call.
//
//   SetDefaultDevice(*FindDevice("/device:GPU:0"));
//   TFD_ASSIGN_OR_RETURN(Tensor y, Execute1("MatMul", {x, w}));  // on GPU:0
#ifndef TFD_CORE_FRAMEWORK_PLACEMENT_H_
#define TFD_CORE_FRAMEWORK_PLACEMENT_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "core/framework/device.h"
#include "core/framework/op_def.h"
#include "core/framework/tensor.h"

namespace tfd {

// The environment variable read by DefaultDevice() on first use.
inline constexpr char kDefaultDeviceEnv[] = "TFD_DEFAULT_DEVICE";

// Makes `device` the default device of the process (null: none), replacing
// whatever TFD_DEFAULT_DEVICE said. The device must outlive its use.
void SetDefaultDevice(Device* device);

// The default device: null when there is none. On first use, reads
// TFD_DEFAULT_DEVICE unless SetDefaultDevice was called before; returns
// that variable's error (INVALID_ARGUMENT or NOT_FOUND, naming it) when
// its value does not resolve.
absl::StatusOr<Device*> DefaultDevice();

// What a TFD_DEFAULT_DEVICE value means: null for none ("", "none", "cpu",
// the host's names), GPU:0 or null for "auto", else FindDevice(value).
// INVALID_ARGUMENT or NOT_FOUND, naming the variable, when it does not
// resolve.
absl::StatusOr<Device*> ResolveDefaultDeviceSetting(absl::string_view value);
// The same for a value that came from elsewhere (the C API's
// TFD_SetDefaultDevice): errors start with `source` instead of
// "TFD_DEFAULT_DEVICE=<value>".
absl::StatusOr<Device*> ResolveDefaultDeviceSetting(absl::string_view value,
                                                    absl::string_view source);

// Where an op with no inputs would run now: the innermost DeviceScope,
// else the default device, else the host. Strategies with no devices of
// their own put variables here, as TensorFlow creates variables on the
// current device.
absl::StatusOr<Device*> CurrentDevice();

// The device that runs `op` (Note [Placement order]): `requested` when not
// null, the DeviceScope's, else the soft choices. `kernel_dtype` is the
// dtype the kernel is looked up by (DT_INVALID for ops without one).
absl::StatusOr<Device*> PlaceOp(const OpDef& op, absl::Span<const Tensor> inputs,
                                DataType kernel_dtype, Device* requested);

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_PLACEMENT_H_
