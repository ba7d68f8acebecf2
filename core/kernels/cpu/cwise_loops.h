// Loop skeletons of the element-wise CPU kernels, shared by the unary,
// binary, comparison and select kernels.
//
// Functors work on a "compute type": the element type itself, except for
// half and bfloat16, which are widened to float (they are storage formats;
// TensorFlow computes them in float too) and rounded back on store.
//
// Binary loops follow a BroadcastPlan (core/kernels/broadcast.h): the
// innermost merged dimension is looped contiguously with one of four
// stride patterns (both inputs spanning, either one broadcast, both
// broadcast), so same-shape, scalar-vs-tensor and row/column broadcasts all
// run as simple vectorizable loops; the outer dimensions are split across
// the device's thread pool.
#ifndef TFD_CORE_KERNELS_CPU_CWISE_LOOPS_H_
#define TFD_CORE_KERNELS_CPU_CWISE_LOOPS_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#include "core/device/cpu/thread_pool.h"
#include "core/framework/float16.h"
#include "core/kernels/broadcast.h"

// The dtypes the math ops have kernels for (bool aside), as
// TFD_MATH_TYPES(M) calling M(T) for each.
#define TFD_MATH_TYPES(M)                                                            \
  M(float) M(double) M(::tfd::half) M(::tfd::bfloat16) M(uint8_t) M(int8_t) M(int32_t) \
      M(int64_t)

namespace tfd {
namespace internal {

template <typename T>
struct ComputeTypeOf {
  using type = T;
};
template <>
struct ComputeTypeOf<half> {
  using type = float;
};
template <>
struct ComputeTypeOf<bfloat16> {
  using type = float;
};
template <typename T>
using ComputeType = typename ComputeTypeOf<T>::type;

template <typename T>
inline ComputeType<T> Widen(T v) {
  return static_cast<ComputeType<T>>(v);
}
template <typename Out, typename C>
inline Out Narrow(C v) {
  return static_cast<Out>(v);
}

// Elements per work unit: large enough to amortize scheduling, small
// enough that one long row still splits across threads.
constexpr int64_t kCwiseBlock = 16384;
// Rows shorter than this take the tiled path of Note [Short broadcast rows].
constexpr int64_t kShortRow = 1024;

// out[i] = f(x[i]) for n elements; `cost` is rough cycles per element.
template <typename In, typename Out, typename F>
void UnaryLoop(ThreadPool* pool, const In* x, Out* out, int64_t n, int64_t cost, F f) {
  pool->ParallelFor(n, cost, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = Narrow<Out>(f(Widen(x[i])));
  });
}

// n outputs of one row of a binary broadcast; sa, sb are 0 or 1.
template <typename In, typename Out, typename F>
inline void BinaryRow(const In* a, int64_t sa, const In* b, int64_t sb, Out* out, int64_t n,
                      F f) {
  if (sa == 1 && sb == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = Narrow<Out>(f(Widen(a[i]), Widen(b[i])));
  } else if (sa == 0 && sb == 1) {
    const auto av = Widen(a[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = Narrow<Out>(f(av, Widen(b[i])));
  } else if (sa == 1 && sb == 0) {
    const auto bv = Widen(b[0]);
    for (int64_t i = 0; i < n; ++i) out[i] = Narrow<Out>(f(Widen(a[i]), bv));
  } else {
    std::fill_n(out, n, Narrow<Out>(f(Widen(a[0]), Widen(b[0]))));
  }
}

// out = f(a, b) with a and b broadcast to out's shape as `plan` says
// (plan.strides[0] for a, [1] for b). `cost`: rough cycles per element.
template <typename In, typename Out, typename F>
void BinaryLoop(ThreadPool* pool, const BroadcastPlan& plan, const In* a, const In* b,
                Out* out, int64_t cost, F f) {
  const int rank = static_cast<int>(plan.dims.size());
  if (rank == 0) {  // One element.
    out[0] = Narrow<Out>(f(Widen(a[0]), Widen(b[0])));
    return;
  }
  const BroadcastDims& dims = plan.dims;
  const BroadcastDims& stride_a = plan.strides[0];
  const BroadcastDims& stride_b = plan.strides[1];
  const int64_t inner = dims.back();
  int64_t rows = 1;
  for (int d = 0; d + 1 < rank; ++d) rows *= dims[d];
  if (rows == 0 || inner == 0) return;
  if (rank == 2 && inner < kShortRow) {
    // Note [Short broadcast rows]: [rows, inner] op [inner] with a small
    // inner size (a bias over few channels) would run inner-sized loops.
    // Instead, the broadcast row is tiled k times and k rows are done as
    // one contiguous loop.
    const bool a_full = stride_a[0] == inner && stride_a[1] == 1;
    const bool b_full = stride_b[0] == inner && stride_b[1] == 1;
    const bool a_row = stride_a[0] == 0 && stride_a[1] == 1;
    const bool b_row = stride_b[0] == 0 && stride_b[1] == 1;
    if ((a_full && b_row) || (a_row && b_full)) {
      const int64_t k = kShortRow / inner;
      std::unique_ptr<In[]> tiled(new In[k * inner]);  // vector<bool> has no data().
      const In* row = a_row ? a : b;
      for (int64_t i = 0; i < k * inner; ++i) tiled[i] = row[i % inner];
      const int64_t groups = (rows + k - 1) / k;
      pool->ParallelFor(groups, k * inner * cost, [&](int64_t begin, int64_t end) {
        for (int64_t g = begin; g < end; ++g) {
          const int64_t first = g * k * inner;
          const int64_t n = std::min(k, rows - g * k) * inner;
          BinaryRow(a_row ? tiled.get() : a + first, 1, b_row ? tiled.get() : b + first, 1,
                    out + first, n, f);
        }
      });
      return;
    }
  }
  const int64_t blocks = (inner + kCwiseBlock - 1) / kCwiseBlock;
  const int64_t sa = stride_a[rank - 1];
  const int64_t sb = stride_b[rank - 1];
  pool->ParallelFor(
      rows * blocks, std::min(inner, kCwiseBlock) * cost, [&](int64_t begin, int64_t end) {
        // The outer index of the current row and the inputs' offsets there,
        // decomposed once per shard and then advanced with carries (rows
        // may be only a few elements long).
        std::vector<int64_t> index(rank - 1, 0);
        int64_t row = begin / blocks;
        int64_t offset_a = 0, offset_b = 0;
        {
          int64_t rest = row;
          for (int d = rank - 2; d >= 0; --d) {
            index[d] = rest % dims[d];
            rest /= dims[d];
            offset_a += index[d] * stride_a[d];
            offset_b += index[d] * stride_b[d];
          }
        }
        for (int64_t u = begin; u < end; ++u) {
          const int64_t u_row = blocks == 1 ? u : u / blocks;
          if (u_row != row) {  // Next row: increment the index with carries.
            row = u_row;
            for (int d = rank - 2; d >= 0; --d) {
              offset_a += stride_a[d];
              offset_b += stride_b[d];
              if (++index[d] < dims[d]) break;
              offset_a -= index[d] * stride_a[d];
              offset_b -= index[d] * stride_b[d];
              index[d] = 0;
            }
          }
          const int64_t col = blocks == 1 ? 0 : (u % blocks) * kCwiseBlock;
          BinaryRow(a + offset_a + col * sa, sa, b + offset_b + col * sb, sb,
                    out + row * inner + col, std::min(kCwiseBlock, inner - col), f);
        }
      });
}

// out = f(a, b, c) with all three broadcast as `plan` says; a plain
// strided loop (SelectV2 is not a hot path).
template <typename A, typename B, typename C, typename Out, typename F>
void TernaryLoop(ThreadPool* pool, const BroadcastPlan& plan, const A* a, const B* b,
                 const C* c, Out* out, F f) {
  const int rank = static_cast<int>(plan.dims.size());
  int64_t n = 1;
  for (int64_t d : plan.dims) n *= d;
  pool->ParallelFor(n, 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      int64_t oa = 0, ob = 0, oc = 0, rest = i;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t k = rest % plan.dims[d];
        rest /= plan.dims[d];
        oa += k * plan.strides[0][d];
        ob += k * plan.strides[1][d];
        oc += k * plan.strides[2][d];
      }
      out[i] = f(a[oa], b[ob], c[oc]);
    }
  });
}

}  // namespace internal
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CPU_CWISE_LOOPS_H_
