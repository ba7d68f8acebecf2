// The CUDA build's GPU kernels as core/kernels/cuda/gpu_kernels.txt lists
// them (one "op dtype" a line; fake_gpu_kernels.h gives the format),
// embedded as a string by the BUILD's genrule, so that builds without CUDA
// can give a fake GPU exactly those (op, dtype) pairs:
//
//   TFD_RETURN_IF_ERROR(RegisterFakeGpuKernels(kGpuKernelList).status());
//
// Test-only. The list is kept equal to the CUDA build's kernel registry by
// //core/kernels/cuda:gpu_kernel_list_test.
#ifndef TFD_CORE_FRAMEWORK_GPU_KERNEL_LIST_H_
#define TFD_CORE_FRAMEWORK_GPU_KERNEL_LIST_H_

namespace tfd {
namespace test {

extern const char kGpuKernelList[];

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_GPU_KERNEL_LIST_H_
