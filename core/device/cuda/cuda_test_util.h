// Test helpers for CUDA builds: skip a test, with the reason, on a machine
// that has no GPU (CI compiles and links every GPU test, and runs them
// where a device exists; see tools/bazel/cuda.bzl and docs/GPU.md).
#ifndef TFD_CORE_DEVICE_CUDA_CUDA_TEST_UTIL_H_
#define TFD_CORE_DEVICE_CUDA_CUDA_TEST_UTIL_H_

#include "core/device/cuda/cuda_device.h"
#include "gtest/gtest.h"

// In a TEST body or SetUp(): ends the test as skipped when no GPU is
// visible. Expands to a statement that may `return`.
#define TFD_SKIP_WITHOUT_CUDA_DEVICE()                          \
  do {                                                          \
    if (::tfd::CudaDevice::DeviceCount() == 0) {                \
      GTEST_SKIP() << "no CUDA device";                         \
    }                                                           \
  } while (0)

namespace tfd {
namespace test {

// A fixture whose tests run on GPU:0 (gpu_) and skip, saying so, on a
// machine without one.
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TFD_SKIP_WITHOUT_CUDA_DEVICE();
    absl::StatusOr<CudaDevice*> d = CudaDevice::Get(0);
    ASSERT_TRUE(d.ok()) << d.status();
    gpu_ = *d;
  }

  CudaDevice* gpu_ = nullptr;
};

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_DEVICE_CUDA_CUDA_TEST_UTIL_H_
