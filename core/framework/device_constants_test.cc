#include "core/framework/device_constants.h"

#include <string>

#include "absl/base/casts.h"
#include "core/framework/device.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

Tensor OnGpu(const Tensor& value) {
  absl::StatusOr<Tensor> t = DeviceConstant(value, test::FakeGpu::Get());
  EXPECT_TRUE(t.ok()) << t.status();
  return t.ok() ? *t : Tensor();
}

TEST(DeviceConstantTest, AValueIsCopiedToADeviceOnce) {
  const Tensor first = OnGpu(Tensor::Scalar<float>(0.125f));
  const Tensor again = OnGpu(Tensor::Scalar<float>(0.125f));
  EXPECT_EQ(first.device(), test::FakeGpu::Get());
  EXPECT_TRUE(first.SharesBufferWith(again));
  EXPECT_EQ(test::ToHost(again).scalar<float>(), 0.125f);
}

TEST(DeviceConstantTest, ValueDtypeAndShapeEachMakeANewConstant) {
  const Tensor base = OnGpu(Tensor::Scalar<int32_t>(7));
  EXPECT_FALSE(base.SharesBufferWith(OnGpu(Tensor::Scalar<int32_t>(8))));
  // The same four bytes as another dtype, and as a [1] vector.
  EXPECT_FALSE(base.SharesBufferWith(OnGpu(Tensor::Scalar<float>(absl::bit_cast<float>(7)))));
  const Tensor vector = OnGpu(test::AsTensor<int32_t>({7}, TensorShape({1})));
  EXPECT_FALSE(base.SharesBufferWith(vector));
  EXPECT_EQ(vector.shape(), TensorShape({1}));
  EXPECT_EQ(test::ToHost(vector).data<int32_t>()[0], 7);
}

TEST(DeviceConstantTest, HostMemoryGetsTheValueItself) {
  const Tensor value = Tensor::Scalar<int64_t>(1);
  absl::StatusOr<Tensor> t = DeviceConstant(value, HostDevice());
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_TRUE(t->SharesBufferWith(value));
}

TEST(DeviceConstantTest, LargeOrDeviceValuesAreRefused) {
  const Tensor large = test::AsTensor<float>({1, 2, 3, 4, 5}, TensorShape({5}));
  absl::StatusOr<Tensor> t = DeviceConstant(large, test::FakeGpu::Get());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(t.status().message().find("at most 16 bytes"), std::string::npos) << t.status();
  t = DeviceConstant(OnGpu(Tensor::Scalar<float>(2.0f)), test::FakeGpu::Get());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace tfd
