// Tests of the device registry: the host, a build without GPUs, and a GPU
// type registered by a fake factory (the CUDA device registers the real
// one; its own test checks that on GPU builds).
#include "core/device/device_registry.h"

#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace {

// A GPU-typed device that holds no memory; only its identity matters here.
class FakeGpu : public Device {
 public:
  explicit FakeGpu(int id) : Device(DeviceType::kGPU, id) {}
  Allocator* allocator() override { return nullptr; }
  absl::Status CopyHostToDevice(const void*, void*, size_t) override { return Unsupported(); }
  absl::Status CopyDeviceToHost(const void*, void*, size_t) override { return Unsupported(); }
  absl::Status CopyDeviceToDevice(const void*, void*, size_t) override { return Unsupported(); }
  absl::Status Memset(void*, int, size_t) override { return Unsupported(); }

 private:
  static absl::Status Unsupported() { return absl::UnimplementedError("fake"); }
};

bool Contains(const absl::Status& s, const std::string& part) {
  return std::string(s.message()).find(part) != std::string::npos;
}

TEST(DeviceRegistryTest, HostIsCpuZero) {
  EXPECT_EQ(DeviceCount(DeviceType::kCPU), 1);
  absl::StatusOr<Device*> d = GetDevice(DeviceType::kCPU, 0);
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(*d, HostDevice());
  for (const char* name : {"/device:CPU:0", "CPU:0", "cpu:0", "/cpu:0",
                           "/job:localhost/replica:0/task:0/device:CPU:0"}) {
    absl::StatusOr<Device*> found = FindDevice(name);
    ASSERT_TRUE(found.ok()) << name << ": " << found.status();
    EXPECT_EQ(*found, HostDevice()) << name;
  }
  absl::StatusOr<Device*> other = GetDevice(DeviceType::kCPU, 1);
  EXPECT_EQ(other.status().code(), absl::StatusCode::kNotFound);
}

TEST(DeviceRegistryTest, BadNamesAreInvalidArguments) {
  for (const char* name : {"", "GPU", "GPU:", "GPU:x", "GPU:-1", "TPU:0", "/device:"}) {
    absl::StatusOr<Device*> d = FindDevice(name);
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument) << name;
    EXPECT_TRUE(Contains(d.status(), name)) << d.status();
  }
  EXPECT_EQ(GetDevice(DeviceType::kGPU, -1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// One test, so the order of "before" and "after" registration is fixed.
TEST(DeviceRegistryTest, GpusAppearOnceAFactoryIsRegistered) {
  absl::StatusOr<Device*> missing = FindDevice("/device:GPU:0");
  // The GPU-default runs of the core suite link a GPU device library into
  // every test (the CUDA device, or the fake GPU on the CPU), which has
  // registered the GPU factory already, GPUs or not.
  if (!Contains(missing.status(), "no GPU support")) {
    GTEST_SKIP() << "a GPU device factory is linked into this build already (GPU:0: "
                 << (missing.ok() ? (*missing)->name() : missing.status().ToString())
                 << "); this test needs a build without one";
  }
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(DeviceCount(DeviceType::kGPU), 0);

  static std::vector<std::unique_ptr<FakeGpu>>* gpus = new std::vector<std::unique_ptr<FakeGpu>>;
  gpus->push_back(std::make_unique<FakeGpu>(0));
  gpus->push_back(std::make_unique<FakeGpu>(1));
  RegisterDeviceFactory(
      DeviceType::kGPU,
      DeviceFactory{[] { return static_cast<int>(gpus->size()); },
                    [](int i) -> absl::StatusOr<Device*> { return (*gpus)[i].get(); }});

  EXPECT_EQ(DeviceCount(DeviceType::kGPU), 2);
  absl::StatusOr<Device*> gpu1 = FindDevice("/job:worker/task:3/device:GPU:1");
  ASSERT_TRUE(gpu1.ok()) << gpu1.status();
  EXPECT_EQ(*gpu1, (*gpus)[1].get());
  EXPECT_EQ((*gpu1)->name(), "/device:GPU:1");
  absl::StatusOr<Device*> gpu2 = GetDevice(DeviceType::kGPU, 2);
  EXPECT_EQ(gpu2.status().code(), absl::StatusCode::kNotFound);
  EXPECT_TRUE(Contains(gpu2.status(), "GPU:2 does not exist: 2 GPUs are visible"))
      << gpu2.status();

  EXPECT_DEATH(RegisterDeviceFactory(DeviceType::kGPU, DeviceFactory{}), "registered twice");
}

}  // namespace
}  // namespace tfd
