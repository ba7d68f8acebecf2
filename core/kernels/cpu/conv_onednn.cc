#include "core/kernels/cpu/conv_onednn.h"

#include <string>

#include "core/framework/tensor.h"
#include "core/kernels/cpu/onednn_util.h"

namespace tfd {
namespace {

using dnnl::memory;

enum class Kind { kForward, kBackwardData, kBackwardWeights };

// A cached convolution: the primitive, the layout it wants the filter (or
// filter gradient) in, and the reorder between that layout and HWIO.
struct ConvPrimitive {
  dnnl::primitive primitive;
  memory::desc scratchpad;
  memory::desc src, dst, weights_user, weights;
  bool reorder = false;
  dnnl::reorder weights_reorder;  // HWIO -> weights, or back for kBackwardWeights.
  memory::desc reorder_scratchpad;
};

std::string CacheKey(Kind kind, memory::data_type type, const Conv2DGeometry& g, int threads) {
  return absl::StrCat(static_cast<int>(kind), "|", static_cast<int>(type), "|", g.batch, ",",
                      g.rows.input, ",", g.cols.input, ",", g.in_depth, "|", g.rows.filter, ",",
                      g.cols.filter, ",", g.out_depth, "|", g.rows.stride, ",", g.cols.stride,
                      "|", g.rows.dilation, ",", g.cols.dilation, "|", g.rows.pad_before, ",",
                      g.rows.pad_after, ",", g.cols.pad_before, ",", g.cols.pad_after, "|",
                      threads);
}

absl::StatusOr<ConvPrimitive> MakeConv(Kind kind, memory::data_type type,
                                       const Conv2DGeometry& g) {
  using tag = memory::format_tag;
  ConvPrimitive c;
  c.src = memory::desc({g.batch, g.in_depth, g.rows.input, g.cols.input}, type, tag::nhwc);
  c.dst = memory::desc({g.batch, g.out_depth, g.rows.output, g.cols.output}, type, tag::nhwc);
  const memory::dims wdims = {g.out_depth, g.in_depth, g.rows.filter, g.cols.filter};
  c.weights_user = memory::desc(wdims, type, tag::hwio);
  const memory::desc weights_any(wdims, type, tag::any);
  const memory::dims strides = {g.rows.stride, g.cols.stride};
  // oneDNN counts dilation from 0 (no gaps); TensorFlow from 1.
  const memory::dims dilates = {g.rows.dilation - 1, g.cols.dilation - 1};
  const memory::dims pad_l = {g.rows.pad_before, g.cols.pad_before};
  const memory::dims pad_r = {g.rows.pad_after, g.cols.pad_after};
  const dnnl::primitive_attr attr = onednn::UserScratchpadAttr();
  const dnnl::engine& engine = onednn::CpuEngine();
  const auto algo = dnnl::algorithm::convolution_direct;

  TFD_ONEDNN_ASSIGN_OR_RETURN(
      auto fwd, dnnl::convolution_forward::primitive_desc(
                    dnnl::convolution_forward::desc(dnnl::prop_kind::forward_training, algo,
                                                    c.src, weights_any, c.dst, strides,
                                                    dilates, pad_l, pad_r),
                    attr, engine));
  switch (kind) {
    case Kind::kForward: {
      c.weights = fwd.weights_desc();
      c.scratchpad = fwd.scratchpad_desc();
      TFD_ONEDNN_ASSIGN_OR_RETURN(c.primitive, dnnl::convolution_forward(fwd));
      break;
    }
    case Kind::kBackwardData: {
      TFD_ONEDNN_ASSIGN_OR_RETURN(
          auto pd, dnnl::convolution_backward_data::primitive_desc(
                       dnnl::convolution_backward_data::desc(algo, c.src, weights_any, c.dst,
                                                             strides, dilates, pad_l, pad_r),
                       attr, engine, fwd));
      c.weights = pd.weights_desc();
      c.scratchpad = pd.scratchpad_desc();
      TFD_ONEDNN_ASSIGN_OR_RETURN(c.primitive, dnnl::convolution_backward_data(pd));
      break;
    }
    case Kind::kBackwardWeights: {
      TFD_ONEDNN_ASSIGN_OR_RETURN(
          auto pd, dnnl::convolution_backward_weights::primitive_desc(
                       dnnl::convolution_backward_weights::desc(
                           algo, c.src, weights_any, c.dst, strides, dilates, pad_l, pad_r),
                       attr, engine, fwd));
      c.weights = pd.diff_weights_desc();
      c.scratchpad = pd.scratchpad_desc();
      TFD_ONEDNN_ASSIGN_OR_RETURN(c.primitive, dnnl::convolution_backward_weights(pd));
      break;
    }
  }
  c.reorder = c.weights != c.weights_user;
  if (c.reorder) {
    const bool to_user = kind == Kind::kBackwardWeights;
    TFD_ONEDNN_ASSIGN_OR_RETURN(
        auto rpd, dnnl::reorder::primitive_desc(engine, to_user ? c.weights : c.weights_user,
                                                engine, to_user ? c.weights_user : c.weights,
                                                attr));
    c.reorder_scratchpad = rpd.scratchpad_desc();
    TFD_ONEDNN_ASSIGN_OR_RETURN(c.weights_reorder, dnnl::reorder(rpd));
  }
  return c;
}

absl::StatusOr<std::shared_ptr<const ConvPrimitive>> GetConv(Kind kind, DataType dtype,
                                                             const Conv2DGeometry& g,
                                                             int threads) {
  static auto* cache = new onednn::PrimitiveCache<ConvPrimitive>();
  TFD_ASSIGN_OR_RETURN(memory::data_type type, onednn::OneDnnType(dtype));
  return cache->GetOrCreate(CacheKey(kind, type, g, threads),
                            [&] { return MakeConv(kind, type, g); });
}

// About one cycle per multiply-add, the same for all three passes
// (Note [Small primitives] in onednn_util.h).
int64_t ConvCost(const Conv2DGeometry& g) {
  return g.batch * g.rows.output * g.cols.output * g.out_depth * g.in_depth * g.rows.filter *
         g.cols.filter;
}

// A buffer for the filter in the primitive's layout.
absl::StatusOr<Tensor> WeightsBuffer(const ConvPrimitive& c) {
  return Tensor::Allocate(DT_UINT8, {static_cast<int64_t>(c.weights.get_size())});
}

// Runs a forward or backward-data convolution, whose filter is an input.
absl::Status RunWithFilterInput(Kind kind, ThreadPool* pool, const Conv2DGeometry& g,
                                DataType dtype, const void* filter, int filter_arg, int in_arg,
                                const void* in, int out_arg, void* out) {
  onednn::OmpThreadsScope threads(pool, ConvCost(g));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<const ConvPrimitive> c,
                       GetConv(kind, dtype, g, threads.num_threads()));
  const memory::desc* weights_md = &c->weights_user;
  const void* weights = filter;
  Tensor reordered;
  if (c->reorder) {
    TFD_ASSIGN_OR_RETURN(reordered, WeightsBuffer(*c));
    TFD_RETURN_IF_ERROR(onednn::Run(c->weights_reorder, c->reorder_scratchpad,
                                    {{DNNL_ARG_FROM, &c->weights_user, filter},
                                     {DNNL_ARG_TO, &c->weights, reordered.raw_data()}}));
    weights_md = &c->weights;
    weights = reordered.raw_data();
  }
  const memory::desc* in_md = kind == Kind::kForward ? &c->src : &c->dst;
  const memory::desc* out_md = kind == Kind::kForward ? &c->dst : &c->src;
  return onednn::Run(c->primitive, c->scratchpad,
                     {{filter_arg, weights_md, weights}, {in_arg, in_md, in}, {out_arg, out_md, out}});
}

}  // namespace

absl::Status OneDnnConv2D(ThreadPool* pool, const Conv2DGeometry& g, DataType dtype,
                          const void* input, const void* filter, void* output) {
  return RunWithFilterInput(Kind::kForward, pool, g, dtype, filter, DNNL_ARG_WEIGHTS,
                            DNNL_ARG_SRC, input, DNNL_ARG_DST, output);
}

absl::Status OneDnnConv2DBackpropInput(ThreadPool* pool, const Conv2DGeometry& g,
                                       DataType dtype, const void* filter,
                                       const void* out_backprop, void* in_backprop) {
  return RunWithFilterInput(Kind::kBackwardData, pool, g, dtype, filter, DNNL_ARG_WEIGHTS,
                            DNNL_ARG_DIFF_DST, out_backprop, DNNL_ARG_DIFF_SRC, in_backprop);
}

absl::Status OneDnnConv2DBackpropFilter(ThreadPool* pool, const Conv2DGeometry& g,
                                        DataType dtype, const void* input,
                                        const void* out_backprop, void* filter_backprop) {
  onednn::OmpThreadsScope threads(pool, ConvCost(g));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<const ConvPrimitive> c,
                       GetConv(Kind::kBackwardWeights, dtype, g, threads.num_threads()));
  const memory::desc* diff_weights_md = &c->weights_user;
  void* diff_weights = filter_backprop;
  Tensor blocked_buffer;
  if (c->reorder) {
    TFD_ASSIGN_OR_RETURN(blocked_buffer, WeightsBuffer(*c));
    diff_weights_md = &c->weights;
    diff_weights = blocked_buffer.raw_data();
  }
  TFD_RETURN_IF_ERROR(onednn::Run(c->primitive, c->scratchpad,
                                  {{DNNL_ARG_SRC, &c->src, input},
                                   {DNNL_ARG_DIFF_DST, &c->dst, out_backprop},
                                   {DNNL_ARG_DIFF_WEIGHTS, diff_weights_md, diff_weights}}));
  if (!c->reorder) return absl::OkStatus();
  return onednn::Run(c->weights_reorder, c->reorder_scratchpad,
                     {{DNNL_ARG_FROM, &c->weights, diff_weights},
                      {DNNL_ARG_TO, &c->weights_user, filter_backprop}});
}

}  // namespace tfd
