// The fake-GPU core suite (--config=fake_gpu_suite, docs/GPU.md): linked
// into every tfd_cc_test under that config, it makes the test run as it
// would on a GPU machine with TFD_DEFAULT_DEVICE=/device:GPU:0:
//   - the real GPU build's (op, dtype) kernels exist for the FakeGpu, each
//     running the CPU kernel (fake_gpu_kernels.h), so soft placement falls
//     back to the host exactly where a GPU would;
//   - the FakeGpu is the default device before the first test starts, and
//     the device registry's only GPU, GPU:0 (so named under this config),
//     so that code that counts, lists or finds GPUs (strategies with no
//     devices given, TFD_DEFAULT_DEVICE=auto or /device:GPU:0) finds one
//     GPU, as on a one-GPU machine;
//   - the build defines TFD_CHECK_DEVICE_READS, so host code reading a
//     FakeGpu tensor's bytes outside a kernel or copy aborts, naming the
//     device (Note [Device reads] in device_access.h).
// Not a real GPU: it is host memory, so it cannot catch races with a
// stream or numerical differences of the GPU kernels.
#include <cstdio>
#include <cstdlib>

#include "core/device/device_registry.h"
#include "core/framework/fake_gpu_kernels.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/gpu_kernel_list.h"
#include "core/framework/placement.h"
#include "gtest/gtest.h"

namespace tfd {
namespace test {
namespace {

class FakeGpuSuiteEnvironment : public ::testing::Environment {
 public:
  // Kernels are registered here, after every static registration of the
  // binary (a test's own GPU kernels among them), not in a static
  // initializer whose order against theirs is unspecified.
  void SetUp() override {
    absl::StatusOr<int> registered = RegisterFakeGpuKernels(kGpuKernelList);
    if (!registered.ok()) {
      std::fprintf(stderr, "fake GPU suite: %s\n",
                   std::string(registered.status().message()).c_str());
      std::abort();
    }
    // Once per process: SetUp runs again for each --gtest_repeat.
    static const bool factory_registered [[maybe_unused]] = [] {
      RegisterDeviceFactory(
          DeviceType::kGPU,
          DeviceFactory{[] { return 1; },
                        [](int) -> absl::StatusOr<Device*> { return FakeGpu::Get(); }});
      return true;
    }();
    SetDefaultDevice(FakeGpu::Get());
    std::fprintf(stderr,
                 "fake GPU suite: %d GPU kernels registered; default device and GPU:0 of the "
                 "device registry %s\n",
                 *registered, FakeGpu::Get()->name().c_str());
  }
};

[[maybe_unused]] ::testing::Environment* const environment =
    ::testing::AddGlobalTestEnvironment(new FakeGpuSuiteEnvironment());

}  // namespace
}  // namespace test
}  // namespace tfd
