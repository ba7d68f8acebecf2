#include "core/distribute/ps/float_tensor.h"

#include "core/framework/fake_gpu_testutil.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace ps {
namespace {

using ::testing::ElementsAre;

TEST(FloatTensorTest, RoundTripsShapeAndValues) {
  Tensor t = *Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  auto proto = ToProto(t);
  ASSERT_TRUE(proto.ok());
  auto back = FromProto(*proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_THAT(back->shape().dims(), ElementsAre(2, 3));
  EXPECT_THAT(std::vector<float>(back->flat<float>().begin(), back->flat<float>().end()),
              ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST(FloatTensorTest, RowSliceSendsOnlyItsRows) {
  Tensor t = *Tensor::FromVector<float>({1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  auto proto = ToProto(*t.Slice(1, 3));
  ASSERT_TRUE(proto.ok());
  EXPECT_THAT(proto->values(), ElementsAre(3, 4, 5, 6));
}

TEST(FloatTensorTest, DeviceTensorsAreSentFromAHostCopy) {
  test::FakeGpu* gpu = test::FakeGpu::Get();
  Tensor t = *Tensor::FromVector<float>({7, 8}, TensorShape({2}))->CopyTo(gpu);
  const int copies = gpu->copies_to_host();
  auto proto = ToProto(t);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_THAT(proto->values(), ElementsAre(7, 8));
  EXPECT_EQ(gpu->copies_to_host(), copies + 1);
}

TEST(FloatTensorTest, BadInputIsInvalidArgument) {
  EXPECT_EQ(ToProto(Tensor(DT_INT32, TensorShape({2}))).status().code(),
            absl::StatusCode::kInvalidArgument);
  FloatTensor short_values;
  short_values.add_shape(3);
  short_values.add_values(1);
  EXPECT_EQ(FromProto(short_values).status().code(), absl::StatusCode::kInvalidArgument);
  FloatTensor negative;
  negative.add_shape(-1);
  EXPECT_EQ(FromProto(negative).status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ps
}  // namespace tfd
