// The device-read check (Note [Device reads]), compiled into this test
// whatever the build: reading a non-host tensor's bytes aborts, naming its
// device, unless a kernel on that device or a copy is running.
#include "core/framework/device_access.h"

#include "absl/strings/str_cat.h"
#include "core/framework/execute.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/kernel.h"
#include "core/framework/placement.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

#ifndef TFD_CHECK_DEVICE_READS
#error "device_access_test must be compiled with -DTFD_CHECK_DEVICE_READS"
#endif

namespace tfd {
namespace {

using test::FakeGpu;

Tensor OnFakeGpu(const std::vector<float>& values) {
  absl::StatusOr<Tensor> t = test::AsTensor<float>(values, {static_cast<int64_t>(values.size())})
                                 .CopyTo(FakeGpu::Get());
  EXPECT_TRUE(t.ok()) << t.status();
  return *t;
}

TEST(DeviceAccessDeathTest, HostReadOfADeviceTensorAbortsNamingTheDevice) {
  const Tensor t = OnFakeGpu({1, 2});
  EXPECT_DEATH(static_cast<void>(t.data<float>()[0]),
               absl::StrCat("in ", FakeGpu::Get()->name(), " memory"));
  EXPECT_DEATH(static_cast<void>(t.scalar<float>()), "copy the tensor to the host first");
}

TEST(DeviceAccessTest, HostTensorsAndCopiesAreAlwaysReadable) {
  const Tensor t = OnFakeGpu({1, 2});
  absl::StatusOr<Tensor> host = t.CopyTo(HostDevice());  // A copy reads it.
  ASSERT_TRUE(host.ok()) << host.status();
  EXPECT_EQ(host->data<float>()[1], 2.0f);
  absl::StatusOr<Tensor> zeros = Tensor::Zeros(DT_FLOAT, {2}, FakeGpu::Get());
  ASSERT_TRUE(zeros.ok()) << zeros.status();
  EXPECT_EQ(test::ToDoubles(*zeros), (std::vector<double>{0, 0}));
}

TEST(DeviceAccessTest, ScopesAllowTheirDeviceAndNest) {
  const Tensor t = OnFakeGpu({5});
  EXPECT_EQ(DeviceAccessScope::Current(), nullptr);
  {
    DeviceAccessScope kernel(FakeGpu::Get());
    EXPECT_EQ(t.data<float>()[0], 5.0f);
    {
      DeviceAccessScope other(HostDevice());  // A nested host op's scope.
      EXPECT_DEATH(static_cast<void>(t.data<float>()[0]), FakeGpu::Get()->name());
    }
    EXPECT_EQ(t.scalar<float>(), 5.0f);
  }
  {
    DeviceAccessScope copy(DeviceAccessScope::kAnyDevice);
    EXPECT_EQ(t.data<float>()[0], 5.0f);
  }
  EXPECT_EQ(DeviceAccessScope::Current(), nullptr);
}

// A kernel on one GPU may not read another GPU's memory: on real GPUs
// without peer access that is a fault too.
TEST(DeviceAccessDeathTest, AScopeAllowsOnlyItsOwnDevice) {
  ASSERT_NE(FakeGpu::Get(0), FakeGpu::Get(1));
  absl::StatusOr<Tensor> t = test::AsTensor<float>({3}, {1}).CopyTo(FakeGpu::Get(1));
  ASSERT_TRUE(t.ok()) << t.status();
  DeviceAccessScope kernel(FakeGpu::Get(0));
  EXPECT_DEATH(static_cast<void>(t->data<float>()[0]),
               absl::StrCat("in ", FakeGpu::Get(1)->name(), " memory"));
}

// A GPU kernel that records the scope Execute ran it in, and reads its
// input only when that scope allows it.
TFD_REGISTER_OP("DeviceAccessTestNegate")
    .Input("x", "float32")
    .Output("y", "float32")
    .SetShapeFn([](const ShapeContext& c) -> absl::StatusOr<std::vector<TensorShape>> {
      return std::vector<TensorShape>{c.input_shape(0)};
    });

const Device* scope_seen_by_kernel = nullptr;

absl::Status Negate(KernelContext& ctx) {
  scope_seen_by_kernel = DeviceAccessScope::Current();
  if (scope_seen_by_kernel != ctx.device()) return ctx.Error("no device scope");
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  for (int64_t i = 0; i < y->NumElements(); ++i) {
    y->data<float>()[i] = -ctx.input(0).data<float>()[i];
  }
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("DeviceAccessTestNegate", DeviceType::kCPU, DT_INVALID, Negate);
TFD_REGISTER_KERNEL("DeviceAccessTestNegate", DeviceType::kGPU, DT_INVALID, Negate);

TEST(DeviceAccessTest, ExecuteLetsKernelsReadTheirDevicesTensors) {
  // execute.cc opens the scope only when it is compiled with the check,
  // that is under --config=fake_gpu_suite, whose suite makes the FakeGpu
  // the default device.
  absl::StatusOr<Device*> default_device = DefaultDevice();
  if (!default_device.ok() || *default_device != FakeGpu::Get()) {
    GTEST_SKIP() << "Execute opens device scopes only under --config=fake_gpu_suite";
  }
  absl::StatusOr<Tensor> y = Execute1("DeviceAccessTestNegate", {OnFakeGpu({1, -2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(scope_seen_by_kernel, FakeGpu::Get());
  ASSERT_EQ(y->device(), FakeGpu::Get());
  test::ExpectTensorEqual(*y, test::AsTensor<float>({-1, 2}, {2}));
}

}  // namespace
}  // namespace tfd
