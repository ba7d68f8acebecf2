// Parity of the cuDNN Conv2D, Conv2DBackpropInput, Conv2DBackpropFilter,
// MaxPool(Grad) and AvgPool(Grad) kernels with the CPU kernels (float32 1e-5, 16-bit 1e-2 relative to the
// largest magnitude) over strides, dilations, SAME (symmetric and
// asymmetric), VALID and EXPLICIT padding, batch 1 and an empty batch;
// NCHW on the GPU against NHWC on the CPU through transposes; autotuned
// algorithms (the default) against cuDNN's heuristic ones. They need a
// GPU and skip, saying so, without one.
#include <string>
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

struct ConvCase {
  int64_t n, h, w, c;  // input NHWC
  int64_t r, s, k;     // filter [r, s, c, k]
  int64_t stride, dilation;
  std::string padding;
  std::vector<int64_t> pads = {};  // top, bottom, left, right for EXPLICIT
};

const ConvCase kCases[] = {
    {2, 8, 8, 3, 3, 3, 4, 1, 1, "SAME"},   {2, 8, 8, 3, 3, 3, 4, 2, 1, "SAME"},
    {1, 9, 7, 2, 3, 2, 5, 2, 1, "VALID"},  {2, 10, 10, 4, 3, 3, 3, 1, 2, "SAME"},
    {1, 6, 6, 3, 2, 2, 2, 1, 1, "EXPLICIT", {1, 2, 0, 1}},
    {0, 5, 5, 2, 3, 3, 2, 1, 1, "SAME"},   {4, 28, 28, 1, 5, 5, 8, 1, 1, "VALID"}};

AttrMap Attrs(const ConvCase& c, const std::string& format) {
  AttrMap a;
  if (format == "NHWC") {
    a.Set("strides", std::vector<int64_t>{1, c.stride, c.stride, 1});
    a.Set("dilations", std::vector<int64_t>{1, c.dilation, c.dilation, 1});
  } else {
    a.Set("strides", std::vector<int64_t>{1, 1, c.stride, c.stride});
    a.Set("dilations", std::vector<int64_t>{1, 1, c.dilation, c.dilation});
  }
  a.Set("padding", c.padding).Set("data_format", format);
  if (c.padding == "EXPLICIT") {
    std::vector<int64_t> p = format == "NHWC"
                                 ? std::vector<int64_t>{0, 0, c.pads[0], c.pads[1], c.pads[2],
                                                        c.pads[3], 0, 0}
                                 : std::vector<int64_t>{0, 0, 0, 0, c.pads[0], c.pads[1],
                                                        c.pads[2], c.pads[3]};
    a.Set("explicit_paddings", p);
  }
  return a;
}

TEST(ConvGpuRegistrationTest, RegisteredForTheFloatingTypes) {
  test::ExpectGpuKernels({"Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter", "MaxPool",
                          "MaxPoolGrad", "AvgPool", "AvgPoolGrad"},
                         {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16});
}

class ConvGpuTest : public test::GpuTest {
 protected:
  Tensor Transpose(const Tensor& t, std::vector<int64_t> perm) {
    absl::StatusOr<Tensor> y = Execute1("Transpose", {*t.CopyTo(HostDevice()),
                                                      test::Int32Vector(perm)},
                                        AttrMap(), HostDevice());
    EXPECT_TRUE(y.ok()) << y.status();
    return *y;
  }

  template <typename T>
  void CheckParity() {
    for (const ConvCase& c : kCases) {
      SCOPED_TRACE(testing::Message() << DataTypeName(DataTypeToEnum<T>::value) << " " << c.n
                                      << "x" << c.h << "x" << c.w << "x" << c.c << " filter "
                                      << c.r << "x" << c.s << "x" << c.k << " " << c.padding
                                      << " stride " << c.stride << " dilation " << c.dilation);
      const Tensor x = test::RandomTensor<T>({c.n, c.h, c.w, c.c}, 1);
      const Tensor w = test::RandomTensor<T>({c.r, c.s, c.c, c.k}, 2);
      const AttrMap nhwc = Attrs(c, "NHWC");
      absl::StatusOr<Tensor> y = Execute1("Conv2D", {x, w}, nhwc, HostDevice());
      ASSERT_TRUE(y.ok()) << y.status();
      const Tensor dy = test::RandomTensor<T>(y->shape(), 3);
      const Tensor in_sizes = test::Int32Vector({c.n, c.h, c.w, c.c});
      const Tensor filter_sizes = test::Int32Vector({c.r, c.s, c.c, c.k});
      test::ExpectGpuMatchesCpu("Conv2D", {x, w}, nhwc, gpu_);
      test::ExpectGpuMatchesCpu("Conv2DBackpropInput", {in_sizes, w, dy}, nhwc, gpu_);
      test::ExpectGpuMatchesCpu("Conv2DBackpropFilter", {x, filter_sizes, dy}, nhwc, gpu_);

      // NCHW on the GPU equals the NHWC CPU result, transposed.
      const AttrMap nchw = Attrs(c, "NCHW");
      const double tol = test::ParityTolerance(DataTypeToEnum<T>::value);
      absl::StatusOr<Tensor> y_nchw =
          Execute1("Conv2D", {Transpose(x, {0, 3, 1, 2}), w}, nchw, gpu_);
      ASSERT_TRUE(y_nchw.ok()) << y_nchw.status();
      test::ExpectNearScaled(Transpose(*y_nchw, {0, 2, 3, 1}), *y, tol);
      absl::StatusOr<Tensor> dw_nchw = Execute1(
          "Conv2DBackpropFilter", {Transpose(x, {0, 3, 1, 2}), filter_sizes,
                                   Transpose(dy, {0, 3, 1, 2})},
          nchw, gpu_);
      absl::StatusOr<Tensor> dw = Execute1("Conv2DBackpropFilter", {x, filter_sizes, dy}, nhwc,
                                           HostDevice());
      ASSERT_TRUE(dw_nchw.ok() && dw.ok()) << dw_nchw.status() << dw.status();
      test::ExpectNearScaled(*dw_nchw->CopyTo(HostDevice()), *dw, tol);
    }
  }

  template <typename T>
  void CheckPooling() {
    struct PoolCase {
      int64_t n, h, c, k, stride;
      std::string padding;
    } cases[] = {{2, 8, 3, 2, 2, "VALID"}, {2, 28, 4, 2, 2, "SAME"}, {1, 9, 2, 3, 1, "SAME"},
                 {3, 7, 5, 3, 2, "SAME"}, {1, 10, 1, 3, 3, "VALID"}};
    for (const PoolCase& c : cases) {
      SCOPED_TRACE(testing::Message() << DataTypeName(DataTypeToEnum<T>::value) << " " << c.h
                                      << " k" << c.k << " s" << c.stride << " " << c.padding);
      AttrMap a;
      a.Set("ksize", std::vector<int64_t>{1, c.k, c.k, 1});
      a.Set("strides", std::vector<int64_t>{1, c.stride, c.stride, 1});
      a.Set("padding", c.padding);
      const Tensor x = test::RandomTensor<T>({c.n, c.h, c.h, c.c}, 4);
      test::ExpectGpuMatchesCpu("MaxPool", {x}, a, gpu_);
      test::ExpectGpuMatchesCpu("AvgPool", {x}, a, gpu_);
      absl::StatusOr<Tensor> y = Execute1("MaxPool", {x}, a, HostDevice());
      ASSERT_TRUE(y.ok()) << y.status();
      const Tensor dy = test::RandomTensor<T>(y->shape(), 5);
      // 16-bit inputs tie within a window often enough for the two
      // devices to route a gradient to different (equal) maxima; float32
      // random values do not tie.
      if (DataTypeToEnum<T>::value == DT_FLOAT) {
        test::ExpectGpuMatchesCpu("MaxPoolGrad", {x, *y, dy}, a, gpu_);
      }
      test::ExpectGpuMatchesCpu("AvgPoolGrad", {test::Int32Vector({c.n, c.h, c.h, c.c}), dy}, a,
                                gpu_);
    }
  }
};

// Each pass with autotuning off (cuDNN's heuristic choice) and on (the
// first call times the candidates, the second runs the cached choice):
// the results agree at the dtype's tolerance, and the cache holds a
// successful tuning of each pass's signature.
template <typename T>
void CheckAutotunedMatchesHeuristic(CudaDevice* gpu) {
  const ConvCase cases[] = {{8, 14, 14, 64, 3, 3, 64, 1, 1, "SAME"},
                            {8, 28, 28, 32, 1, 1, 64, 2, 1, "VALID"},
                            {4, 16, 16, 16, 3, 3, 32, 2, 1, "SAME"},
                            {2, 9, 9, 8, 3, 3, 8, 1, 2, "SAME"}};
  const DataType dtype = DataTypeToEnum<T>::value;
  const double tol = test::ParityTolerance(dtype);
  for (const ConvCase& c : cases) {
    SCOPED_TRACE(testing::Message() << DataTypeName(dtype) << " " << c.n << "x" << c.h << "x"
                                    << c.w << "x" << c.c << " filter " << c.r << "x" << c.s
                                    << "x" << c.k << " " << c.padding << " stride " << c.stride
                                    << " dilation " << c.dilation);
    const Tensor x = test::RandomTensor<T>({c.n, c.h, c.w, c.c}, 11);
    const Tensor w = test::RandomTensor<T>({c.r, c.s, c.c, c.k}, 12);
    const AttrMap a = Attrs(c, "NHWC");
    absl::StatusOr<Tensor> y_host = Execute1("Conv2D", {x, w}, a, HostDevice());
    ASSERT_TRUE(y_host.ok()) << y_host.status();
    const Tensor dy = test::RandomTensor<T>(y_host->shape(), 13);
    struct Pass {
      const char* op;
      std::vector<Tensor> inputs;
      cuda_kernels::ConvPass pass;
    } passes[] = {
        {"Conv2D", {x, w}, cuda_kernels::ConvPass::kForward},
        {"Conv2DBackpropInput", {test::Int32Vector({c.n, c.h, c.w, c.c}), w, dy},
         cuda_kernels::ConvPass::kBackwardData},
        {"Conv2DBackpropFilter", {x, test::Int32Vector({c.r, c.s, c.c, c.k}), dy},
         cuda_kernels::ConvPass::kBackwardFilter},
    };
    absl::StatusOr<Conv2DAttrs> attrs = ParseConv2DAttrs(a);
    ASSERT_TRUE(attrs.ok()) << attrs.status();
    absl::StatusOr<Conv2DGeometry> g = ComputeConv2DGeometry(*attrs, x.shape(), w.shape());
    ASSERT_TRUE(g.ok()) << g.status();
    absl::StatusOr<cuda_kernels::CudnnConvPlan> plan = cuda_kernels::MakeCudnnConvPlan(*g);
    ASSERT_TRUE(plan.ok()) << plan.status();
    for (const Pass& p : passes) {
      SCOPED_TRACE(p.op);
      cuda_kernels::SetConvAutotuneEnabled(false);
      absl::StatusOr<Tensor> heuristic = Execute1(p.op, p.inputs, a, gpu);
      cuda_kernels::SetConvAutotuneEnabled(true);
      absl::StatusOr<Tensor> tuned = Execute1(p.op, p.inputs, a, gpu);
      absl::StatusOr<Tensor> cached = Execute1(p.op, p.inputs, a, gpu);
      ASSERT_TRUE(heuristic.ok() && tuned.ok() && cached.ok())
          << heuristic.status() << tuned.status() << cached.status();
      const Tensor expected = *heuristic->CopyTo(HostDevice());
      test::ExpectNearScaled(*tuned->CopyTo(HostDevice()), expected, tol);
      test::ExpectNearScaled(*cached->CopyTo(HostDevice()), expected, tol);
      const cuda_kernels::ConvAlgoKey key = cuda_kernels::MakeConvAlgoKey(
          gpu->ordinal(), dtype, p.pass, *plan, OpDeterminismEnabled());
      auto entry = cuda_kernels::GlobalConvAlgoCache().Lookup(key);
      ASSERT_TRUE(entry.has_value()) << "not tuned: " << key.DebugString();
      EXPECT_TRUE(entry->ok()) << key.DebugString() << ": " << entry->status();
    }
  }
}

TEST_F(ConvGpuTest, AutotunedFloat32MatchesHeuristic) {
  CheckAutotunedMatchesHeuristic<float>(gpu_);
}
TEST_F(ConvGpuTest, AutotunedHalfMatchesHeuristic) { CheckAutotunedMatchesHeuristic<half>(gpu_); }
TEST_F(ConvGpuTest, AutotunedBfloat16MatchesHeuristic) {
  CheckAutotunedMatchesHeuristic<bfloat16>(gpu_);
}

TEST_F(ConvGpuTest, Float32MatchesCpu) { CheckParity<float>(); }
TEST_F(ConvGpuTest, HalfMatchesCpu) { CheckParity<half>(); }
TEST_F(ConvGpuTest, Bfloat16MatchesCpu) { CheckParity<bfloat16>(); }
TEST_F(ConvGpuTest, PoolingFloat32MatchesCpu) { CheckPooling<float>(); }
TEST_F(ConvGpuTest, PoolingHalfMatchesCpu) { CheckPooling<half>(); }
TEST_F(ConvGpuTest, PoolingBfloat16MatchesCpu) { CheckPooling<bfloat16>(); }

TEST_F(ConvGpuTest, PaddingCuDnnCannotExpressIsUnimplemented) {
  AttrMap a;
  a.Set("ksize", std::vector<int64_t>{1, 3, 3, 1});
  a.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  a.Set("padding", std::string("SAME"));
  absl::StatusOr<Tensor> y =
      Execute1("MaxPool", {test::RandomTensor<float>({1, 8, 8, 2}, 1)}, a, gpu_);
  ASSERT_FALSE(y.ok());
  EXPECT_EQ(y.status().code(), absl::StatusCode::kUnimplemented);
}

TEST_F(ConvGpuTest, EmptyBatchPoolsWithoutCuDnn) {
  // cuDNN refuses descriptors with a dimension of 0: an empty batch must
  // be answered before any is made.
  AttrMap a;
  a.Set("ksize", std::vector<int64_t>{1, 2, 2, 1});
  a.Set("strides", std::vector<int64_t>{1, 2, 2, 1});
  a.Set("padding", std::string("VALID"));
  const Tensor x(DT_FLOAT, {0, 4, 4, 2});
  for (const char* op : {"MaxPool", "AvgPool"}) {
    absl::StatusOr<Tensor> y = Execute1(op, {x}, a, gpu_);
    ASSERT_TRUE(y.ok()) << op << ": " << y.status();
    EXPECT_EQ(y->shape(), TensorShape({0, 2, 2, 2})) << op;
  }
  const Tensor dy(DT_FLOAT, {0, 2, 2, 2});
  absl::StatusOr<Tensor> dmax = Execute1("MaxPoolGrad", {x, dy, dy}, a, gpu_);
  ASSERT_TRUE(dmax.ok()) << dmax.status();
  EXPECT_EQ(dmax->shape(), x.shape());
  absl::StatusOr<Tensor> davg =
      Execute1("AvgPoolGrad", {test::Int32Vector({0, 4, 4, 2}), dy}, a, gpu_);
  ASSERT_TRUE(davg.ok()) << davg.status();
  EXPECT_EQ(davg->shape(), x.shape());
}

TEST_F(ConvGpuTest, BadShapesAreErrorsNotCrashes) {
  const Tensor x = test::RandomTensor<float>({1, 5, 5, 3}, 1);
  const Tensor w = test::RandomTensor<float>({3, 3, 4, 2}, 2);  // depth 4 vs 3
  AttrMap a;
  a.Set("strides", std::vector<int64_t>{1, 1, 1, 1}).Set("padding", std::string("SAME"));
  absl::StatusOr<Tensor> y = Execute1("Conv2D", {x, w}, a, gpu_);
  EXPECT_FALSE(y.ok());
}

}  // namespace
}  // namespace tfd
