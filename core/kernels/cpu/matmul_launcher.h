// The CPU engine of every matrix product in tfd: MatMul, BatchMatMul,
// BatchMatMulV2, and the GEMMs of the float64 convolution path.
//
// Products of a few thousand multiply-adds or fewer in float, half and
// bfloat16 run as a plain loop (matmul_direct.h): cheaper than setting up a
// library call. Otherwise float and bfloat16 run on oneDNN's matmul
// primitive (cached by shape),
// half is computed in float (oneDNN 2.x has no half matmul on CPU), and
// double runs on Eigen's GEMM, split over the device's thread pool (oneDNN
// has no f64 matmul).
//
// Thread safety: may be called from many threads at once.
//
//   // x: [8, 32, 64], y: [64, 16] -> out: [8, 32, 16] (y broadcast)
//   Tensor out(DT_FLOAT, {8, 32, 16});
//   TFD_RETURN_IF_ERROR(LaunchBatchMatMul(ctx.thread_pool(), x, y, false, false, &out));
#ifndef TFD_CORE_KERNELS_CPU_MATMUL_LAUNCHER_H_
#define TFD_CORE_KERNELS_CPU_MATMUL_LAUNCHER_H_

#include "absl/status/status.h"
#include "core/device/cpu/thread_pool.h"
#include "core/framework/tensor.h"

namespace tfd {

// Which code computes a product. kAuto takes the direct loop for small
// float, half and bfloat16 products and the library otherwise; the others
// force one (tests compare them; kDirect falls back to the library for
// double, which has no direct loop).
enum class MatMulEngine { kAuto, kLibrary, kDirect };

// out[b] = op(x[bx]) · op(y[by]) for every output batch b, where op
// transposes when adj_x / adj_y is set and bx, by follow BatchMatMulV2's
// broadcasting of the batch dimensions (rank may differ; missing leading
// batch dims count as 1).
//
// x: [..., m, k] ([..., k, m] when adj_x), y: [..., k, n] ([..., n, k] when
// adj_y), out: [batch..., m, n], already allocated, same dtype (float,
// double, half or bfloat16). The shapes must have been validated (the op's
// shape function does); INTERNAL if they do not fit. Errors from oneDNN
// name it.
absl::Status LaunchBatchMatMul(ThreadPool* pool, const Tensor& x, const Tensor& y, bool adj_x,
                               bool adj_y, Tensor* out,
                               MatMulEngine engine = MatMulEngine::kAuto);

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CPU_MATMUL_LAUNCHER_H_
