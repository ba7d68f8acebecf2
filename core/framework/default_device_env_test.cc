// TFD_DEFAULT_DEVICE as read by a process: set here before the first op,
// since the variable is read once.
#include <cstdlib>

#include "core/framework/execute.h"
#include "core/framework/kernel.h"
#include "core/framework/placement.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TFD_REGISTER_OP("EnvTestIdentity")
    .Input("x", "float32")
    .Output("y", "float32")
    .SetShapeFn([](const ShapeContext& c) -> absl::StatusOr<std::vector<TensorShape>> {
      return std::vector<TensorShape>{c.input_shape(0)};
    });

absl::Status Identity(KernelContext& ctx) { return ctx.SetOutput(0, ctx.input(0)); }
TFD_REGISTER_KERNEL("EnvTestIdentity", DeviceType::kCPU, DT_INVALID, Identity);

TEST(DefaultDeviceEnvTest, UnresolvableValueFailsOpsWithoutPlacement) {
  // No process has 100 GPUs.
  ASSERT_EQ(setenv(kDefaultDeviceEnv, "/device:GPU:99", 1), 0);
  Tensor x = test::AsTensor<float>({1}, {1});

  absl::StatusOr<Tensor> y = Execute1("EnvTestIdentity", {x});
  EXPECT_EQ(y.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(y.status().message().find("TFD_DEFAULT_DEVICE=/device:GPU:99"), std::string::npos)
      << y.status();

  // Ops placed explicitly never look at the default device.
  EXPECT_TRUE(Execute1("EnvTestIdentity", {x}, AttrMap(), HostDevice()).ok());
  {
    DeviceScope scope(HostDevice());
    EXPECT_TRUE(Execute1("EnvTestIdentity", {x}).ok());
  }

  // The variable is read once; the C++ API replaces what it said.
  ASSERT_EQ(setenv(kDefaultDeviceEnv, "cpu", 1), 0);
  EXPECT_FALSE(Execute1("EnvTestIdentity", {x}).ok());
  SetDefaultDevice(nullptr);
  absl::StatusOr<Tensor> ok = Execute1("EnvTestIdentity", {x});
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(ok->device(), HostDevice());
}

}  // namespace
}  // namespace tfd
