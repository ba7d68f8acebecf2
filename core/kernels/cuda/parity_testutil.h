// Test helpers for GPU kernels: random host inputs, running one op on the
// GPU and on the CPU, and comparing the two with a stated tolerance.
//
// Tolerances are relative to a scale: |gpu - cpu| <= rtol * scale
// elementwise, where the scale is the expected tensor's largest magnitude
// unless the test gives a better one. Per-element relative error is
// meaningless for sums that cancel (a matmul entry near zero), and the CPU
// and GPU libraries add in different orders; a matmul test passes the
// largest sum of absolute products, the quantity rounding errors of a dot
// product are proportional to. rtol: 1e-5 for float32, 1e-2 for half and
// bfloat16.
#ifndef TFD_CORE_KERNELS_CUDA_PARITY_TESTUTIL_H_
#define TFD_CORE_KERNELS_CUDA_PARITY_TESTUTIL_H_

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/framework/execute.h"
#include "core/framework/kernel.h"
#include "core/framework/tensor.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace test {

// Uniform values in [lo, hi), rounded to T; the same for a given seed.
template <typename T>
Tensor RandomTensor(const TensorShape& shape, uint32_t seed, float lo = -1, float hi = 1) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  std::vector<T> values(shape.num_elements());
  for (T& v : values) v = static_cast<T>(dist(rng));
  return AsTensor<T>(values, shape);
}

// The float32 and 16-bit tolerances above, by dtype.
inline double ParityTolerance(DataType dtype) {
  switch (dtype) {
    case DT_DOUBLE: return 1e-12;
    case DT_FLOAT: return 1e-5;
    default: return 1e-2;
  }
}

// `actual` within rtol * scale of `expected`, elementwise; scale 0 means
// max|expected|.
inline void ExpectNearScaled(const Tensor& actual, const Tensor& expected, double rtol,
                             double scale = 0) {
  if (scale <= 0) {
    for (double v : ToDoubles(expected)) scale = std::max(scale, std::abs(v));
  }
  ExpectTensorNear(actual, expected, rtol * std::max(scale, 1e-30), 0);
}

// Runs `op` on `inputs` on `gpu` and on the host, checks that the GPU
// output is in GPU memory, and compares the two at the dtype's tolerance
// (scale as in ExpectNearScaled).
inline void ExpectGpuMatchesCpu(const std::string& op, const std::vector<Tensor>& inputs,
                                const AttrMap& attrs, Device* gpu, double scale = 0) {
  absl::StatusOr<Tensor> on_gpu = Execute1(op, inputs, attrs, gpu);
  ASSERT_TRUE(on_gpu.ok()) << op << " on GPU: " << on_gpu.status();
  EXPECT_EQ(on_gpu->device(), gpu);
  absl::StatusOr<Tensor> on_cpu = Execute1(op, inputs, attrs, HostDevice());
  ASSERT_TRUE(on_cpu.ok()) << op << " on CPU: " << on_cpu.status();
  absl::StatusOr<Tensor> back = on_gpu->CopyTo(HostDevice());
  ASSERT_TRUE(back.ok()) << back.status();
  ExpectNearScaled(*back, *on_cpu, ParityTolerance(on_cpu->dtype()), scale);
}

// Like ExpectGpuMatchesCpu, for every output of `op`, each at its own
// dtype's tolerance and scaled by its own largest magnitude.
inline void ExpectGpuOutputsMatchCpu(const std::string& op, const std::vector<Tensor>& inputs,
                                     const AttrMap& attrs, Device* gpu) {
  absl::StatusOr<std::vector<Tensor>> on_gpu = Execute(op, inputs, attrs, gpu);
  ASSERT_TRUE(on_gpu.ok()) << op << " on GPU: " << on_gpu.status();
  absl::StatusOr<std::vector<Tensor>> on_cpu = Execute(op, inputs, attrs, HostDevice());
  ASSERT_TRUE(on_cpu.ok()) << op << " on CPU: " << on_cpu.status();
  ASSERT_EQ(on_gpu->size(), on_cpu->size());
  for (size_t i = 0; i < on_cpu->size(); ++i) {
    SCOPED_TRACE(testing::Message() << op << " output " << i);
    EXPECT_EQ((*on_gpu)[i].device(), gpu);
    absl::StatusOr<Tensor> back = (*on_gpu)[i].CopyTo(HostDevice());
    ASSERT_TRUE(back.ok()) << back.status();
    ExpectNearScaled(*back, (*on_cpu)[i], ParityTolerance((*on_cpu)[i].dtype()));
  }
}

// Every (op, dtype) pair has a GPU kernel. Needs no device.
inline void ExpectGpuKernels(const std::vector<std::string>& ops,
                             const std::vector<DataType>& dtypes) {
  for (const std::string& op : ops) {
    for (DataType t : dtypes) {
      EXPECT_TRUE(LookupKernel(op, DeviceType::kGPU, t).ok()) << op << " " << DataTypeName(t);
    }
  }
}

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_PARITY_TESTUTIL_H_
