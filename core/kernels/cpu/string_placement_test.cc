// String tensors under a GPU default device and a GPU scope, with the real
// GPU build's kernel list (core/kernels/cuda/gpu_kernels.txt) standing on
// the fake GPU: the shape ops that accept strings, whose GPU kernels serve
// every dtype "by element size", run on the host and give the right
// values (Note [Host-only dtypes] in core/framework/placement.h).
#include <string>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/fake_gpu_kernels.h"
#include "core/framework/fake_gpu_testutil.h"
#include "core/framework/gpu_kernel_list.h"
#include "core/framework/placement.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

using test::FakeGpu;

const std::vector<std::string> kWords = {
    "tfd", "", "a string well past the small-string optimization's buffer"};

class StringPlacementTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    absl::StatusOr<int> registered = test::RegisterFakeGpuKernels(test::kGpuKernelList);
    ASSERT_TRUE(registered.ok()) << registered.status();
  }
  void SetUp() override {
    // The list gives the GPU Identity, Reshape and Shape for every dtype.
    for (const char* op : {"Identity", "Reshape", "Shape", "Size", "Rank"}) {
      ASSERT_TRUE(LookupKernel(op, DeviceType::kGPU, DT_FLOAT).ok()) << op;
    }
    SetDefaultDevice(FakeGpu::Get());
  }
  void TearDown() override { SetDefaultDevice(nullptr); }

  // Runs the string-accepting shape ops on kWords and checks each ran on
  // the host with the right result.
  void ExpectShapeOpsOnTheHost() {
    const Tensor words = test::StringVector(kWords);
    absl::StatusOr<Tensor> same = Execute1("Identity", {words});
    ASSERT_TRUE(same.ok()) << same.status();
    EXPECT_EQ(same->device(), HostDevice());
    EXPECT_EQ(test::StringsOf(*same), kWords);

    absl::StatusOr<Tensor> column = Execute1("Reshape", {words, test::Int32Vector({3, 1})});
    ASSERT_TRUE(column.ok()) << column.status();
    EXPECT_EQ(column->device(), HostDevice());
    EXPECT_EQ(column->shape(), TensorShape({3, 1}));
    EXPECT_EQ(test::StringsOf(*column), kWords);

    absl::StatusOr<Tensor> shape = Execute1("Shape", {*column});
    ASSERT_TRUE(shape.ok()) << shape.status();
    EXPECT_EQ(test::ToDoubles(*shape), (std::vector<double>{3, 1}));
    absl::StatusOr<Tensor> size = Execute1("Size", {*column});
    ASSERT_TRUE(size.ok()) << size.status();
    EXPECT_EQ(test::ToDoubles(*size), (std::vector<double>{3}));
    absl::StatusOr<Tensor> rank = Execute1("Rank", {*column});
    ASSERT_TRUE(rank.ok()) << rank.status();
    EXPECT_EQ(test::ToDoubles(*rank), (std::vector<double>{2}));
  }
};

TEST_F(StringPlacementTest, UnderAGpuDefaultDevice) {
  ExpectShapeOpsOnTheHost();
  // Plain dtypes still go to the GPU through the same kernels.
  absl::StatusOr<Tensor> f = Execute1("Identity", {test::AsTensor<float>({1, 2}, {2})});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->device(), FakeGpu::Get());
}

TEST_F(StringPlacementTest, UnderAGpuScope) {
  DeviceScope scope(FakeGpu::Get());
  ExpectShapeOpsOnTheHost();
  absl::StatusOr<Tensor> f = Execute1("Identity", {test::AsTensor<float>({1, 2}, {2})});
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->device(), FakeGpu::Get());
}

TEST_F(StringPlacementTest, OpsThatMoveBytesRefuseStringsOnAnyDevice) {
  // ConcatV2, Transpose, GatherV2 ... copy bytes on the host too: their
  // type constraint leaves strings out, so the error comes before placement.
  absl::StatusOr<Tensor> joined =
      Execute1("ConcatV2", {test::StringVector(kWords), test::StringVector(kWords),
                            Tensor::Scalar<int32_t>(0)});
  EXPECT_EQ(joined.status().code(), absl::StatusCode::kInvalidArgument) << joined.status();
  EXPECT_NE(joined.status().message().find("string"), std::string::npos) << joined.status();
}

}  // namespace
}  // namespace tfd
