// TFD_SetDefaultDevice changes the default device that core/framework's
// placement reads (DefaultDevice()): the host's names clear it, "auto"
// picks GPU:0 exactly when the build and machine have one, a refused
// name leaves the previous default in place, and the call replaces what
// TFD_DEFAULT_DEVICE said.
#include <cstdlib>
#include <string>

#include "core/device/device_registry.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/placement.h"
#include "gtest/gtest.h"
#include "tfd/c_api.h"

namespace tfd {
namespace {

class TfdDeviceTest : public ::testing::Test {
 protected:
  void SetUp() override { status_ = TF_NewStatus(); }
  void TearDown() override {
    SetDefaultDevice(nullptr);
    TF_DeleteStatus(status_);
  }

  // The default device after TFD_SetDefaultDevice(name), which must succeed.
  Device* SetAndRead(const char* name) {
    TFD_SetDefaultDevice(name, status_);
    EXPECT_EQ(TF_GetCode(status_), TF_OK) << (name ? name : "NULL") << ": " << TF_Message(status_);
    absl::StatusOr<Device*> device = DefaultDevice();
    EXPECT_TRUE(device.ok()) << device.status();
    return device.ok() ? *device : nullptr;
  }

  TF_Status* status_ = nullptr;
};

TEST_F(TfdDeviceTest, ReplacesWhatTheEnvironmentSaid) {
  // Read on first use only, and never once a default was set.
  ASSERT_EQ(setenv("TFD_DEFAULT_DEVICE", "/device:GPU:4096", 1), 0);
  EXPECT_EQ(SetAndRead("cpu"), nullptr);
}

TEST_F(TfdDeviceTest, TheHostsNamesClearTheDefault) {
  for (const char* host : {static_cast<const char*>(nullptr), "", "none", "cpu", " CPU ",
                           "/device:CPU:0", "/job:localhost/replica:0/task:0/device:CPU:0"}) {
    SetDefaultDevice(test::FakeGpu::Get());
    EXPECT_EQ(SetAndRead(host), nullptr) << (host ? host : "NULL");
  }
}

TEST_F(TfdDeviceTest, AutoIsGpuZeroWhenThereIsOne) {
  SetDefaultDevice(test::FakeGpu::Get());
  Device* automatic = SetAndRead("auto");
  if (DeviceCount(DeviceType::kGPU) > 0) {
    EXPECT_EQ(automatic, *GetDevice(DeviceType::kGPU, 0));
    EXPECT_EQ(SetAndRead("/device:GPU:0"), automatic);
    EXPECT_EQ(SetAndRead("gpu:0"), automatic);
  } else {
    EXPECT_EQ(automatic, nullptr);
  }
}

TEST_F(TfdDeviceTest, ARefusedNameKeepsThePreviousDefault) {
  const int gpus = DeviceCount(DeviceType::kGPU);
  const std::string missing = "/device:GPU:" + std::to_string(gpus);
  for (const std::string& name : {missing, std::string("gpu0"), std::string("/device:CPU:1")}) {
    SetDefaultDevice(test::FakeGpu::Get());
    TFD_SetDefaultDevice(name.c_str(), status_);
    EXPECT_EQ(TF_GetCode(status_), TF_INVALID_ARGUMENT) << name;
    const std::string message = TF_Message(status_);
    EXPECT_EQ(message.rfind("TFD_SetDefaultDevice(\"" + name + "\"): ", 0), 0u) << message;
    absl::StatusOr<Device*> device = DefaultDevice();
    ASSERT_TRUE(device.ok()) << device.status();
    EXPECT_EQ(*device, test::FakeGpu::Get()) << name;
  }
}

}  // namespace
}  // namespace tfd
