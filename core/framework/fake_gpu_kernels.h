// Fake GPU kernels: the CPU kernels, registered again for DeviceType::kGPU
// for exactly the (op, dtype) pairs a real GPU build has kernels for, so
// that on a FakeGpu (fake_gpu_testutil.h) soft placement sends an op to the
// "GPU" or back to the host just as it would on a GPU machine. Used by the
// fake-GPU core suite (fake_gpu_suite.cc); test-only.
//
// The pairs come from core/kernels/cuda/gpu_kernels.txt, which a
// --config=cuda test (gpu_kernel_list_test) keeps equal to the CUDA
// build's kernel registry. Its format, one kernel a line:
//
//   # comment
//   MatMul float32
//   Reshape *          <- one kernel for every dtype
//
// Thread safety: call RegisterFakeGpuKernels before ops run (it adds to the
// kernel registry, which is safe, but ops started earlier may have looked
// up the host kernel already).
//
//   TFD_RETURN_IF_ERROR(RegisterFakeGpuKernels(list_text));
#ifndef TFD_CORE_FRAMEWORK_FAKE_GPU_KERNELS_H_
#define TFD_CORE_FRAMEWORK_FAKE_GPU_KERNELS_H_

#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/framework/kernel.h"

namespace tfd {
namespace test {

// Parses the list format above. INVALID_ARGUMENT naming the line for a
// line that is not "op dtype" or names an unknown dtype.
absl::StatusOr<std::vector<KernelRegistration>> ParseGpuKernelList(absl::string_view text);

// The registry's GPU kernels in the list format, sorted: what
// gpu_kernel_list_test compares with the checked-in list.
std::string FormatGpuKernelList(const std::vector<KernelRegistration>& kernels);

// For each listed (op, dtype) without a GPU kernel already, registers a
// GPU kernel that runs the op's CPU kernel (looked up per call, by the
// call's dtype). Pairs with a GPU kernel already (one a test registered,
// or a non-CUDA library's such as TfdReplicaAllReduce) are left alone, and
// so are pairs without a CPU kernel to run (GPU-only ops such as
// TfdMultiTensorApply*, or ops whose CPU library is not linked).
// Returns how many it registered; INVALID_ARGUMENT for a bad list.
absl::StatusOr<int> RegisterFakeGpuKernels(absl::string_view list_text);

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_FAKE_GPU_KERNELS_H_
