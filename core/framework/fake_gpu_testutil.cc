#include "core/framework/fake_gpu_testutil.h"

#include <cstring>

#include "core/device/cpu/cpu_allocator.h"

namespace tfd {
namespace test {

FakeGpu* FakeGpu::Get() {
  static FakeGpu* const gpu = new FakeGpu();
  return gpu;
}

Allocator* FakeGpu::allocator() { return CpuAllocator(); }

absl::Status FakeGpu::CopyHostToDevice(const void* src, void* dst, size_t n) {
  ++to_device_;
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status FakeGpu::CopyDeviceToHost(const void* src, void* dst, size_t n) {
  ++to_host_;
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status FakeGpu::CopyDeviceToDevice(const void* src, void* dst, size_t n) {
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status FakeGpu::Memset(void* dst, int value, size_t n) {
  if (n > 0) std::memset(dst, value, n);
  return absl::OkStatus();
}

}  // namespace test
}  // namespace tfd
