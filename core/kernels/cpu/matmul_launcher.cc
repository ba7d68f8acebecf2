#include "core/kernels/cpu/matmul_launcher.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "Eigen/Core"
#include "absl/strings/str_join.h"
#include "core/kernels/cpu/matmul_direct.h"
#include "core/kernels/cpu/onednn_util.h"
#include "core/kernels/matmul_bcast.h"

namespace tfd {
namespace {

using dnnl::memory;

struct Problem {
  int64_t m, n, k;
  bool adj_x, adj_y;
};

// One operand as oneDNN sees it: logical dims [batch..., rows, cols] and
// the strides of the stored (possibly transposed) layout.
struct Operand {
  memory::dims dims;
  memory::dims strides;
};

// Describes a stored row-major operand of shape `stored` as the logical
// matrix [rows, cols] (transposed when `adj`), with its batch dimensions
// given by `batch` (already padded or collapsed by the caller).
Operand Describe(const memory::dims& batch, int64_t rows, int64_t cols, bool adj) {
  Operand op;
  op.dims = batch;
  op.dims.push_back(rows);
  op.dims.push_back(cols);
  const int64_t matrix = rows * cols;
  op.strides.assign(batch.size(), 0);
  int64_t stride = std::max<int64_t>(matrix, 1);
  for (int i = static_cast<int>(batch.size()) - 1; i >= 0; --i) {
    op.strides[i] = stride;
    stride *= std::max<int64_t>(batch[i], 1);
  }
  // Stored [rows, cols] row-major, or [cols, rows] when adjointed.
  op.strides.push_back(adj ? 1 : cols);
  op.strides.push_back(adj ? rows : 1);
  return op;
}

struct MatMulPrimitive {
  dnnl::matmul primitive;
  memory::desc x, y, out, scratchpad;
};

std::string CacheKey(memory::data_type type, const Operand& x, const Operand& y,
                     const Operand& out, int threads) {
  return absl::StrCat(static_cast<int>(type), "|", absl::StrJoin(x.dims, ","), "/",
                      absl::StrJoin(x.strides, ","), "|", absl::StrJoin(y.dims, ","), "/",
                      absl::StrJoin(y.strides, ","), "|", absl::StrJoin(out.dims, ","), "|",
                      threads);
}

// Runs the product on oneDNN. x, y, out point at float or bfloat16 data.
absl::Status OneDnnMatMul(ThreadPool* pool, memory::data_type type, const MatMulBCast& bcast,
                          const Problem& p, const void* x, const void* y, void* out) {
  // Batch dims as oneDNN sees them: one collapsed dim when no broadcasting
  // is needed (or one side has a single batch), else the full padded shape.
  memory::dims xb, yb, ob;
  const int64_t batches = bcast.output_batch_size();
  const TensorShape& out_batch = bcast.output_batch_shape();
  if (out_batch.rank() == 0) {
    // 2-D: no batch dims at all.
  } else if (!bcast.IsBroadcastingRequired() ||
             ((bcast.x_batch_size() == 1 || bcast.x_batch_size() == batches) &&
              (bcast.y_batch_size() == 1 || bcast.y_batch_size() == batches))) {
    xb = {bcast.x_batch_size()};
    yb = {bcast.y_batch_size()};
    ob = {batches};
  } else {
    if (out_batch.rank() + 2 > DNNL_MAX_NDIMS) {
      return Unimplemented("BatchMatMulV2: broadcasting over ", out_batch.rank(),
                           " batch dimensions is not supported (at most ",
                           DNNL_MAX_NDIMS - 2, ")");
    }
    // Walk the broadcast shape: a dim where an operand has a single slice
    // is 1 for it. Recover each operand's padded dims from the index maps.
    const int r = out_batch.rank();
    xb.assign(r, 1);
    yb.assign(r, 1);
    ob.assign(out_batch.dims().begin(), out_batch.dims().end());
    std::vector<bool> x_reduced(r, false), y_reduced(r, false);
    for (int64_t a : bcast.x_reduce_axes()) x_reduced[a] = true;
    for (int64_t a : bcast.y_reduce_axes()) y_reduced[a] = true;
    for (int i = 0; i < r; ++i) {
      xb[i] = x_reduced[i] ? 1 : ob[i];
      yb[i] = y_reduced[i] ? 1 : ob[i];
    }
  }
  const Operand xo = Describe(xb, p.m, p.k, p.adj_x);
  const Operand yo = Describe(yb, p.k, p.n, p.adj_y);
  const Operand oo = Describe(ob, p.m, p.n, false);

  // One cycle per multiply-add (Note [Small primitives] in onednn_util.h).
  onednn::OmpThreadsScope threads(pool, std::max<int64_t>(batches, 1) * p.m * p.n * p.k);
  static auto* cache = new onednn::PrimitiveCache<MatMulPrimitive>();
  TFD_ASSIGN_OR_RETURN(
      std::shared_ptr<const MatMulPrimitive> mm,
      cache->GetOrCreate(
          CacheKey(type, xo, yo, oo, threads.num_threads()),
          [&]() -> absl::StatusOr<MatMulPrimitive> {
            MatMulPrimitive made;
            made.x = onednn::StridedDesc(xo.dims, xo.strides, type);
            made.y = onednn::StridedDesc(yo.dims, yo.strides, type);
            made.out = onednn::StridedDesc(oo.dims, oo.strides, type);
            TFD_ONEDNN_ASSIGN_OR_RETURN(
                auto pd, dnnl::matmul::primitive_desc(
                             dnnl::matmul::desc(made.x, made.y, made.out),
                             onednn::UserScratchpadAttr(), onednn::CpuEngine()));
            made.scratchpad = pd.scratchpad_desc();
            TFD_ONEDNN_ASSIGN_OR_RETURN(made.primitive, dnnl::matmul(pd));
            return made;
          }));
  return onednn::Run(mm->primitive, mm->scratchpad,
                     {{DNNL_ARG_SRC, &mm->x, x},
                      {DNNL_ARG_WEIGHTS, &mm->y, y},
                      {DNNL_ARG_DST, &mm->out, out}});
}

// Eigen's GEMM on rows [r0, r1) of one output matrix.
template <typename T>
void EigenRows(const T* x, const T* y, T* out, const Problem& p, int64_t r0, int64_t r1) {
  using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  using ConstMap = Eigen::Map<const Matrix>;
  const ConstMap xs(x, p.adj_x ? p.k : p.m, p.adj_x ? p.m : p.k);
  const ConstMap ys(y, p.adj_y ? p.n : p.k, p.adj_y ? p.k : p.n);
  Eigen::Map<Matrix> os(out, p.m, p.n);
  auto rows = os.middleRows(r0, r1 - r0);
  if (!p.adj_x && !p.adj_y) {
    rows.noalias() = xs.middleRows(r0, r1 - r0) * ys;
  } else if (!p.adj_x) {
    rows.noalias() = xs.middleRows(r0, r1 - r0) * ys.transpose();
  } else if (!p.adj_y) {
    rows.noalias() = xs.middleCols(r0, r1 - r0).transpose() * ys;
  } else {
    rows.noalias() = xs.middleCols(r0, r1 - r0).transpose() * ys.transpose();
  }
}

// Splits all (batch, row) pairs over the pool; each shard runs Eigen on
// whole row blocks of the matrices it touches.
template <typename T>
void EigenBatchMatMul(ThreadPool* pool, const MatMulBCast& bcast, const Problem& p, const T* x,
                      const T* y, T* out) {
  const int64_t batches = bcast.output_batch_size();
  pool->ParallelFor(batches * p.m, p.n * p.k, [&](int64_t begin, int64_t end) {
    while (begin < end) {
      const int64_t b = begin / p.m;
      const int64_t r0 = begin % p.m;
      const int64_t r1 = std::min(p.m, r0 + (end - begin));
      EigenRows(x + bcast.x_batch_index(b) * p.m * p.k, y + bcast.y_batch_index(b) * p.k * p.n,
                out + b * p.m * p.n, p, r0, r1);
      begin += r1 - r0;
    }
  });
}

}  // namespace

absl::Status LaunchBatchMatMul(ThreadPool* pool, const Tensor& x, const Tensor& y, bool adj_x,
                               bool adj_y, Tensor* out, MatMulEngine engine) {
  if (x.rank() < 2 || y.rank() < 2 || out->rank() < 2 || x.dtype() != y.dtype() ||
      x.dtype() != out->dtype()) {
    return Internal("LaunchBatchMatMul: bad operands ", x.shape().DebugString(), " ",
                    y.shape().DebugString(), " -> ", out->shape().DebugString());
  }
  const Problem p{x.dim(x.rank() - (adj_x ? 1 : 2)), y.dim(y.rank() - (adj_y ? 2 : 1)),
                  x.dim(x.rank() - (adj_x ? 2 : 1)), adj_x, adj_y};
  const MatMulBCast bcast(x.shape(), y.shape());
  TensorShape expected = bcast.output_batch_shape();
  expected.AddDim(p.m);
  expected.AddDim(p.n);
  if (!bcast.IsValid() || expected != out->shape() ||
      y.dim(y.rank() - (adj_y ? 1 : 2)) != p.k) {
    return Internal("LaunchBatchMatMul: shapes do not fit: ", x.shape().DebugString(), " ",
                    y.shape().DebugString(), " -> ", out->shape().DebugString());
  }
  if (out->NumElements() == 0) return absl::OkStatus();
  if (p.k == 0) {  // Empty sums: zeros (all-zero bits in every dtype here).
    std::memset(out->raw_data(), 0, out->TotalBytes());
    return absl::OkStatus();
  }
  const MatMulDims dims{p.m, p.n, p.k, adj_x, adj_y};
  const bool direct =
      engine == MatMulEngine::kDirect ||
      (engine == MatMulEngine::kAuto && PrefersDirectMatMul(bcast.output_batch_size(), dims));
  if (direct) {
    switch (x.dtype()) {
      case DT_FLOAT:
        DirectBatchMatMul(bcast, dims, x.data<float>(), y.data<float>(), out->data<float>());
        return absl::OkStatus();
      case DT_HALF:
        DirectBatchMatMul(bcast, dims, x.data<half>(), y.data<half>(), out->data<half>());
        return absl::OkStatus();
      case DT_BFLOAT16:
        DirectBatchMatMul(bcast, dims, x.data<bfloat16>(), y.data<bfloat16>(),
                          out->data<bfloat16>());
        return absl::OkStatus();
      default:
        break;  // The library's.
    }
  }
  switch (x.dtype()) {
    case DT_FLOAT:
    case DT_BFLOAT16: {
      TFD_ASSIGN_OR_RETURN(memory::data_type type, onednn::OneDnnType(x.dtype()));
      return OneDnnMatMul(pool, type, bcast, p, x.raw_data(), y.raw_data(), out->raw_data());
    }
    case DT_HALF: {
      TFD_ASSIGN_OR_RETURN(Tensor xf, onednn::ToFloat(pool, x));
      TFD_ASSIGN_OR_RETURN(Tensor yf, onednn::ToFloat(pool, y));
      TFD_ASSIGN_OR_RETURN(Tensor of, Tensor::Allocate(DT_FLOAT, out->shape()));
      TFD_RETURN_IF_ERROR(OneDnnMatMul(pool, memory::data_type::f32, bcast, p, xf.raw_data(),
                                       yf.raw_data(), of.raw_data()));
      onednn::FromFloat(pool, of, out);
      return absl::OkStatus();
    }
    case DT_DOUBLE:
      EigenBatchMatMul(pool, bcast, p, x.data<double>(), y.data<double>(), out->data<double>());
      return absl::OkStatus();
    default:
      return Unimplemented("matrix product of ", DataTypeName(x.dtype()), " on CPU");
  }
}

}  // namespace tfd
