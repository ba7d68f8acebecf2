// Whether libtfd's code carries GPU support is a property of the build:
// --config=cuda links the CUDA device (which registers a GPU factory), the
// GPU kernels and NCCL into the C API; the CPU build links none of them.
// The registry's NOT_FOUND for one GPU past the last tells the two apart
// on any machine, with or without GPUs.
#include <string>

#include "core/device/device_registry.h"
#include "gtest/gtest.h"
#include "tfd/strategy.h"

namespace tfd {
namespace {

TEST(GpuSupportTest, TheBuildDecidesWhetherGpusAreRegistered) {
  const int gpus = DeviceCount(DeviceType::kGPU);
  absl::StatusOr<Device*> past_last = GetDevice(DeviceType::kGPU, gpus);
  ASSERT_EQ(past_last.status().code(), absl::StatusCode::kNotFound) << past_last.status();
  const std::string message(past_last.status().message());
#ifdef TFD_EXPECT_GPU_SUPPORT
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
#else
  EXPECT_EQ(gpus, 0);
  EXPECT_NE(message.find("has no GPU support"), std::string::npos) << message;
#endif
}

// A strategy made through the C API with its defaults loads and runs on
// whatever the machine has: every GPU, else the host.
TEST(GpuSupportTest, DefaultMirroredStrategyUsesEveryGpuElseTheHost) {
  TF_Status* status = TF_NewStatus();
  TFD_Strategy* strategy = TFD_NewStrategy("mirrored", nullptr, status);
  ASSERT_EQ(TF_GetCode(status), TF_OK) << TF_Message(status);
  const int gpus = DeviceCount(DeviceType::kGPU);
  EXPECT_EQ(TFD_StrategyNumReplicas(strategy, status), gpus > 0 ? gpus : 1);
  EXPECT_EQ(TF_GetCode(status), TF_OK) << TF_Message(status);
  TFD_DeleteStrategy(strategy);
  TF_DeleteStatus(status);
}

}  // namespace
}  // namespace tfd
