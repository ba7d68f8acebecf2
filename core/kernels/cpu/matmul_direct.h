// Matrix products too small to pay for a library call, computed by a plain
// loop. oneDNN's matmul costs a few microseconds per call before any
// arithmetic (a primitive-cache key built as a string, a cache lookup under
// a mutex, memory objects, a stream); a [1,1]x[1,1] product is one
// multiply. Below kDirectMatMulMaxMacs multiply-adds the loop is faster
// (core/kernels/cpu:matmul_launcher_benchmark measures both per size).
//
// Numbers: float, half and bfloat16 accumulate in float, one sum per output
// element in order of the inner dimension, and round once at the end, as
// the library path does (half runs there as float, bfloat16 accumulates in
// float inside oneDNN). Results agree with it to float rounding.
//
// Thread safety: pure functions; the loop runs on the calling thread.
#ifndef TFD_CORE_KERNELS_CPU_MATMUL_DIRECT_H_
#define TFD_CORE_KERNELS_CPU_MATMUL_DIRECT_H_

#include <cstdint>

#include "core/framework/types.h"
#include "core/kernels/matmul_bcast.h"

namespace tfd {

// Products of at most this many multiply-adds in all (every batch) take the
// direct loop: a [24,24]x[24,24] product (13824) runs in about a quarter
// of oneDNN's time on one core (matmul_launcher_benchmark), so the bound
// leaves room for a library that would use several cores.
constexpr int64_t kDirectMatMulMaxMacs = 16384;

// The loop's buffers (op(y) as float rows, one output row) stay on the stack
// up to this many floats each, and take the heap beyond.
constexpr int64_t kDirectMatMulStackFloats = 4096;

// The logical problem: op(x) is [m, k], op(y) is [k, n]; adj_* says the
// stored operand is transposed.
struct MatMulDims {
  int64_t m, n, k;
  bool adj_x, adj_y;
};

// Whether `batches` products of `dims` are small enough for the loop.
bool PrefersDirectMatMul(int64_t batches, const MatMulDims& dims);

// out[b] = op(x[bx]) · op(y[by]) for every output batch b of `bcast`, with
// row-major x, y, out as in LaunchBatchMatMul. Any size works (tests run
// it beyond the threshold, against the library).
void DirectBatchMatMul(const MatMulBCast& bcast, const MatMulDims& dims, const float* x,
                       const float* y, float* out);
void DirectBatchMatMul(const MatMulBCast& bcast, const MatMulDims& dims, const half* x,
                       const half* y, half* out);
void DirectBatchMatMul(const MatMulBCast& bcast, const MatMulDims& dims, const bfloat16* x,
                       const bfloat16* y, bfloat16* out);

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CPU_MATMUL_DIRECT_H_
