// The fake GPU kernels: the list parses, the listed pairs (and only they)
// get GPU kernels that run the CPU kernel, and soft placement then treats
// the FakeGpu as it would a GPU with that list.
#include "core/framework/fake_gpu_kernels.h"

#include "core/framework/execute.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/placement.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FakeGpu;

// y = 3x, with CPU kernels for float and int32 and a GPU kernel (in the
// list below) for float only.
TFD_REGISTER_OP("FakeGpuKernelsTestTriple")
    .Input("x", "T")
    .Output("y", "T")
    .TypeAttr("T", {DT_FLOAT, DT_INT32})
    .SetShapeFn([](const ShapeContext& c) -> absl::StatusOr<std::vector<TensorShape>> {
      return std::vector<TensorShape>{c.input_shape(0)};
    });

template <typename T>
absl::Status Triple(KernelContext& ctx) {
  TFD_ASSIGN_OR_RETURN(Tensor * y, ctx.AllocateOutput(0));
  for (int64_t i = 0; i < y->NumElements(); ++i) {
    y->data<T>()[i] = ctx.input(0).data<T>()[i] * T(3);
  }
  return absl::OkStatus();
}
TFD_REGISTER_KERNEL("FakeGpuKernelsTestTriple", DeviceType::kCPU, DT_FLOAT, Triple<float>);
TFD_REGISTER_KERNEL("FakeGpuKernelsTestTriple", DeviceType::kCPU, DT_INT32, Triple<int32_t>);

TFD_REGISTER_KERNEL("FakeGpuKernelsTestAny", DeviceType::kCPU, DT_INVALID, Triple<float>);

constexpr char kList[] =
    "# a comment, then a blank line\n"
    "\n"
    "FakeGpuKernelsTestTriple float32\n"
    "FakeGpuKernelsTestAny *\n"
    "FakeGpuKernelsTestGpuOnly float32\n";

TEST(FakeGpuKernelsTest, ParsesTheListFormat) {
  absl::StatusOr<std::vector<KernelRegistration>> parsed = test::ParseGpuKernelList(kList);
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  ASSERT_EQ(parsed->size(), 3u);
  EXPECT_EQ((*parsed)[0].op, "FakeGpuKernelsTestTriple");
  EXPECT_EQ((*parsed)[0].device, DeviceType::kGPU);
  EXPECT_EQ((*parsed)[0].dtype, DT_FLOAT);
  EXPECT_EQ((*parsed)[1].dtype, DT_INVALID);
  EXPECT_EQ(test::FormatGpuKernelList(*parsed),
            "FakeGpuKernelsTestAny *\nFakeGpuKernelsTestGpuOnly float32\n"
            "FakeGpuKernelsTestTriple float32\n");
}

TEST(FakeGpuKernelsTest, BadLinesAreErrorsNamingTheLine) {
  absl::StatusOr<std::vector<KernelRegistration>> one_field =
      test::ParseGpuKernelList("# x\nMatMul\n");
  ASSERT_FALSE(one_field.ok());
  EXPECT_NE(one_field.status().message().find("line 2"), std::string::npos)
      << one_field.status();
  absl::StatusOr<std::vector<KernelRegistration>> bad_dtype =
      test::ParseGpuKernelList("MatMul float99\n");
  ASSERT_FALSE(bad_dtype.ok());
  EXPECT_NE(bad_dtype.status().message().find("float99"), std::string::npos);
  EXPECT_FALSE(test::RegisterFakeGpuKernels("MatMul float99\n").ok());
}

TEST(FakeGpuKernelsTest, ListedPairsRunTheCpuKernelOnTheFakeGpu) {
  ASSERT_FALSE(LookupKernel("FakeGpuKernelsTestTriple", DeviceType::kGPU, DT_FLOAT).ok());
  absl::StatusOr<int> registered = test::RegisterFakeGpuKernels(kList);
  ASSERT_TRUE(registered.ok()) << registered.status();
  // Triple/float32 and Any/*; GpuOnly has no CPU kernel to run.
  EXPECT_EQ(*registered, 2);
  EXPECT_FALSE(HasKernel("FakeGpuKernelsTestGpuOnly", DeviceType::kGPU));
  // Registering again adds nothing (and does not abort on duplicates).
  EXPECT_EQ(*test::RegisterFakeGpuKernels(kList), 0);
  EXPECT_TRUE(LookupKernel("FakeGpuKernelsTestTriple", DeviceType::kGPU, DT_FLOAT).ok());
  EXPECT_FALSE(LookupKernel("FakeGpuKernelsTestTriple", DeviceType::kGPU, DT_INT32).ok());

  FakeGpu* gpu = FakeGpu::Get();
  SetDefaultDevice(gpu);
  // float has a GPU kernel: the op runs there, on the CPU kernel's code.
  absl::StatusOr<Tensor> y =
      Execute1("FakeGpuKernelsTestTriple", {test::AsTensor<float>({1, 2, 100}, {3})});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(y->device(), gpu);
  test::ExpectTensorEqual(*y, test::AsTensor<float>({3, 6, 300}, {3}));
  // int32 has none: soft placement keeps it on the host, as on a GPU
  // machine whose build lacks the kernel.
  absl::StatusOr<Tensor> z =
      Execute1("FakeGpuKernelsTestTriple", {test::AsTensor<int32_t>(std::vector<int32_t>(100, 2), {100})});
  ASSERT_TRUE(z.ok()) << z.status();
  EXPECT_EQ(z->device(), HostDevice());
  EXPECT_EQ(z->data<int32_t>()[99], 6);
  SetDefaultDevice(nullptr);
}

}  // namespace
}  // namespace tfd
