// Placement with a default device, tested in every build: a fake GPU
// (fake_gpu_testutil.h) stands in for a real one, and ops registered here
// have GPU kernels for some dtypes only.
#include "core/framework/placement.h"

#include <cstring>
#include <string>
#include <vector>

#include "core/device/cpu/cpu_device.h"
#include "core/device/device_registry.h"
#include "core/framework/execute.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/kernel.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FakeGpu;

FakeGpu* Gpu() { return FakeGpu::Get(); }

absl::StatusOr<std::vector<TensorShape>> SameShape(const ShapeContext& c) {
  return std::vector<TensorShape>{c.input_shape(0)};
}

// y = x + 1: CPU kernels for float and double, a GPU kernel for float only.
TFD_REGISTER_OP("PlacementTestAddOne")
    .Input("x", "T")
    .Output("y", "T")
    .TypeAttr("T", {DT_FLOAT, DT_DOUBLE, DT_INT32})
    .SetShapeFn(SameShape);

// y = 2x, on the CPU only.
TFD_REGISTER_OP("PlacementTestCpuOnly")
    .Input("x", "float32")
    .Output("y", "float32")
    .SetShapeFn(SameShape);

// y = x, with a shape-like second input read on the host.
TFD_REGISTER_OP("PlacementTestWithShape")
    .Input("x", "float32")
    .HostMemoryInput("shape", "int32")
    .Output("y", "float32")
    .SetShapeFn(SameShape);

// A data generator from a shape: TensorFlow never pins these to the host.
// The real op is not in this binary (no kernel library is linked).
TFD_REGISTER_OP("StatelessRandomNormal")
    .Input("shape", "T")
    .Output("output", "float32")
    .TypeAttr("T", {DT_INT32})
    .SetShapeFn([](const ShapeContext& c) -> absl::StatusOr<std::vector<TensorShape>> {
      return std::vector<TensorShape>{TensorShape({2})};
    });

// Kernels check that Execute moved their inputs where they belong.
bool OnKernelDevice(const KernelContext& ctx, const Tensor& t) {
  return ctx.device()->host_memory() ? t.device()->host_memory() : t.device() == ctx.device();
}

template <typename T>
absl::Status AddOne(KernelContext& ctx) {
  if (!OnKernelDevice(ctx, ctx.input(0))) return ctx.Error("input not on the device");
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  for (int64_t i = 0; i < y->NumElements(); ++i) {
    y->data<T>()[i] = ctx.input(0).data<T>()[i] + T(1);
  }
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("PlacementTestAddOne", DeviceType::kCPU, DT_FLOAT, AddOne<float>);
TFD_REGISTER_KERNEL("PlacementTestAddOne", DeviceType::kCPU, DT_DOUBLE, AddOne<double>);
TFD_REGISTER_KERNEL("PlacementTestAddOne", DeviceType::kCPU, DT_INT32, AddOne<int32_t>);
TFD_REGISTER_KERNEL("PlacementTestAddOne", DeviceType::kGPU, DT_FLOAT, AddOne<float>);
TFD_REGISTER_KERNEL("PlacementTestAddOne", DeviceType::kGPU, DT_INT32, AddOne<int32_t>);

absl::Status Double(KernelContext& ctx) {
  if (!ctx.input(0).device()->host_memory()) return ctx.Error("input not in host memory");
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  for (int64_t i = 0; i < y->NumElements(); ++i) {
    y->data<float>()[i] = 2 * ctx.input(0).data<float>()[i];
  }
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("PlacementTestCpuOnly", DeviceType::kCPU, DT_INVALID, Double);

absl::Status WithShape(KernelContext& ctx) {
  if (!OnKernelDevice(ctx, ctx.input(0))) return ctx.Error("x not on the device");
  if (!ctx.input(1).device()->host_memory()) return ctx.Error("shape not on the host");
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  std::memcpy(y->raw_data(), ctx.input(0).raw_data(), y->TotalBytes());
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("PlacementTestWithShape", DeviceType::kCPU, DT_INVALID, WithShape);
TFD_REGISTER_KERNEL("PlacementTestWithShape", DeviceType::kGPU, DT_INVALID, WithShape);

absl::Status Normal(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  for (float& v : y->flat<float>()) v = 0.5f;
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("StatelessRandomNormal", DeviceType::kCPU, DT_INT32, Normal);
TFD_REGISTER_KERNEL("StatelessRandomNormal", DeviceType::kGPU, DT_INT32, Normal);

// y = x for every dtype, as the shape ops are. The CPU kernel copies
// elements (strings by value); the GPU kernel moves bytes "by element
// size", as the GPU's any-dtype kernels do, and would be wrong for strings.
TFD_REGISTER_OP("PlacementTestPassThrough")
    .Input("x", "T")
    .Output("y", "T")
    .TypeAttr("T")
    .SetShapeFn(SameShape);

absl::Status PassThroughOnHost(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  if (!x.device()->host_memory()) return ctx.Error("input not in host memory");
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  if (x.dtype() == DT_STRING) {
    for (int64_t i = 0; i < x.NumElements(); ++i) {
      y->data<std::string>()[i] = x.data<std::string>()[i];
    }
    return absl::OkStatus();
  }
  std::memcpy(y->raw_data(), x.raw_data(), y->TotalBytes());
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("PlacementTestPassThrough", DeviceType::kCPU, DT_INVALID,
                    PassThroughOnHost);

absl::Status PassThroughBytes(KernelContext& ctx) {
  if (!OnKernelDevice(ctx, ctx.input(0))) return ctx.Error("input not on the device");
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  std::memcpy(y->raw_data(), ctx.input(0).raw_data(),
              ctx.input(0).NumElements() * DataTypeSize(ctx.input(0).dtype()));
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("PlacementTestPassThrough", DeviceType::kGPU, DT_INVALID,
                    PassThroughBytes);
// Even a kernel registered for strings on the GPU is never chosen.
TFD_REGISTER_KERNEL("PlacementTestPassThrough", DeviceType::kGPU, DT_STRING,
                    PassThroughBytes);

// y = x, with string labels beside it; one kernel serves every dtype, so
// the strings are not the kernel's dtype but an input's.
TFD_REGISTER_OP("PlacementTestLabeled")
    .Input("x", "T")
    .Input("labels", "string")
    .Output("y", "T")
    .TypeAttr("T")
    .AnyTypeKernel()
    .SetShapeFn(SameShape);

absl::Status Labeled(KernelContext& ctx) {
  if (!ctx.input(1).device()->host_memory()) return ctx.Error("labels not in host memory");
  return ctx.SetOutput(0, ctx.input(0));
}
TFD_REGISTER_KERNEL("PlacementTestLabeled", DeviceType::kCPU, DT_INVALID, Labeled);
TFD_REGISTER_KERNEL("PlacementTestLabeled", DeviceType::kGPU, DT_INVALID, Labeled);

// Longer than the small-string buffer, so a byte copy would copy a pointer.
const std::vector<std::string>& Words() {
  static const std::vector<std::string>* const words = new std::vector<std::string>{
      "", "short", "a string well past the small-string optimization's buffer"};
  return *words;
}

// Sets the default device for one test and restores "none" after it.
class PlacementTest : public ::testing::Test {
 protected:
  void SetUp() override { SetDefaultDevice(Gpu()); }
  void TearDown() override { SetDefaultDevice(nullptr); }
};

TEST(PlacementNoDefaultTest, OpsRunWhereTheyAlwaysDid) {
  SetDefaultDevice(nullptr);
  ASSERT_EQ(*DefaultDevice(), nullptr);
  absl::StatusOr<Tensor> y = Execute1("PlacementTestAddOne", {test::AsTensor<float>({1}, {1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), HostDevice());
  EXPECT_EQ(*CurrentDevice(), HostDevice());
}

TEST_F(PlacementTest, OpWithHostInputsRunsOnTheDefaultDevice) {
  const int copies = Gpu()->copies_to_device();
  absl::StatusOr<Tensor> y =
      Execute1("PlacementTestAddOne", {test::AsTensor<float>({1, 2, 3}, {3})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), Gpu());
  EXPECT_EQ(Gpu()->copies_to_device(), copies + 1);  // The host input went over once.
  test::ExpectTensorEqual(*y, test::AsTensor<float>({2, 3, 4}, {3}));

  // Its output feeds the next op without a copy.
  absl::StatusOr<Tensor> z = Execute1("PlacementTestAddOne", {*y});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->device(), Gpu());
  EXPECT_EQ(Gpu()->copies_to_device(), copies + 1);
}

TEST_F(PlacementTest, MissingDeviceKernelFallsBackToTheHost) {
  // No GPU kernel at all: the op runs on the host; a GPU input comes back.
  absl::StatusOr<Tensor> on_gpu =
      Execute1("PlacementTestAddOne", {test::AsTensor<float>({1, 2}, {2})});
  ASSERT_TRUE(on_gpu.ok()) << on_gpu.status();
  const int back = Gpu()->copies_to_host();
  absl::StatusOr<Tensor> y = Execute1("PlacementTestCpuOnly", {*on_gpu});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), HostDevice());
  EXPECT_EQ(Gpu()->copies_to_host(), back + 1);
  test::ExpectTensorEqual(*y, test::AsTensor<float>({4, 6}, {2}));

  // A GPU kernel for float but not for double: the dtype decides.
  absl::StatusOr<Tensor> d =
      Execute1("PlacementTestAddOne", {test::AsTensor<double>({1}, {1})});
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->device(), HostDevice());
}

TEST_F(PlacementTest, ExplicitPlacementWinsAndIsHard) {
  Tensor x = test::AsTensor<float>({1}, {1});
  absl::StatusOr<Tensor> y = Execute1("PlacementTestAddOne", {x}, AttrMap(), HostDevice());
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), HostDevice());
  {
    DeviceScope scope(HostDevice());
    EXPECT_EQ(Execute1("PlacementTestAddOne", {x})->device(), HostDevice());
    EXPECT_EQ(*CurrentDevice(), HostDevice());
  }
  // A scope is a request, not a hint: no kernel there is an error.
  DeviceScope scope(Gpu());
  absl::StatusOr<Tensor> cpu_only = Execute1("PlacementTestCpuOnly", {x});
  EXPECT_EQ(cpu_only.status().code(), absl::StatusCode::kNotFound) << cpu_only.status();
}

TEST_F(PlacementTest, SmallIntegerOpsStayOnTheHost) {
  Tensor small(DT_INT32, {64});
  for (int32_t& v : small.flat<int32_t>()) v = 1;
  absl::StatusOr<Tensor> y = Execute1("PlacementTestAddOne", {small});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), HostDevice());

  // 65 elements is past TensorFlow's bound: the op goes to the device.
  Tensor large(DT_INT32, {65});
  for (int32_t& v : large.flat<int32_t>()) v = 1;
  absl::StatusOr<Tensor> z = Execute1("PlacementTestAddOne", {large});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->device(), Gpu());

  // Generators from a shape are not pinned.
  absl::StatusOr<Tensor> r = Execute1("StatelessRandomNormal", {test::Int32Vector({2})});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->device(), Gpu());
}

TEST_F(PlacementTest, HostMemoryInputsStayOnTheHost) {
  absl::StatusOr<Tensor> y = Execute1("PlacementTestWithShape",
                                      {test::AsTensor<float>({1, 2}, {2}),
                                       test::Int32Vector({2})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), Gpu());
}

TEST_F(PlacementTest, StringOpsRunOnTheHostUnderAGpuDefault) {
  // Note [Host-only dtypes]: the GPU's kernels serve no string, whatever
  // is registered.
  EXPECT_TRUE(LookupKernel("PlacementTestPassThrough", DeviceType::kGPU, DT_FLOAT).ok());
  absl::StatusOr<const KernelFn*> gpu_strings =
      LookupKernel("PlacementTestPassThrough", DeviceType::kGPU, DT_STRING);
  EXPECT_EQ(gpu_strings.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(gpu_strings.status().message().find("string tensors stay in host memory"),
            std::string::npos)
      << gpu_strings.status();
  EXPECT_TRUE(LookupKernel("PlacementTestPassThrough", DeviceType::kCPU, DT_STRING).ok());

  const int copies = Gpu()->copies_to_device();
  absl::StatusOr<Tensor> y = Execute1("PlacementTestPassThrough", {test::StringVector(Words())});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), HostDevice());
  EXPECT_EQ(test::StringsOf(*y), Words());
  EXPECT_EQ(Gpu()->copies_to_device(), copies);

  // The same op on plain bytes still runs on the default device.
  absl::StatusOr<Tensor> f =
      Execute1("PlacementTestPassThrough", {test::AsTensor<float>({1, 2}, {2})});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->device(), Gpu());

  // A string input that is not the kernel's dtype keeps the op on the
  // host too, even beside an input on the GPU.
  absl::StatusOr<Tensor> labeled =
      Execute1("PlacementTestLabeled", {*f, test::StringVector(Words())});
  ASSERT_TRUE(labeled.ok()) << labeled.status();
  EXPECT_EQ(labeled->device(), HostDevice());
  test::ExpectTensorEqual(*labeled, test::AsTensor<float>({1, 2}, {2}));
}

TEST_F(PlacementTest, StringOpsUnderAGpuScopeRunOnTheHost) {
  DeviceScope scope(Gpu());
  absl::StatusOr<Tensor> y = Execute1("PlacementTestPassThrough", {test::StringVector(Words())});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), HostDevice());
  EXPECT_EQ(test::StringsOf(*y), Words());
  // Its output feeds the next string op there too.
  absl::StatusOr<Tensor> z = Execute1("PlacementTestPassThrough", {*y});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(test::StringsOf(*z), Words());
  absl::StatusOr<Tensor> labeled =
      Execute1("PlacementTestLabeled", {test::AsTensor<float>({3}, {1}), *z});
  ASSERT_TRUE(labeled.ok()) << labeled.status();
  EXPECT_EQ(labeled->device(), HostDevice());

  // Other dtypes under the scope stay hard: float runs on the GPU, and an
  // op without a GPU kernel is still NOT_FOUND.
  absl::StatusOr<Tensor> f =
      Execute1("PlacementTestPassThrough", {test::AsTensor<float>({1}, {1})});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->device(), Gpu());
  EXPECT_EQ(Execute1("PlacementTestCpuOnly", {test::AsTensor<float>({1}, {1})}).status().code(),
            absl::StatusCode::kNotFound);
  // A scope on the host changes nothing for strings.
  DeviceScope host(HostDevice());
  EXPECT_EQ(Execute1("PlacementTestPassThrough", {test::StringVector({"x"})})->device(),
            HostDevice());
}

TEST_F(PlacementTest, StringOpExplicitlyOnAGpuIsAnErrorNamingTheDtype) {
  absl::StatusOr<Tensor> y =
      Execute1("PlacementTestPassThrough", {test::StringVector(Words())}, AttrMap(), Gpu());
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kInvalidArgument) << y.status();
  EXPECT_NE(y.status().message().find("string"), std::string::npos) << y.status();
  EXPECT_NE(y.status().message().find(Gpu()->name()), std::string::npos) << y.status();
}

TEST(PlacementNoDefaultTest, DeviceInputsPlaceTheOpSoftly) {
  SetDefaultDevice(nullptr);
  absl::StatusOr<Tensor> x = test::AsTensor<float>({3}, {1}).CopyTo(Gpu());
  ASSERT_TRUE(x.ok()) << x.status();
  // The input's device has a kernel: the op runs there.
  EXPECT_EQ(Execute1("PlacementTestAddOne", {*x})->device(), Gpu());
  // It has none: the host runs the op on a copy, as TensorFlow's soft
  // placement does, instead of failing.
  absl::StatusOr<Tensor> y = Execute1("PlacementTestCpuOnly", {*x});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), HostDevice());
  test::ExpectTensorEqual(*y, test::AsTensor<float>({6}, {1}));
}

TEST(PlacementNoDefaultTest, CpuLogicalDeviceAsTheDefault) {
  absl::StatusOr<std::vector<std::unique_ptr<CpuDevice>>> devices = CreateCpuLogicalDevices(2);
  ASSERT_TRUE(devices.ok()) << devices.status();
  Device* second = (*devices)[1].get();
  SetDefaultDevice(second);
  absl::StatusOr<Tensor> y = Execute1("PlacementTestAddOne", {test::AsTensor<float>({1}, {1})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), second);
  EXPECT_EQ(*CurrentDevice(), second);
  // Small integer ops go to the host, not to the logical device.
  Tensor small = test::Int32Vector({1, 2});
  EXPECT_EQ(Execute1("PlacementTestAddOne", {small})->device(), HostDevice());
  SetDefaultDevice(nullptr);
  EXPECT_EQ(Execute1("PlacementTestAddOne", {test::AsTensor<float>({1}, {1})})->device(),
            HostDevice());
}

TEST(ResolveDefaultDeviceSettingTest, NamesNoneAutoAndErrors) {
  for (const char* none : {"", "none", "cpu", "CPU", " cpu ", "/device:CPU:0", "CPU:0"}) {
    absl::StatusOr<Device*> d = ResolveDefaultDeviceSetting(none);
    ASSERT_TRUE(d.ok()) << none << ": " << d.status();
    EXPECT_EQ(*d, nullptr) << none;
  }
  // "auto": GPU:0 when the binary links a GPU device library and the
  // machine has a GPU (--config=cuda_core_suite on a GPU machine), else none.
  absl::StatusOr<Device*> automatic = ResolveDefaultDeviceSetting("auto");
  ASSERT_TRUE(automatic.ok()) << automatic.status();
  if (DeviceCount(DeviceType::kGPU) > 0) {
    EXPECT_EQ(*automatic, *GetDevice(DeviceType::kGPU, 0));
  } else {
    EXPECT_EQ(*automatic, nullptr);
  }
  // A GPU the process cannot have is an error naming the variable.
  absl::StatusOr<Device*> gpu = ResolveDefaultDeviceSetting("/device:GPU:99");
  EXPECT_EQ(gpu.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(gpu.status().message().find("TFD_DEFAULT_DEVICE=/device:GPU:99"),
            std::string::npos)
      << gpu.status();
  absl::StatusOr<Device*> typo = ResolveDefaultDeviceSetting("gpu0");
  EXPECT_EQ(typo.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ResolveDefaultDeviceSetting("/device:CPU:3").status().code(),
            absl::StatusCode::kNotFound);
  // A value from elsewhere names its source instead of the variable.
  absl::StatusOr<Device*> named = ResolveDefaultDeviceSetting("gpu0", "SetIt(\"gpu0\")");
  EXPECT_EQ(named.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(named.status().message().rfind("SetIt(\"gpu0\"): ", 0), 0u) << named.status();
  EXPECT_EQ(named.status().message().find(kDefaultDeviceEnv), std::string::npos)
      << named.status();
}

}  // namespace
}  // namespace tfd
