#include "tools/tfd/train_devices.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/device/device_registry.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cli {
namespace {

TrainFlags Flags(const std::string& devices, const std::string& strategy = "mirrored",
                 int replicas = 1) {
  TrainFlags flags;
  flags.devices = devices;
  flags.strategy = strategy;
  flags.replicas = replicas;
  return flags;
}

TEST(TrainDevicesTest, AutoIsEveryGpuElseTheCpu) {
  for (const char* strategy : {"one_device", "mirrored", "central_storage",
                               "multi_worker_mirrored"}) {
    EXPECT_EQ(*ChooseTrainDevices(Flags("auto", strategy), 0), TrainDeviceKind::kCpu) << strategy;
    EXPECT_EQ(*ChooseTrainDevices(Flags("auto", strategy), 1), TrainDeviceKind::kGpu) << strategy;
    EXPECT_EQ(*ChooseTrainDevices(Flags("auto", strategy), 8), TrainDeviceKind::kGpu) << strategy;
  }
  // Several CPU replicas on a machine without GPUs: as before.
  EXPECT_EQ(*ChooseTrainDevices(Flags("auto", "mirrored", 4), 0), TrainDeviceKind::kCpu);
}

TEST(TrainDevicesTest, AutoAsksWhenReplicasMeetGpus) {
  absl::StatusOr<TrainDeviceKind> kind = ChooseTrainDevices(Flags("auto", "mirrored", 2), 4);
  ASSERT_EQ(kind.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(kind.status().message().find("--devices=cpu"), std::string::npos) << kind.status();
  EXPECT_NE(kind.status().message().find("4 GPUs"), std::string::npos) << kind.status();
}

TEST(TrainDevicesTest, ParameterServerStaysOnTheCpu) {
  EXPECT_EQ(*ChooseTrainDevices(Flags("auto", "parameter_server"), 2), TrainDeviceKind::kCpu);
}

TEST(TrainDevicesTest, CpuIsTheCpuWhateverTheMachine) {
  EXPECT_EQ(*ChooseTrainDevices(Flags("cpu"), 0), TrainDeviceKind::kCpu);
  EXPECT_EQ(*ChooseTrainDevices(Flags("cpu", "mirrored", 3), 8), TrainDeviceKind::kCpu);
}

TEST(TrainDevicesTest, GpuNeedsAGpu) {
  EXPECT_EQ(*ChooseTrainDevices(Flags("gpu"), 2), TrainDeviceKind::kGpu);
  absl::StatusOr<TrainDeviceKind> kind = ChooseTrainDevices(Flags("gpu"), 0);
  ASSERT_EQ(kind.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(kind.status().message().find("no GPU"), std::string::npos) << kind.status();
}

TEST(TrainDevicesTest, RefusesAnUnknownChoice) {
  EXPECT_EQ(ChooseTrainDevices(Flags("tpu"), 0).status().code(),
            absl::StatusCode::kInvalidArgument);
}

// Against this build and machine: GPU:0..n-1 of the registry, or none.
TEST(TrainDevicesTest, TrainGpusListsTheRegistrysGpus) {
  const int gpu_count = DeviceCount(DeviceType::kGPU);
  absl::StatusOr<std::vector<Device*>> gpus = TrainGpus(Flags("auto"));
  ASSERT_TRUE(gpus.ok()) << gpus.status();
  ASSERT_EQ(gpus->size(), static_cast<size_t>(gpu_count));
  for (int i = 0; i < gpu_count; ++i) {
    EXPECT_EQ((*gpus)[i]->name(), "/device:GPU:" + std::to_string(i));
  }
  absl::StatusOr<std::vector<Device*>> cpu = TrainGpus(Flags("cpu"));
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_TRUE(cpu->empty());
  if (gpu_count == 0) {
    EXPECT_EQ(TrainGpus(Flags("gpu")).status().code(), absl::StatusCode::kFailedPrecondition);
  }
}

TEST(TrainDevicesTest, PrintsGpusAndNothingForTheCpu) {
  char* text = nullptr;
  size_t size = 0;
  std::FILE* out = open_memstream(&text, &size);
  ASSERT_NE(out, nullptr);
  PrintTrainDevices({}, out);
  std::fflush(out);
  EXPECT_EQ(size, 0u);
  Device* host = HostDevice();
  PrintTrainDevices({host}, out);
  std::fclose(out);
  EXPECT_EQ(std::string(text, size), "Training on /device:CPU:0\n");
  std::free(text);
}

}  // namespace
}  // namespace cli
}  // namespace tfd
