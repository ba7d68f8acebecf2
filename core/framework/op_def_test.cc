// Op lookup (and its per-thread cache, Note [Op lookup cache] in
// op_def.cc) and the two ways a ShapeContext sees its inputs.
#include "core/framework/op_def.h"

#include <string>

#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

absl::StatusOr<std::vector<TensorShape>> SameShape(const ShapeContext& c) {
  return std::vector<TensorShape>{c.input_shape(0)};
}

// Two names of the same length, so one buffer can spell either.
TFD_REGISTER_OP("LookupTestOpA").Input("x", "float32").Output("y", "float32").SetShapeFn(SameShape);
TFD_REGISTER_OP("LookupTestOpB").Input("x", "float32").Output("y", "float32").SetShapeFn(SameShape);

TEST(LookupOpDefTest, RepeatedLookupsGiveTheSameOp) {
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<const OpDef*> op = LookupOpDef("LookupTestOpA");
    ASSERT_TRUE(op.ok()) << op.status();
    EXPECT_EQ((*op)->name, "LookupTestOpA");
  }
}

// The cache is keyed by the name's address: a buffer rewritten in place
// must still find the op it now names.
TEST(LookupOpDefTest, ABufferReusedForAnotherNameFindsThatOp) {
  std::string name = "LookupTestOpA";
  absl::StatusOr<const OpDef*> a = LookupOpDef(name);
  ASSERT_TRUE(a.ok()) << a.status();
  name.back() = 'B';  // Same address, same length.
  absl::StatusOr<const OpDef*> b = LookupOpDef(name);
  ASSERT_TRUE(b.ok()) << b.status();
  EXPECT_EQ((*b)->name, "LookupTestOpB");
  name.back() = 'C';
  absl::StatusOr<const OpDef*> c = LookupOpDef(name);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(c.status().message().find("no op named 'LookupTestOpC'"), std::string::npos)
      << c.status();
}

TEST(LookupOpDefTest, UnknownNamesStayNotFound) {
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(LookupOpDef("NoSuchOp").status().code(), absl::StatusCode::kNotFound);
  }
  EXPECT_EQ(LookupOpDef("").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(LookupOpDef(absl::string_view()).status().code(), absl::StatusCode::kNotFound);
}

TEST(ShapeContextTest, ViewOfTensorsMatchesTheCopyingForm) {
  const Tensor x = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {2, 3});
  const Tensor axis = test::Int32Vector({1});
  const std::vector<Tensor> inputs = {x, axis};
  const AttrMap attrs = AttrMap().Set("keep_dims", true);
  const std::string name = "SomeOp";

  const ShapeContext view(name, inputs, &attrs);
  const ShapeContext copied(name, {x.shape(), axis.shape()}, {x.dtype(), axis.dtype()},
                            {&inputs[0], nullptr}, &attrs);
  ASSERT_EQ(view.num_inputs(), 2);
  ASSERT_EQ(copied.num_inputs(), 2);
  EXPECT_EQ(view.op_name(), "SomeOp");
  EXPECT_EQ(copied.op_name(), "SomeOp");
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(view.input_shape(i), copied.input_shape(i)) << i;
    EXPECT_EQ(view.input_dtype(i), copied.input_dtype(i)) << i;
  }
  // Host tensors are known by value in the view; the copying form says
  // what it was given.
  EXPECT_EQ(view.input_tensor(0), &inputs[0]);
  EXPECT_EQ(view.input_tensor(1), &inputs[1]);
  EXPECT_EQ(copied.input_tensor(1), nullptr);
  absl::StatusOr<bool> keep = view.GetAttr<bool>("keep_dims");
  ASSERT_TRUE(keep.ok()) << keep.status();
  EXPECT_TRUE(*keep);
  EXPECT_EQ(view.Error("bad").message(), "SomeOp: bad");
}

}  // namespace
}  // namespace tfd
