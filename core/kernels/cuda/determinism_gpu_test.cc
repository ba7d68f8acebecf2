// Op determinism on the GPU (core/framework/determinism.h): with it on,
// Conv2DBackpropFilter (autotuned and heuristic) and UnsortedSegmentSum
// give the same bits on every run, the tuned filter-gradient algorithm is
// one cuDNN calls deterministic, and the sorted segment sums equal the
// CPU's exactly (both add each segment's rows in row order). Needs a GPU;
// skips, saying so, without one.
#include <cudnn.h>

#include <cstring>
#include <vector>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/framework/determinism.h"
#include "core/framework/execute.h"
#include "core/framework/kernel.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/conv_geometry.h"
#include "core/kernels/cuda/cudnn_conv_autotune.h"
#include "core/kernels/cuda/cudnn_conv_plan.h"
#include "core/kernels/cuda/parity_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

// The host copy's bytes, for bit-for-bit comparisons.
std::vector<char> Bytes(const Tensor& t) {
  const Tensor host = *t.CopyTo(HostDevice());
  const char* p = static_cast<const char*>(host.raw_data());
  return std::vector<char>(p, p + host.TotalBytes());
}

class DeterminismGpuTest : public test::GpuTest {
 protected:
  void SetUp() override {
    test::GpuTest::SetUp();
    EnableOpDeterminism(true);
  }
  void TearDown() override {
    EnableOpDeterminism(false);
    cuda_kernels::SetConvAutotuneEnabled(true);
  }

  // Runs `op` `runs` times on the GPU; every output has the first's bits.
  void ExpectBitIdenticalRuns(const char* op, const std::vector<Tensor>& inputs,
                              const AttrMap& attrs, int runs, Tensor* first) {
    absl::StatusOr<Tensor> y0 = Execute1(op, inputs, attrs, gpu_);
    ASSERT_TRUE(y0.ok()) << y0.status();
    const std::vector<char> expected = Bytes(*y0);
    for (int r = 1; r < runs; ++r) {
      absl::StatusOr<Tensor> y = Execute1(op, inputs, attrs, gpu_);
      ASSERT_TRUE(y.ok()) << y.status();
      EXPECT_TRUE(Bytes(*y) == expected) << op << ": run " << r << " differs from run 0";
    }
    *first = *y0->CopyTo(HostDevice());
  }
};

// A ResNet-like backward-filter shape: many images and positions add into
// each filter element, where cuDNN's atomic algorithms are often fastest.
TEST_F(DeterminismGpuTest, ConvBackpropFilterRunsAreBitIdentical) {
  const int64_t n = 32, hw = 28, c = 64, k = 64;
  const Tensor x = test::RandomTensor<float>({n, hw, hw, c}, 31);
  const Tensor dy = test::RandomTensor<float>({n, hw, hw, k}, 32);
  AttrMap a;
  a.Set("strides", std::vector<int64_t>{1, 1, 1, 1})
      .Set("dilations", std::vector<int64_t>{1, 1, 1, 1})
      .Set("padding", std::string("SAME"))
      .Set("data_format", std::string("NHWC"));
  const std::vector<Tensor> inputs = {x, test::Int32Vector({3, 3, c, k}), dy};

  absl::StatusOr<Tensor> cpu = Execute1("Conv2DBackpropFilter", inputs, a, HostDevice());
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  for (bool autotune : {true, false}) {
    SCOPED_TRACE(autotune ? "autotuned" : "heuristic");
    cuda_kernels::SetConvAutotuneEnabled(autotune);
    Tensor first;
    ExpectBitIdenticalRuns("Conv2DBackpropFilter", inputs, a, 4, &first);
    test::ExpectNearScaled(first, *cpu, test::ParityTolerance(DT_FLOAT));
  }

  // The choice cached for this signature under determinism is one of the
  // algorithms cuDNN documents as deterministic (not 0 or 3).
  absl::StatusOr<Conv2DAttrs> attrs = ParseConv2DAttrs(a);
  ASSERT_TRUE(attrs.ok()) << attrs.status();
  absl::StatusOr<Conv2DGeometry> g =
      ComputeConv2DGeometry(*attrs, x.shape(), TensorShape({3, 3, c, k}));
  ASSERT_TRUE(g.ok()) << g.status();
  absl::StatusOr<cuda_kernels::CudnnConvPlan> plan = cuda_kernels::MakeCudnnConvPlan(*g);
  ASSERT_TRUE(plan.ok()) << plan.status();
  const cuda_kernels::ConvAlgoKey key = cuda_kernels::MakeConvAlgoKey(
      gpu_->ordinal(), DT_FLOAT, cuda_kernels::ConvPass::kBackwardFilter, *plan, true);
  auto entry = cuda_kernels::GlobalConvAlgoCache().Lookup(key);
  ASSERT_TRUE(entry.has_value()) << "not tuned: " << key.DebugString();
  ASSERT_TRUE(entry->ok()) << entry->status();
  EXPECT_NE((*entry)->algo, static_cast<int>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_0));
  EXPECT_NE((*entry)->algo, static_cast<int>(CUDNN_CONVOLUTION_BWD_FILTER_ALGO_3));
}

// Many rows into few segments: the case where atomic adds reorder most.
template <typename T>
void CheckSegmentSum(CudaDevice* gpu) {
  const int64_t n = 20000, inner = 33, segments = 7;
  const Tensor data = test::RandomTensor<T>({n, inner}, 41);
  std::vector<int32_t> ids(n);
  for (int64_t i = 0; i < n; ++i) {
    // Every seventeenth row has a negative id: dropped on both devices.
    ids[i] = i % 17 == 16 ? -1 : static_cast<int32_t>((i * 7919) % segments);
  }
  const std::vector<Tensor> inputs = {data, test::AsTensor<int32_t>(ids, {n}),
                                      test::AsTensor<int32_t>({segments}, TensorShape({}))};
  absl::StatusOr<Tensor> cpu = Execute1("UnsortedSegmentSum", inputs, AttrMap(), HostDevice());
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  absl::StatusOr<Tensor> y0 = Execute1("UnsortedSegmentSum", inputs, AttrMap(), gpu);
  ASSERT_TRUE(y0.ok()) << y0.status();
  const std::vector<char> expected = Bytes(*y0);
  for (int r = 1; r < 5; ++r) {
    absl::StatusOr<Tensor> y = Execute1("UnsortedSegmentSum", inputs, AttrMap(), gpu);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(Bytes(*y) == expected) << "run " << r << " differs from run 0";
  }
  // Same order of addition, same accumulator type: the CPU's very bits.
  EXPECT_TRUE(expected == Bytes(*cpu)) << "differs from the CPU";
}

TEST_F(DeterminismGpuTest, SegmentSumFloatRunsAreBitIdenticalAndEqualTheCpu) {
  CheckSegmentSum<float>(gpu_);
}
TEST_F(DeterminismGpuTest, SegmentSumDoubleRunsAreBitIdenticalAndEqualTheCpu) {
  CheckSegmentSum<double>(gpu_);
}
TEST_F(DeterminismGpuTest, SegmentSumHalfRunsAreBitIdenticalAndEqualTheCpu) {
  CheckSegmentSum<half>(gpu_);
}
TEST_F(DeterminismGpuTest, SegmentSumBfloat16RunsAreBitIdenticalAndEqualTheCpu) {
  CheckSegmentSum<bfloat16>(gpu_);
}

TEST_F(DeterminismGpuTest, SegmentSumEdgeCases) {
  // int64 ids, empty segments, a segment id past the end is dropped on the
  // GPU (the CPU reports it), no rows at all.
  const Tensor data = test::AsTensor<float>({1, 2, 3, 4, 5, 6}, {3, 2});
  absl::StatusOr<Tensor> y =
      Execute1("UnsortedSegmentSum",
               {data, test::AsTensor<int64_t>({3, 0, 3}, {3}),
                test::AsTensor<int32_t>({5}, TensorShape({}))},
               AttrMap(), gpu_);
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_EQ(test::ToDoubles(*y->CopyTo(HostDevice())),
            (std::vector<double>{3, 4, 0, 0, 0, 0, 6, 8, 0, 0}));
  absl::StatusOr<Tensor> past = Execute1(
      "UnsortedSegmentSum",
      {data, test::AsTensor<int32_t>({1, 9, 1}, {3}), test::AsTensor<int32_t>({2}, TensorShape({}))},
      AttrMap(), gpu_);
  ASSERT_TRUE(past.ok()) << past.status();
  EXPECT_EQ(test::ToDoubles(*past->CopyTo(HostDevice())), (std::vector<double>{0, 0, 6, 8}));
  absl::StatusOr<Tensor> none = Execute1(
      "UnsortedSegmentSum",
      {test::AsTensor<float>({}, {0, 2}), test::AsTensor<int32_t>({}, {0}),
       test::AsTensor<int32_t>({3}, TensorShape({}))},
      AttrMap(), gpu_);
  ASSERT_TRUE(none.ok()) << none.status();
  EXPECT_EQ(test::ToDoubles(*none->CopyTo(HostDevice())), std::vector<double>(6, 0.0));
}

}  // namespace
}  // namespace tfd
