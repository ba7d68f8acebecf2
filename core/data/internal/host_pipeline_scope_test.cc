// The input pipeline computes on the host under a GPU default device or
// scope, and stays on CPU logical devices as before. A fake GPU stands in
// for a real one.
#include "core/data/internal/host_pipeline_scope.h"

#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/data/dataset.h"
#include "core/data/transforms.h"
#include "core/device/cpu/cpu_device.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/placement.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace data {
namespace {

// Where a function of the pipeline would place an op: every call's answer.
class DeviceLog {
 public:
  void Record() {
    absl::StatusOr<Device*> d = CurrentDevice();
    absl::MutexLock lock(&mu_);
    devices_.push_back(d.ok() ? *d : nullptr);
  }
  std::vector<Device*> devices() {
    absl::MutexLock lock(&mu_);
    return devices_;
  }

 private:
  absl::Mutex mu_;
  std::vector<Device*> devices_;
};

// Map (sequential and parallel), Filter and Prefetch over 0..n-1, every
// function logging where its ops would run.
absl::StatusOr<std::vector<Element>> RunPipeline(DeviceLog* log, int parallel_calls) {
  std::vector<int64_t> v(16);
  for (int64_t i = 0; i < 16; ++i) v[i] = i;
  TFD_ASSIGN_OR_RETURN(DatasetPtr ds, FromTensorSlices({test::AsTensor<int64_t>(v, {16})}));
  MapFn add_one = [log](const Element& e) -> absl::StatusOr<Element> {
    log->Record();
    return Element{Tensor::Scalar<int64_t>(e[0].scalar<int64_t>() + 1)};
  };
  Predicate odd = [log](const Element& e) -> absl::StatusOr<bool> {
    log->Record();
    return e[0].scalar<int64_t>() % 2 == 1;
  };
  TFD_ASSIGN_OR_RETURN(ds, Map(ds, add_one, parallel_calls));
  TFD_ASSIGN_OR_RETURN(ds, Filter(ds, odd));
  TFD_ASSIGN_OR_RETURN(ds, Prefetch(ds, 2));
  return Collect(ds);
}

class HostPipelineScopeTest : public ::testing::TestWithParam<int> {
 protected:
  // The suite's default device (a GPU-default run sets one) comes back.
  void SetUp() override { suite_default_ = DefaultDevice().value_or(nullptr); }
  void TearDown() override { SetDefaultDevice(suite_default_); }
  Device* suite_default_ = nullptr;
};

TEST_P(HostPipelineScopeTest, GpuDefaultDeviceLeavesThePipelineOnTheHost) {
  SetDefaultDevice(test::FakeGpu::Get());
  DeviceLog log;
  absl::StatusOr<std::vector<Element>> out = RunPipeline(&log, GetParam());
  ASSERT_TRUE(out.ok()) << out.status();
  ASSERT_EQ(out->size(), 8u);
  for (const Element& e : *out) EXPECT_TRUE(e[0].device()->host_memory());
  ASSERT_EQ(log.devices().size(), 32u);
  for (Device* d : log.devices()) EXPECT_EQ(d, HostDevice());
  // Outside the pipeline the default device still applies.
  EXPECT_EQ(*CurrentDevice(), test::FakeGpu::Get());
}

TEST_P(HostPipelineScopeTest, GpuScopeOfTheConsumerLeavesThePipelineOnTheHost) {
  DeviceScope scope(test::FakeGpu::Get());
  DeviceLog log;
  ASSERT_TRUE(RunPipeline(&log, GetParam()).ok());
  for (Device* d : log.devices()) EXPECT_EQ(d, HostDevice());
}

TEST_P(HostPipelineScopeTest, CpuLogicalDeviceKeepsThePipeline) {
  absl::StatusOr<std::vector<std::unique_ptr<CpuDevice>>> devices = CreateCpuLogicalDevices(2);
  ASSERT_TRUE(devices.ok()) << devices.status();
  Device* second = (*devices)[1].get();
  SetDefaultDevice(second);
  DeviceLog log;
  ASSERT_TRUE(RunPipeline(&log, GetParam()).ok());
  ASSERT_FALSE(log.devices().empty());
  for (Device* d : log.devices()) EXPECT_EQ(d, second);
}

INSTANTIATE_TEST_SUITE_P(SequentialAndParallelMap, HostPipelineScopeTest,
                         ::testing::Values(1, 4));

}  // namespace
}  // namespace data
}  // namespace tfd
