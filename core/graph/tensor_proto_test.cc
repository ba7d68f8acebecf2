#include "core/graph/tensor_proto.h"

#include "gtest/gtest.h"

namespace tfd {
namespace graph {
namespace {

TEST(TensorProtoTest, FloatRoundTripUsesTensorContent) {
  Tensor t = *Tensor::FromVector<float>({1.5f, -2.f, 3.f, 4.f, 5.f, 6.f}, {2, 3});
  auto proto = TensorToProto(t);
  ASSERT_TRUE(proto.ok()) << proto.status();
  EXPECT_EQ(proto->dtype(), tensorflow::DT_FLOAT);
  EXPECT_EQ(proto->tensor_content().size(), 24u);
  ASSERT_EQ(proto->tensor_shape().dim_size(), 2);
  EXPECT_EQ(proto->tensor_shape().dim(1).size(), 3);
  auto back = TensorFromProto(*proto);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), TensorShape({2, 3}));
  EXPECT_EQ(back->flat<float>()[0], 1.5f);
  EXPECT_EQ(back->flat<float>()[5], 6.f);
}

TEST(TensorProtoTest, StringsUseStringVal) {
  Tensor t(DT_STRING, {2});
  t.flat<std::string>()[0] = "a";
  t.flat<std::string>()[1] = std::string("b\0c", 3);
  auto proto = TensorToProto(t);
  ASSERT_TRUE(proto.ok());
  ASSERT_EQ(proto->string_val_size(), 2);
  auto back = TensorFromProto(*proto);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->flat<std::string>()[1], std::string("b\0c", 3));
}

TEST(TensorProtoTest, TypedValuesRepeatTheLastOne) {
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_INT32);
  p.mutable_tensor_shape()->add_dim()->set_size(4);
  p.add_int_val(7);
  p.add_int_val(9);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->flat<int32_t>()[0], 7);
  EXPECT_EQ(t->flat<int32_t>()[1], 9);
  EXPECT_EQ(t->flat<int32_t>()[3], 9);
}

TEST(TensorProtoTest, NoValuesMeansZeros) {
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  auto t = TensorFromProto(p);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->flat<float>()[2], 0.f);
}

TEST(TensorProtoTest, BadInputIsAnError) {
  tensorflow::TensorProto p;
  p.set_dtype(tensorflow::DT_FLOAT);
  p.mutable_tensor_shape()->add_dim()->set_size(3);
  p.set_tensor_content(std::string(8, '\0'));  // 12 bytes needed.
  EXPECT_EQ(TensorFromProto(p).status().code(), absl::StatusCode::kInvalidArgument);

  tensorflow::TensorProto unknown_dim;
  unknown_dim.set_dtype(tensorflow::DT_FLOAT);
  unknown_dim.mutable_tensor_shape()->add_dim()->set_size(-1);
  EXPECT_FALSE(TensorFromProto(unknown_dim).ok());

  tensorflow::TensorProto too_many;
  too_many.set_dtype(tensorflow::DT_FLOAT);
  too_many.add_float_val(1);
  too_many.add_float_val(2);  // A scalar holds one.
  EXPECT_FALSE(TensorFromProto(too_many).ok());

  tensorflow::TensorProto huge;
  huge.set_dtype(tensorflow::DT_FLOAT);
  huge.mutable_tensor_shape()->add_dim()->set_size(int64_t{1} << 40);
  huge.add_float_val(1.f);
  EXPECT_NE(TensorFromProto(huge).status().message().find("larger than"), std::string::npos);

  tensorflow::TensorProto resource;
  resource.set_dtype(tensorflow::DT_RESOURCE);
  EXPECT_FALSE(TensorFromProto(resource).ok());
}

TEST(TensorProtoTest, PartialShapes) {
  tensorflow::TensorShapeProto s = ShapeToProto({-1, 28, 28, 1});
  bool unknown_rank = true;
  EXPECT_EQ(PartialDimsFromProto(s, &unknown_rank), (std::vector<int64_t>{-1, 28, 28, 1}));
  EXPECT_FALSE(unknown_rank);
  EXPECT_FALSE(ShapeFromProto(s).ok());
  EXPECT_TRUE(ShapeToProto({}, /*unknown_rank=*/true).unknown_rank());
}

}  // namespace
}  // namespace graph
}  // namespace tfd
