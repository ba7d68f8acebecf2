#include "core/kernels/cpu/pooling_onednn.h"

#include <string>

#include "core/framework/tensor.h"
#include "core/kernels/cpu/onednn_util.h"

namespace tfd {
namespace {

using dnnl::memory;

// What a cached entry computes.
enum class Pass { kMaxForward, kAvgForward, kMaxTraining, kAvgBackward, kMaxBackward };

struct PoolPrimitive {
  dnnl::primitive primitive;
  memory::desc src, dst, workspace, scratchpad;
};

std::string CacheKey(Pass pass, memory::data_type type, const PoolGeometry& g, int threads) {
  return absl::StrCat(static_cast<int>(pass), "|", static_cast<int>(type), "|", g.batch, ",",
                      g.rows.input, ",", g.cols.input, ",", g.depth, "|", g.rows.filter, ",",
                      g.cols.filter, "|", g.rows.stride, ",", g.cols.stride, "|",
                      g.rows.pad_before, ",", g.rows.pad_after, ",", g.cols.pad_before, ",",
                      g.cols.pad_after, "|", threads);
}

absl::StatusOr<PoolPrimitive> MakePool(Pass pass, memory::data_type type,
                                       const PoolGeometry& g) {
  using tag = memory::format_tag;
  PoolPrimitive p;
  p.src = memory::desc({g.batch, g.depth, g.rows.input, g.cols.input}, type, tag::nhwc);
  p.dst = memory::desc({g.batch, g.depth, g.rows.output, g.cols.output}, type, tag::nhwc);
  const memory::dims strides = {g.rows.stride, g.cols.stride};
  const memory::dims kernel = {g.rows.filter, g.cols.filter};
  const memory::dims pad_l = {g.rows.pad_before, g.cols.pad_before};
  const memory::dims pad_r = {g.rows.pad_after, g.cols.pad_after};
  const bool is_max = pass == Pass::kMaxForward || pass == Pass::kMaxTraining ||
                      pass == Pass::kMaxBackward;
  const auto algo = is_max ? dnnl::algorithm::pooling_max
                           : dnnl::algorithm::pooling_avg_exclude_padding;
  // Backward passes and the max workspace need a training forward pass.
  const auto prop = (pass == Pass::kMaxForward || pass == Pass::kAvgForward)
                        ? dnnl::prop_kind::forward_inference
                        : dnnl::prop_kind::forward_training;
  const dnnl::primitive_attr attr = onednn::UserScratchpadAttr();
  const dnnl::engine& engine = onednn::CpuEngine();
  TFD_ONEDNN_ASSIGN_OR_RETURN(
      auto fwd, dnnl::pooling_forward::primitive_desc(
                    dnnl::pooling_forward::desc(prop, algo, p.src, p.dst, strides, kernel,
                                                pad_l, pad_r),
                    attr, engine));
  p.workspace = fwd.workspace_desc();
  if (pass != Pass::kAvgBackward && pass != Pass::kMaxBackward) {
    p.scratchpad = fwd.scratchpad_desc();
    TFD_ONEDNN_ASSIGN_OR_RETURN(p.primitive, dnnl::pooling_forward(fwd));
    return p;
  }
  TFD_ONEDNN_ASSIGN_OR_RETURN(
      auto bwd, dnnl::pooling_backward::primitive_desc(
                    dnnl::pooling_backward::desc(algo, p.src, p.dst, strides, kernel, pad_l,
                                                 pad_r),
                    attr, engine, fwd));
  p.scratchpad = bwd.scratchpad_desc();
  TFD_ONEDNN_ASSIGN_OR_RETURN(p.primitive, dnnl::pooling_backward(bwd));
  return p;
}

absl::StatusOr<std::shared_ptr<const PoolPrimitive>> GetPool(Pass pass, DataType dtype,
                                                             const PoolGeometry& g,
                                                             int threads) {
  static auto* cache = new onednn::PrimitiveCache<PoolPrimitive>();
  TFD_ASSIGN_OR_RETURN(memory::data_type type, onednn::OneDnnType(dtype));
  return cache->GetOrCreate(CacheKey(pass, type, g, threads),
                            [&] { return MakePool(pass, type, g); });
}

// About one cycle per element a window visits (Note [Small primitives] in
// onednn_util.h).
int64_t PoolCost(const PoolGeometry& g) {
  return g.batch * g.rows.output * g.cols.output * g.depth * g.rows.filter * g.cols.filter;
}

}  // namespace

absl::Status OneDnnPool(ThreadPool* pool, PoolKind kind, const PoolGeometry& g, DataType dtype,
                        const void* input, void* output) {
  onednn::OmpThreadsScope threads(pool, PoolCost(g));
  TFD_ASSIGN_OR_RETURN(
      std::shared_ptr<const PoolPrimitive> p,
      GetPool(kind == PoolKind::kMax ? Pass::kMaxForward : Pass::kAvgForward, dtype, g,
              threads.num_threads()));
  return onednn::Run(p->primitive, p->scratchpad,
                     {{DNNL_ARG_SRC, &p->src, input}, {DNNL_ARG_DST, &p->dst, output}});
}

absl::Status OneDnnAvgPoolGrad(ThreadPool* pool, const PoolGeometry& g, DataType dtype,
                               const void* grad, void* in_backprop) {
  onednn::OmpThreadsScope threads(pool, PoolCost(g));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<const PoolPrimitive> p,
                       GetPool(Pass::kAvgBackward, dtype, g, threads.num_threads()));
  return onednn::Run(p->primitive, p->scratchpad,
                     {{DNNL_ARG_DIFF_DST, &p->dst, grad}, {DNNL_ARG_DIFF_SRC, &p->src, in_backprop}});
}

absl::Status OneDnnMaxPoolGrad(ThreadPool* pool, const PoolGeometry& g, DataType dtype,
                               const void* orig_input, const void* grad, void* in_backprop) {
  onednn::OmpThreadsScope threads(pool, PoolCost(g));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<const PoolPrimitive> fwd,
                       GetPool(Pass::kMaxTraining, dtype, g, threads.num_threads()));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<const PoolPrimitive> bwd,
                       GetPool(Pass::kMaxBackward, dtype, g, threads.num_threads()));
  // The recomputed forward output is a by-product; only the workspace
  // (where each maximum sits) feeds the backward pass.
  TFD_ASSIGN_OR_RETURN(Tensor out,
                       Tensor::Allocate(DT_UINT8, {static_cast<int64_t>(fwd->dst.get_size())}));
  TFD_ASSIGN_OR_RETURN(
      Tensor ws, Tensor::Allocate(DT_UINT8, {static_cast<int64_t>(fwd->workspace.get_size())}));
  TFD_RETURN_IF_ERROR(onednn::Run(fwd->primitive, fwd->scratchpad,
                                  {{DNNL_ARG_SRC, &fwd->src, orig_input},
                                   {DNNL_ARG_DST, &fwd->dst, out.raw_data()},
                                   {DNNL_ARG_WORKSPACE, &fwd->workspace, ws.raw_data()}}));
  return onednn::Run(bwd->primitive, bwd->scratchpad,
                     {{DNNL_ARG_DIFF_DST, &bwd->dst, grad},
                      {DNNL_ARG_DIFF_SRC, &bwd->src, in_backprop},
                      {DNNL_ARG_WORKSPACE, &fwd->workspace, ws.raw_data()}});
}

}  // namespace tfd
