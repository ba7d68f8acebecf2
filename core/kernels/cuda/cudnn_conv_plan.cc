#include "core/kernels/cuda/cudnn_conv_plan.h"

#include <limits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/kernels/cuda/launch_plan_builders.h"

namespace tfd {
namespace cuda_kernels {
namespace {

// [n, c, h, w] of a dense buffer in `format`, as a strided NCHW view.
absl::StatusOr<NchwView> ViewOf(DataFormat format, int64_t n, int64_t c, int64_t h, int64_t w) {
  const int64_t total = n * c * h * w;
  if (total > std::numeric_limits<int>::max()) {
    return absl::UnimplementedError(absl::StrCat(
        "cuDNN convolutions take tensors of at most 2^31-1 elements, got ", n, "x", c, "x", h,
        "x", w));
  }
  NchwView v;
  v.n = static_cast<int>(n);
  v.c = static_cast<int>(c);
  v.h = static_cast<int>(h);
  v.w = static_cast<int>(w);
  if (format == DataFormat::kNHWC) {
    v.n_stride = static_cast<int>(h * w * c);
    v.c_stride = 1;
    v.h_stride = static_cast<int>(w * c);
    v.w_stride = static_cast<int>(c);
  } else {
    v.n_stride = static_cast<int>(c * h * w);
    v.c_stride = static_cast<int>(h * w);
    v.h_stride = static_cast<int>(w);
    v.w_stride = 1;
  }
  return v;
}

// The output size cuDNN computes with `pad` on both sides.
int64_t SymmetricOutput(const WindowDim& d, int64_t pad) {
  return (d.input + 2 * pad - d.effective_filter()) / d.stride + 1;
}

}  // namespace

absl::StatusOr<CudnnConvPlan> MakeCudnnConvPlan(const Conv2DGeometry& g) {
  CudnnConvPlan p;
  const bool symmetric = SymmetricOutput(g.rows, g.rows.pad_before) == g.rows.output &&
                         SymmetricOutput(g.cols, g.cols.pad_before) == g.cols.output;
  int64_t in_h = g.rows.input, in_w = g.cols.input;
  if (symmetric) {
    p.pad_h = static_cast<int>(g.rows.pad_before);
    p.pad_w = static_cast<int>(g.cols.pad_before);
  } else {
    p.pad_input = true;
    in_h += g.rows.pad_before + g.rows.pad_after;
    in_w += g.cols.pad_before + g.cols.pad_after;
    PadCopy& c = p.pad_copy;
    if (g.format == DataFormat::kNHWC) {
      c.row_elements = g.cols.input * g.in_depth;
      c.rows = g.rows.input;
      c.slices = g.batch;
      c.dst_row_pitch = in_w * g.in_depth;
      c.dst_offset = (g.rows.pad_before * in_w + g.cols.pad_before) * g.in_depth;
    } else {
      c.row_elements = g.cols.input;
      c.rows = g.rows.input;
      c.slices = g.batch * g.in_depth;
      c.dst_row_pitch = in_w;
      c.dst_offset = g.rows.pad_before * in_w + g.cols.pad_before;
    }
    c.dst_slice_rows = in_h;
    c.dst_elements = g.batch * g.in_depth * in_h * in_w;
  }
  TFD_ASSIGN_OR_RETURN(p.input, ViewOf(g.format, g.batch, g.in_depth, in_h, in_w));
  TFD_ASSIGN_OR_RETURN(p.output,
                       ViewOf(g.format, g.batch, g.out_depth, g.rows.output, g.cols.output));
  const int64_t k = g.out_depth, c = g.filter_depth, r = g.rows.filter, s = g.cols.filter;
  // HWIO: element (k, c, r, s) at ((r * S + s) * C + c) * K + k.
  TFD_ASSIGN_OR_RETURN(p.filter_hwio, ViewOf(DataFormat::kNCHW, k, c, r, s));
  p.filter_hwio.n_stride = 1;
  p.filter_hwio.c_stride = static_cast<int>(k);
  p.filter_hwio.h_stride = static_cast<int>(s * c * k);
  p.filter_hwio.w_stride = static_cast<int>(c * k);
  // The data's layout (see the header): KRSC for NHWC, KCRS for NCHW.
  p.filter_nhwc = g.format == DataFormat::kNHWC;
  TFD_ASSIGN_OR_RETURN(p.filter_packed, ViewOf(g.format, k, c, r, s));
  p.groups = static_cast<int>(g.groups());
  p.stride_h = static_cast<int>(g.rows.stride);
  p.stride_w = static_cast<int>(g.cols.stride);
  p.dilation_h = static_cast<int>(g.rows.dilation);
  p.dilation_w = static_cast<int>(g.cols.dilation);
  return p;
}

absl::StatusOr<StridedCopyParams> FilterCopyParams(const CudnnConvPlan& plan, bool to_packed) {
  auto strides = [](const NchwView& v) {
    return std::vector<int64_t>{v.n_stride, v.c_stride, v.h_stride, v.w_stride};
  };
  const NchwView& hwio = plan.filter_hwio;
  const NchwView& packed = plan.filter_packed;
  return MakeStridedCopyParams({hwio.n, hwio.c, hwio.h, hwio.w},
                               to_packed ? strides(hwio) : strides(packed),
                               to_packed ? strides(packed) : strides(hwio));
}

absl::StatusOr<CudnnPoolPlan> MakeCudnnPoolPlan(const PoolGeometry& g) {
  if (SymmetricOutput(g.rows, g.rows.pad_before) != g.rows.output ||
      SymmetricOutput(g.cols, g.cols.pad_before) != g.cols.output) {
    return absl::UnimplementedError(absl::StrCat(
        "GPU pooling supports padding that is the same on both sides or never read; got ",
        g.rows.pad_before, "/", g.rows.pad_after, " rows and ", g.cols.pad_before, "/",
        g.cols.pad_after, " columns (pad the input explicitly, e.g. ZeroPadding2D, and use "
        "VALID)"));
  }
  CudnnPoolPlan p;
  TFD_ASSIGN_OR_RETURN(p.input, ViewOf(g.format, g.batch, g.depth, g.rows.input, g.cols.input));
  TFD_ASSIGN_OR_RETURN(p.output,
                       ViewOf(g.format, g.batch, g.depth, g.rows.output, g.cols.output));
  p.window_h = static_cast<int>(g.rows.filter);
  p.window_w = static_cast<int>(g.cols.filter);
  p.pad_h = static_cast<int>(g.rows.pad_before);
  p.pad_w = static_cast<int>(g.cols.pad_before);
  p.stride_h = static_cast<int>(g.rows.stride);
  p.stride_w = static_cast<int>(g.cols.stride);
  return p;
}

}  // namespace cuda_kernels
}  // namespace tfd
