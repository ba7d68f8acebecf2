// Tests of the dispatch path with ops registered here, so the framework is
// tested without any kernel library.
#include "core/framework/execute.h"

#include "core/device/cpu/cpu_device.h"
#include "core/framework/kernel.h"
#include "core/framework/tensor_testutil.h"
#include "core/framework/variable.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

// y = x * scale, with a list variant that sums its inputs first.
TFD_REGISTER_OP("TestScale")
    .Input("x", "T")
    .Output("y", "T")
    .TypeAttr("T", {DT_FLOAT, DT_DOUBLE})
    .Attr("scale", 2.0f)
    .SetShapeFn([](const ShapeContext& c) -> absl::StatusOr<std::vector<TensorShape>> {
      if (c.input_shape(0).rank() > 2) {
        return c.Error("x must be rank <= 2, got shape ", c.input_shape(0).DebugString());
      }
      return std::vector<TensorShape>{c.input_shape(0)};
    });

TFD_REGISTER_OP("TestSumList")
    .InputList("values", "T", "N")
    .Output("sum", "T")
    .TypeAttr("T")
    .SetShapeFn([](const ShapeContext& c) -> absl::StatusOr<std::vector<TensorShape>> {
      for (int i = 1; i < c.num_inputs(); ++i) {
        if (c.input_shape(i) != c.input_shape(0)) return c.Error("shapes differ");
      }
      return std::vector<TensorShape>{c.input_shape(0)};
    });

TFD_REGISTER_OP("TestNoKernel")
    .Input("x", "float32")
    .Output("y", "float32")
    .SetShapeFn([](const ShapeContext& c) -> absl::StatusOr<std::vector<TensorShape>> {
      return std::vector<TensorShape>{c.input_shape(0)};
    });

template <typename T>
absl::Status TestScaleKernel(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(float scale, ctx.GetAttr<float>("scale"));
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  const T* x = ctx.input(0).data<T>();
  for (int64_t i = 0; i < y->NumElements(); ++i) y->data<T>()[i] = x[i] * scale;
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("TestScale", DeviceType::kCPU, DT_FLOAT, TestScaleKernel<float>);
TFD_REGISTER_KERNEL("TestScale", DeviceType::kCPU, DT_DOUBLE, TestScaleKernel<double>);

absl::Status TestSumListKernel(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  for (int64_t i = 0; i < y->NumElements(); ++i) {
    float s = 0;
    for (int k = 0; k < ctx.num_inputs(); ++k) s += ctx.input(k).data<float>()[i];
    y->data<float>()[i] = s;
  }
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("TestSumList", DeviceType::kCPU, DT_FLOAT, TestSumListKernel);

class RecordingObserver : public ExecutionObserver {
 public:
  void OnExecute(const OpCall& call) override {
    ops.push_back(call.op->name);
    attrs.push_back(call.attrs.DebugString());
  }
  void OnVariableRead(const Variable& v, const Tensor&) override { reads.push_back(v.name()); }
  std::vector<std::string> ops, attrs, reads;
};

TEST(ExecuteTest, RunsKernelWithDefaultsAndInferredType) {
  Tensor x = test::AsTensor<float>({1, 2, 3}, {3});
  absl::StatusOr<Tensor> y = Execute1("TestScale", {x});
  ASSERT_TRUE(y.ok()) << y.status();
  test::ExpectTensorEqual(*y, test::AsTensor<float>({2, 4, 6}, {3}));
  EXPECT_NE(y->id(), x.id());

  y = Execute1("TestScale", {test::AsTensor<double>({1}, {1})}, AttrMap().Set("scale", 0.5));
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->dtype(), DT_DOUBLE);
  EXPECT_EQ(test::ToHost(*y).data<double>()[0], 0.5);
}

TEST(ExecuteTest, ListInputsSetTheNumberAttr) {
  Tensor a = test::AsTensor<float>({1, 2}, {2});
  RecordingObserver obs;
  AddObserver(&obs);
  absl::StatusOr<Tensor> s = Execute1("TestSumList", {a, a, a});
  RemoveObserver(&obs);
  ASSERT_TRUE(s.ok()) << s.status();
  test::ExpectTensorEqual(*s, test::AsTensor<float>({3, 6}, {2}));
  ASSERT_EQ(obs.attrs.size(), 1u);
  EXPECT_EQ(obs.attrs[0], "{N=3, T=float32}");
  EXPECT_EQ(Execute1("TestSumList", {a, a}, AttrMap().Set("N", 3)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(ExecuteTest, BadCallsGiveClearErrors) {
  Tensor f = test::AsTensor<float>({1}, {1});
  Tensor i = test::AsTensor<int32_t>({1}, {1});

  absl::Status s = Execute1("NoSuchOp", {f}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("NoSuchOp"), std::string::npos);

  s = Execute1("TestScale", {i}).status();  // int32 not allowed.
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("int32"), std::string::npos) << s;

  s = Execute1("TestScale", {f, f}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("expected 1 inputs, got 2"), std::string::npos) << s;

  s = Execute1("TestScale", {f}, AttrMap().Set("scale", "big")).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'scale' must be float"), std::string::npos) << s;

  s = Execute1("TestScale", {f}, AttrMap().Set("bogus", 1)).status();
  EXPECT_NE(s.message().find("unknown attr 'bogus'"), std::string::npos) << s;

  s = Execute1("TestScale", {Tensor(DT_FLOAT, {1, 1, 1})}).status();
  EXPECT_EQ(s.message(), "TestScale: x must be rank <= 2, got shape [1,1,1]");

  s = Execute1("TestSumList", {f, i}).status();
  EXPECT_NE(s.message().find("has dtype int32 but T is float32"), std::string::npos) << s;

  s = Execute1("TestScale", {Tensor()}).status();
  EXPECT_NE(s.message().find("undefined"), std::string::npos) << s;

  s = Execute1("TestNoKernel", {f}).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(s.message().find("no CPU kernel for op 'TestNoKernel'"), std::string::npos) << s;
}

TEST(ExecuteTest, DeviceScopePlacesOutputs) {
  auto devices = CreateCpuLogicalDevices(2);
  ASSERT_TRUE(devices.ok());
  Device* second = (*devices)[1].get();
  EXPECT_EQ(second->name(), "/device:CPU:1");
  Tensor x = test::AsTensor<float>({1}, {1});
  {
    DeviceScope scope(second);
    absl::StatusOr<Tensor> y = Execute1("TestScale", {x});
    ASSERT_TRUE(y.ok());
    EXPECT_EQ(y->device(), second);
  }
  EXPECT_EQ(Execute1("TestScale", {x})->device(), HostDevice());
}

TEST(ExecuteTest, ObserversSeeOpsAndVariableReads) {
  RecordingObserver obs;
  AddObserver(&obs);
  Variable v("w", test::AsTensor<float>({1, 2}, {2}));
  Tensor snapshot = v.Read();
  ASSERT_TRUE(Execute1("TestScale", {snapshot}).ok());
  RemoveObserver(&obs);
  ASSERT_TRUE(Execute1("TestScale", {snapshot}).ok());  // Not observed.
  EXPECT_EQ(obs.reads, std::vector<std::string>({"w"}));
  EXPECT_EQ(obs.ops, std::vector<std::string>({"TestScale"}));
}

TEST(VariableTest, SnapshotsDoNotChangeUnderWrites) {
  Variable v("v", test::AsTensor<float>({1, 2}, {2}));
  Tensor before = v.Read();
  ASSERT_TRUE(v.Assign(test::AsTensor<float>({5, 6}, {2})).ok());
  test::ExpectTensorEqual(before, test::AsTensor<float>({1, 2}, {2}));
  test::ExpectTensorEqual(v.Peek(), test::AsTensor<float>({5, 6}, {2}));

  // In-place writes copy first while a snapshot shares the buffer.
  Tensor held = v.Read();
  {
    absl::MutexLock lock(v.Mutex());
    absl::StatusOr<Tensor> m = v.MutableValue();
    ASSERT_TRUE(m.ok());
    m->data<float>()[0] = 9;
  }
  EXPECT_EQ(held.data<float>()[0], 5.0f);
  EXPECT_EQ(v.Peek().data<float>()[0], 9.0f);

  absl::Status s = v.Assign(test::AsTensor<float>({1, 2, 3}, {3}));
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("'v'"), std::string::npos) << s;
  EXPECT_FALSE(v.Assign(test::AsTensor<double>({1, 2}, {2})).ok());
}

}  // namespace
}  // namespace tfd
