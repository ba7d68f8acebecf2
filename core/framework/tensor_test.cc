#include "core/framework/tensor.h"

#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(TensorShapeTest, CountsAndPrints) {
  TensorShape s({2, 3, 4});
  EXPECT_EQ(s.num_elements(), 24);
  EXPECT_EQ(s.DebugString(), "[2,3,4]");
  EXPECT_EQ(TensorShape().num_elements(), 1);
  EXPECT_EQ(TensorShape({5, 0}).num_elements(), 0);
  EXPECT_FALSE(TensorShape::FromDims({2, -1}).ok());
  EXPECT_FALSE(TensorShape::FromDims({1LL << 40, 1LL << 40}).ok());
}

TEST(TensorTest, AllocatesAlignedHostMemory) {
  Tensor t(DT_FLOAT, {3, 5});
  EXPECT_TRUE(t.defined());
  EXPECT_EQ(t.TotalBytes(), 60u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(t.raw_data()) % kTensorAlignment, 0u);
  EXPECT_EQ(t.device(), HostDevice());
  EXPECT_FALSE(Tensor().defined());
}

TEST(TensorTest, CopiesShareBufferAndId) {
  Tensor a(DT_INT32, {4});
  Tensor b = a;
  EXPECT_TRUE(a.SharesBufferWith(b));
  EXPECT_EQ(a.id(), b.id());
  EXPECT_FALSE(a.BufferIsUnique());
}

TEST(TensorTest, SliceIsAViewAlongDimZero) {
  Tensor t = test::AsTensor<float>({0, 1, 2, 3, 4, 5}, {3, 2});
  absl::StatusOr<Tensor> rows = t.Slice(1, 3);
  ASSERT_TRUE(rows.ok()) << rows.status();
  EXPECT_EQ(rows->shape(), TensorShape({2, 2}));
  EXPECT_TRUE(rows->SharesBufferWith(t));
  EXPECT_NE(rows->id(), t.id());
  EXPECT_EQ(rows->data<float>()[0], 2.0f);
  rows->data<float>()[0] = 42.0f;  // Writes through to the parent.
  EXPECT_EQ(t.data<float>()[2], 42.0f);
  EXPECT_EQ(t.Slice(3, 3)->NumElements(), 0);
  EXPECT_EQ(t.Slice(2, 4).status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Scalar<float>(1).Slice(0, 1).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorTest, ReshapeKeepsElements) {
  Tensor t = test::AsTensor<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3});
  absl::StatusOr<Tensor> r = t.Reshaped({3, 2});
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->SharesBufferWith(t));
  absl::StatusOr<Tensor> bad = t.Reshaped({4});
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("[2,3]"), std::string::npos);
}

TEST(TensorTest, CopyToMakesAnIndependentBuffer) {
  Tensor t = test::AsTensor<double>({1.5, 2.5}, {2});
  absl::StatusOr<Tensor> c = t.CopyTo();
  ASSERT_TRUE(c.ok());
  EXPECT_FALSE(c->SharesBufferWith(t));
  test::ExpectTensorEqual(*c, t);
}

TEST(TensorTest, StringTensorsConstructAndCopy) {
  Tensor t(DT_STRING, {2});
  t.data<std::string>()[0] = "hello";
  t.data<std::string>()[1] = std::string(1000, 'x');
  absl::StatusOr<Tensor> c = t.CopyTo();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->data<std::string>()[1].size(), 1000u);
  EXPECT_EQ(t.DebugString(), "Tensor<string [2]: hello " + std::string(1000, 'x') + ">");
}

TEST(TensorTest, ZerosAndFromVector) {
  absl::StatusOr<Tensor> z = Tensor::Zeros(DT_HALF, {3});
  ASSERT_TRUE(z.ok());
  EXPECT_EQ(test::ToDoubles(*z), std::vector<double>({0, 0, 0}));
  EXPECT_EQ(Tensor::FromVector<float>({1, 2, 3}, {2, 2}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Tensor::Allocate(DT_RESOURCE, {1}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(TensorTest, WrapCallsReleaseOnce) {
  static int released = 0;
  float* data = new float[4]{1, 2, 3, 4};
  {
    absl::StatusOr<Tensor> t = Tensor::Wrap(DT_FLOAT, {2, 2}, data, 16, [](void* p, size_t) {
      delete[] static_cast<float*>(p);
      ++released;
    });
    ASSERT_TRUE(t.ok());
    Tensor copy = *t;
    EXPECT_EQ(copy.data<float>()[3], 4.0f);
  }
  EXPECT_EQ(released, 1);
  EXPECT_FALSE(Tensor::Wrap(DT_FLOAT, {4}, nullptr, 16, nullptr).ok());
  float small[2];
  EXPECT_FALSE(Tensor::Wrap(DT_FLOAT, {4}, small, 8, nullptr).ok());
}

}  // namespace
}  // namespace tfd
