// FakeGpu: a GPU-typed device over host memory, for testing placement in
// builds without CUDA. Kernels registered for DeviceType::kGPU by a test
// run on it and can read their inputs directly; Execute treats it as any
// device outside host memory, so every host<->device copy goes through it
// and is counted. Test-only.
//
//   FakeGpu* gpu = FakeGpu::Get();
//   SetDefaultDevice(gpu);
//   EXPECT_EQ(Execute1("MyOp", {x})->device(), gpu);
#ifndef TFD_CORE_FRAMEWORK_FAKE_GPU_TESTUTIL_H_
#define TFD_CORE_FRAMEWORK_FAKE_GPU_TESTUTIL_H_

#include <atomic>

#include "core/framework/device.h"

namespace tfd {
namespace test {

class FakeGpu : public Device {
 public:
  // One per process, never deleted (devices outlive their tensors).
  // Named "/device:GPU:9" so that it cannot be taken for a real GPU.
  static FakeGpu* Get();

  Allocator* allocator() override;
  absl::Status CopyHostToDevice(const void* src, void* dst, size_t n) override;
  absl::Status CopyDeviceToHost(const void* src, void* dst, size_t n) override;
  absl::Status CopyDeviceToDevice(const void* src, void* dst, size_t n) override;
  absl::Status Memset(void* dst, int value, size_t n) override;

  // Copies made so far in each direction.
  int copies_to_device() const { return to_device_.load(); }
  int copies_to_host() const { return to_host_.load(); }

 private:
  FakeGpu() : Device(DeviceType::kGPU, 9) {}
  std::atomic<int> to_device_{0};
  std::atomic<int> to_host_{0};
};

}  // namespace test
}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_FAKE_GPU_TESTUTIL_H_
