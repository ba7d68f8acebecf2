#include "core/kernels/cpu/matmul_direct.h"

#include <algorithm>
#include <vector>

namespace tfd {
namespace {

// op(y) as a row-major [k, n] float matrix: rows are what the inner loop
// walks, so the loop over n reads contiguous memory (and vectorizes) for
// either layout of y.
template <typename T>
void LoadRhs(const T* y, const MatMulDims& p, float* rows) {
  for (int64_t l = 0; l < p.k; ++l) {
    for (int64_t j = 0; j < p.n; ++j) {
      rows[l * p.n + j] = static_cast<float>(p.adj_y ? y[j * p.k + l] : y[l * p.n + j]);
    }
  }
}

// One output matrix: out[i, :] = sum over l of op(x)[i, l] * rows[l, :],
// the terms added in order of l.
template <typename T>
void OneProduct(const T* x, const float* rows, const MatMulDims& p, float* __restrict acc,
                T* out) {
  for (int64_t i = 0; i < p.m; ++i) {
    std::fill(acc, acc + p.n, 0.0f);
    for (int64_t l = 0; l < p.k; ++l) {
      const float a = static_cast<float>(p.adj_x ? x[l * p.m + i] : x[i * p.k + l]);
      const float* __restrict row = rows + l * p.n;
      for (int64_t j = 0; j < p.n; ++j) acc[j] += a * row[j];  // Vectorized.
    }
    for (int64_t j = 0; j < p.n; ++j) out[i * p.n + j] = T(acc[j]);
  }
}

template <typename T>
void Run(const MatMulBCast& bcast, const MatMulDims& p, const T* x, const T* y, T* out) {
  // On the stack when they fit: one malloc would cost more than the
  // arithmetic of the smallest products.
  float stack_rows[kDirectMatMulStackFloats];
  float stack_acc[kDirectMatMulStackFloats];
  std::vector<float> heap_rows, heap_acc;
  float* rows = stack_rows;
  float* acc = stack_acc;
  if (p.k * p.n > kDirectMatMulStackFloats) {
    heap_rows.resize(p.k * p.n);
    rows = heap_rows.data();
  }
  if (p.n > kDirectMatMulStackFloats) {
    heap_acc.resize(p.n);
    acc = heap_acc.data();
  }
  const int64_t batches = bcast.output_batch_size();
  int64_t loaded = -1;  // The y batch in `rows`.
  for (int64_t b = 0; b < batches; ++b) {
    const int64_t yb = bcast.y_batch_index(b);
    if (yb != loaded) {
      LoadRhs(y + yb * p.k * p.n, p, rows);
      loaded = yb;
    }
    OneProduct(x + bcast.x_batch_index(b) * p.m * p.k, rows, p, acc, out + b * p.m * p.n);
  }
}

}  // namespace

bool PrefersDirectMatMul(int64_t batches, const MatMulDims& dims) {
  // Each factor is checked first so the product cannot overflow.
  const int64_t limit = kDirectMatMulMaxMacs;
  if (batches > limit || dims.m > limit || dims.n > limit || dims.k > limit) return false;
  return batches * dims.m * dims.n * dims.k <= limit;
}

void DirectBatchMatMul(const MatMulBCast& bcast, const MatMulDims& dims, const float* x,
                       const float* y, float* out) {
  Run(bcast, dims, x, y, out);
}

void DirectBatchMatMul(const MatMulBCast& bcast, const MatMulDims& dims, const half* x,
                       const half* y, half* out) {
  Run(bcast, dims, x, y, out);
}

void DirectBatchMatMul(const MatMulBCast& bcast, const MatMulDims& dims, const bfloat16* x,
                       const bfloat16* y, bfloat16* out) {
  Run(bcast, dims, x, y, out);
}

}  // namespace tfd
