// Inputs for the GPU benchmarks: uniform random values made on the device
// itself by RandomUniform (the CPU's Philox stream, a fixed seed), so a
// benchmark measures data as PyTorch's reference does (torch.rand) and
// needs no host copy. Zeros would flatter the figures: Hopper's tensor
// cores draw less power, and clock higher, on zeros than on data.
//
// Plain C++ over Execute: built in every build; on the host device it
// runs the CPU kernels (benchmark_inputs_test.cc).
//
//   TFD_ASSIGN_OR_RETURN(Tensor a, RandomUniformOn(gpu, DT_BFLOAT16, {n, n}, 1));
#ifndef TFD_CORE_KERNELS_CUDA_BENCHMARK_INPUTS_H_
#define TFD_CORE_KERNELS_CUDA_BENCHMARK_INPUTS_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "core/framework/device.h"
#include "core/framework/tensor.h"

namespace tfd {

// A `dtype` tensor of `shape` on `device` whose values are uniform in
// [lo, hi): drawn in float32 with RandomUniform(seed, seed + 1), scaled,
// then cast (float, double, half or bfloat16). Errors of Execute (no
// kernel for the device, out of memory); INVALID_ARGUMENT for lo >= hi.
absl::StatusOr<Tensor> RandomUniformOn(Device* device, DataType dtype, const TensorShape& shape,
                                       int64_t seed, float lo = -1.0f, float hi = 1.0f);

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_BENCHMARK_INPUTS_H_
