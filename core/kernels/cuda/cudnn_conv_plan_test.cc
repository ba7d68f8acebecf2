// The cuDNN mapping of Conv2D, checked on the host in every build: NHWC
// and NCHW views, the HWIO filter as a strided [K, C, R, S] view and its
// packed copy in the data's layout, when symmetric padding is enough, and
// the padded copy otherwise (emulated here element by element).
#include "core/kernels/cuda/cudnn_conv_plan.h"

#include <array>
#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace cuda_kernels {
namespace {

Conv2DGeometry Geometry(DataFormat format, int64_t n, int64_t h, int64_t w, int64_t c,
                        int64_t r, int64_t s, int64_t k, int64_t stride, Padding padding) {
  Conv2DAttrs attrs;
  attrs.stride_rows = attrs.stride_cols = stride;
  attrs.padding = padding;
  attrs.format = format;
  const TensorShape input = ShapeInFormat(format, n, h, w, c);
  absl::StatusOr<Conv2DGeometry> g = ComputeConv2DGeometry(attrs, input, TensorShape({r, s, c, k}));
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

int64_t Offset(const NchwView& v, int64_t n, int64_t c, int64_t h, int64_t w) {
  return n * v.n_stride + c * v.c_stride + h * v.h_stride + w * v.w_stride;
}

TEST(CudnnConvPlanTest, SameStrideOneIsSymmetric) {
  absl::StatusOr<CudnnConvPlan> p =
      MakeCudnnConvPlan(Geometry(DataFormat::kNHWC, 2, 28, 28, 3, 3, 3, 8, 1, Padding::kSame));
  ASSERT_TRUE(p.ok()) << p.status();
  EXPECT_FALSE(p->pad_input);
  EXPECT_EQ(p->pad_h, 1);
  EXPECT_EQ(p->pad_w, 1);
  // NHWC input element (n, c, h, w) at ((n * H + h) * W + w) * C + c.
  EXPECT_EQ(Offset(p->input, 1, 2, 3, 4), ((1 * 28 + 3) * 28 + 4) * 3 + 2);
  EXPECT_EQ(p->output.c, 8);
  EXPECT_EQ(p->output.h, 28);
}

TEST(CudnnConvPlanTest, FilterViewsAddressHwioAndTheDataLayout) {
  // The packed filter follows the data: KRSC for NHWC, KCRS for NCHW.
  for (DataFormat format : {DataFormat::kNHWC, DataFormat::kNCHW}) {
    absl::StatusOr<CudnnConvPlan> p =
        MakeCudnnConvPlan(Geometry(format, 1, 9, 9, 4, 3, 2, 5, 1, Padding::kValid));
    ASSERT_TRUE(p.ok()) << p.status();
    const bool nhwc = format == DataFormat::kNHWC;
    EXPECT_EQ(p->filter_nhwc, nhwc);
    const int64_t K = 5, C = 4, R = 3, S = 2;
    for (int64_t k = 0; k < K; ++k)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < R; ++r)
          for (int64_t s = 0; s < S; ++s) {
            EXPECT_EQ(Offset(p->filter_hwio, k, c, r, s), ((r * S + s) * C + c) * K + k);
            EXPECT_EQ(Offset(p->filter_packed, k, c, r, s),
                      nhwc ? ((k * R + r) * S + s) * C + c : ((k * C + c) * R + r) * S + s);
          }
    if (!nhwc) {
      // NCHW input element (n, c, h, w) at ((n * C + c) * H + h) * W + w.
      EXPECT_EQ(Offset(p->input, 0, 3, 2, 1), (3 * 9 + 2) * 9 + 1);
    }
  }
}

// Runs a strided copy on the host, as strided_copy.cu does.
void RunStridedCopy(const StridedCopyParams& p, const std::vector<int>& src, std::vector<int>* dst) {
  int64_t n = 1;
  for (int d = 0; d < p.rank; ++d) n *= p.dims[d];
  for (int64_t i = 0; i < n; ++i) {
    int64_t rest = i, s = 0, t = 0;
    for (int d = p.rank - 1; d >= 0; --d) {
      const int64_t idx = rest % p.dims[d];
      rest /= p.dims[d];
      s += idx * p.src_strides[d];
      t += idx * p.dst_strides[d];
    }
    (*dst)[t] = src[s];
  }
}

TEST(CudnnConvPlanTest, FilterCopyPacksHwioAndBack) {
  for (DataFormat format : {DataFormat::kNHWC, DataFormat::kNCHW}) {
    absl::StatusOr<CudnnConvPlan> p =
        MakeCudnnConvPlan(Geometry(format, 1, 9, 9, 4, 3, 2, 5, 1, Padding::kValid));
    ASSERT_TRUE(p.ok()) << p.status();
    const int64_t K = 5, C = 4, R = 3, S = 2;
    std::vector<int> hwio(K * C * R * S);
    for (size_t i = 0; i < hwio.size(); ++i) hwio[i] = static_cast<int>(i);
    absl::StatusOr<StridedCopyParams> pack = FilterCopyParams(*p, /*to_packed=*/true);
    ASSERT_TRUE(pack.ok()) << pack.status();
    std::vector<int> packed(hwio.size(), -1);
    RunStridedCopy(*pack, hwio, &packed);
    for (int64_t k = 0; k < K; ++k)
      for (int64_t c = 0; c < C; ++c)
        for (int64_t r = 0; r < R; ++r)
          for (int64_t s = 0; s < S; ++s) {
            const int64_t at = format == DataFormat::kNHWC ? ((k * R + r) * S + s) * C + c
                                                           : ((k * C + c) * R + r) * S + s;
            EXPECT_EQ(packed[at], ((r * S + s) * C + c) * K + k);
          }
    absl::StatusOr<StridedCopyParams> unpack = FilterCopyParams(*p, /*to_packed=*/false);
    ASSERT_TRUE(unpack.ok()) << unpack.status();
    std::vector<int> back(hwio.size(), -1);
    RunStridedCopy(*unpack, packed, &back);
    EXPECT_EQ(back, hwio);
  }
}

TEST(CudnnConvPlanTest, AsymmetricSamePaddingCopiesTheInput) {
  // 3x3, stride 2, SAME on 8x8: TensorFlow pads 0 before and 1 after.
  for (DataFormat format : {DataFormat::kNHWC, DataFormat::kNCHW}) {
    const int64_t N = 2, H = 8, W = 8, C = 3;
    const Conv2DGeometry g = Geometry(format, N, H, W, C, 3, 3, 4, 2, Padding::kSame);
    ASSERT_EQ(g.rows.pad_before, 0);
    ASSERT_EQ(g.rows.pad_after, 1);
    absl::StatusOr<CudnnConvPlan> p = MakeCudnnConvPlan(g);
    ASSERT_TRUE(p.ok()) << p.status();
    ASSERT_TRUE(p->pad_input);
    EXPECT_EQ(p->pad_h, 0);
    EXPECT_EQ(p->input.h, 9);
    EXPECT_EQ(p->input.w, 9);
    // cuDNN on the padded input, unpadded, gives TensorFlow's output size.
    EXPECT_EQ((p->input.h - 3) / 2 + 1, g.rows.output);
    // Emulate the 3-D copy and compare with indexing the padded view.
    const PadCopy& c = p->pad_copy;
    std::vector<int> dense(N * H * W * C);
    for (size_t i = 0; i < dense.size(); ++i) dense[i] = static_cast<int>(i) + 1;
    std::vector<int> padded(c.dst_elements, 0);
    for (int64_t z = 0; z < c.slices; ++z)
      for (int64_t y = 0; y < c.rows; ++y)
        for (int64_t x = 0; x < c.row_elements; ++x) {
          padded[c.dst_offset + (z * c.dst_slice_rows + y) * c.dst_row_pitch + x] =
              dense[(z * c.rows + y) * c.row_elements + x];
        }
    const NchwView in = MakeCudnnConvPlan(Geometry(format, N, H, W, C, 1, 1, 1, 1,
                                                   Padding::kValid))->input;
    for (int64_t n = 0; n < N; ++n)
      for (int64_t ch = 0; ch < C; ++ch)
        for (int64_t h = 0; h < 9; ++h)
          for (int64_t w = 0; w < 9; ++w) {
            const int expected = (h < H && w < W) ? dense[Offset(in, n, ch, h, w)] : 0;
            EXPECT_EQ(padded[Offset(p->input, n, ch, h, w)], expected);
          }
  }
}

PoolGeometry Pool(int64_t h, int64_t k, int64_t stride, Padding padding) {
  PoolAttrs attrs;
  attrs.ksize_rows = attrs.ksize_cols = k;
  attrs.stride_rows = attrs.stride_cols = stride;
  attrs.padding = padding;
  absl::StatusOr<PoolGeometry> g = ComputePoolGeometry(attrs, TensorShape({2, h, h, 3}));
  EXPECT_TRUE(g.ok()) << g.status();
  return *g;
}

TEST(CudnnPoolPlanTest, SymmetricOrNeverReadPaddingIsAccepted) {
  // 2x2/2 SAME on 28: no padding. 3x3/1 SAME: 1 on each side. 3x3/2 SAME on
  // 7: 1 on each side.
  for (const auto& [h, k, stride, pad] :
       std::vector<std::array<int64_t, 4>>{{28, 2, 2, 0}, {28, 3, 1, 1}, {7, 3, 2, 1}}) {
    absl::StatusOr<CudnnPoolPlan> p = MakeCudnnPoolPlan(Pool(h, k, stride, Padding::kSame));
    ASSERT_TRUE(p.ok()) << p.status();
    EXPECT_EQ(p->pad_h, pad);
    EXPECT_EQ(p->window_w, k);
    EXPECT_EQ(p->input.c_stride, 1);  // NHWC
  }
  // 3x3/2 SAME on 8 pads 0 before and 1 after: not expressible.
  absl::StatusOr<CudnnPoolPlan> odd = MakeCudnnPoolPlan(Pool(8, 3, 2, Padding::kSame));
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().code(), absl::StatusCode::kUnimplemented);
  EXPECT_NE(odd.status().message().find("0/1 rows"), std::string::npos);
}

}  // namespace
}  // namespace cuda_kernels
}  // namespace tfd
