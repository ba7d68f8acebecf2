#include "core/device/cpu/cpu_device.h"

#include <sched.h>

#include <cstring>

#include "core/device/cpu/cpu_allocator.h"
#include "core/framework/status.h"

namespace tfd {

CpuDevice::CpuDevice(int id, int num_threads, std::vector<int> cpus)
    : Device(DeviceType::kCPU, id), pool_(num_threads, std::move(cpus)) {}

Allocator* CpuDevice::allocator() { return CpuAllocator(); }

absl::Status CpuDevice::CopyHostToDevice(const void* src, void* dst, size_t n) {
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status CpuDevice::CopyDeviceToHost(const void* src, void* dst, size_t n) {
  if (n > 0) std::memcpy(dst, src, n);
  return absl::OkStatus();
}

absl::Status CpuDevice::CopyDeviceToDevice(const void* src, void* dst, size_t n) {
  if (n > 0) std::memmove(dst, src, n);
  return absl::OkStatus();
}

absl::Status CpuDevice::Memset(void* dst, int value, size_t n) {
  if (n > 0) std::memset(dst, value, n);
  return absl::OkStatus();
}

Device* HostDevice() {
  static Device* const device = new CpuDevice(0, NumAvailableCpus());
  return device;
}

absl::StatusOr<std::vector<std::unique_ptr<CpuDevice>>> CreateCpuLogicalDevices(
    int n, int threads_per_device) {
  if (n < 1) {
    return InvalidArgument("CreateCpuLogicalDevices: need at least 1 device, got ", n);
  }
  std::vector<int> cpus;
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c) {
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
    }
  }
  if (cpus.empty()) cpus.push_back(0);
  const int total = static_cast<int>(cpus.size());
  std::vector<std::unique_ptr<CpuDevice>> devices;
  for (int i = 0; i < n; ++i) {
    int threads = threads_per_device > 0 ? threads_per_device : std::max(1, total / n);
    std::vector<int> share;
    if (total >= n) {
      // Contiguous, disjoint shares; the last device takes the remainder.
      const int begin = i * (total / n);
      const int end = (i == n - 1) ? total : begin + total / n;
      share.assign(cpus.begin() + begin, cpus.begin() + end);
      if (threads_per_device <= 0) threads = end - begin;
    } else {
      share.push_back(cpus[i % total]);
    }
    devices.push_back(std::make_unique<CpuDevice>(i, threads, share));
  }
  return devices;
}

}  // namespace tfd
