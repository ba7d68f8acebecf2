// Glue between tfd's CPU kernels and oneDNN (Debian's libdnnl 2.x).
//
// What it provides:
//   - CpuEngine(): the one CPU engine of the process (thread-safe), and
//     ThreadStream(): a stream per calling thread (oneDNN streams are not
//     thread-safe, and on the CPU they are only a handle).
//   - OmpThreadsScope: Debian builds oneDNN with the OpenMP runtime, so its
//     primitives run on an OpenMP team that the calling thread owns, not on
//     tfd's ThreadPool. The scope sets that team's size to the device's
//     pool size for one kernel call, so a CPU logical device that owns 2 of
//     16 cores uses 2 threads in oneDNN too. See Note [OpenMP and pools].
//   - Memory descriptors from tfd dtypes, shapes and strides.
//   - PrimitiveCache: primitives are costly to create (JIT code generation),
//     so kernels cache them by a key describing shapes, attrs and the
//     thread count.
//   - Run(): executes a primitive with a scratchpad owned by the call, so
//     one cached primitive may run on many threads at once.
//   - TFD_ONEDNN_RETURN_IF_ERROR / TFD_ONEDNN_ASSIGN_OR_RETURN: the oneDNN
//     C++ API reports errors by throwing dnnl::error; the macros turn that
//     into a Status naming oneDNN, the call, file:line and oneDNN's message.
//   - CastToFloat / CastFromFloat: half has no oneDNN kernels in this
//     version, so half kernels compute in float (and bfloat16 ones do
//     where oneDNN refuses a geometry).
//
// Note [OpenMP and pools]: omp_set_num_threads only changes the calling
// thread's next parallel regions, so concurrent kernels on different
// devices do not disturb each other. ThreadPool::ParallelFor runs on the
// same team, so a device's kernels share one set of threads per calling
// thread (Note [Thread budget] in core/device/cpu/thread_budget.h), and
// the team's idle threads sleep instead of spinning (Note [OpenMP spin] in
// core/device/cpu/openmp_spin.h).
//
//   onednn::OmpThreadsScope threads(ctx.thread_pool());
//   TFD_ONEDNN_ASSIGN_OR_RETURN(auto pd, dnnl::matmul::primitive_desc(
//       dnnl::matmul::desc(a, b, c), onednn::UserScratchpadAttr(), onednn::CpuEngine()));
#ifndef TFD_CORE_KERNELS_CPU_ONEDNN_UTIL_H_
#define TFD_CORE_KERNELS_CPU_ONEDNN_UTIL_H_

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/device/cpu/thread_budget.h"
#include "core/device/cpu/thread_pool.h"
#include "core/framework/status.h"
#include "core/framework/tensor.h"
#include "oneapi/dnnl/dnnl.hpp"

namespace tfd {
namespace onednn {

const dnnl::engine& CpuEngine();
dnnl::stream& ThreadStream();

// Sets the calling thread's OpenMP team size to pool->NumThreads() and
// restores the previous value when destroyed.
//
// Note [Small primitives]: a oneDNN call on a team of more than one thread
// opens an OpenMP parallel region, which wakes the team's sleeping threads
// (Note [OpenMP spin]) and waits for the last of them: microseconds, more
// on a loaded machine, which is most of a small convolution's time. Given
// the call's cost (about one cycle per multiply-add or element visited),
// the scope asks for no more threads than ParallelFor would (PlanShards:
// kMinParallelCost cycles per thread), so a small call runs on the calling
// thread alone and oneDNN opens no parallel region at all. The team size
// is part of every primitive cache key, so each size gets its own
// primitive, made for it.
class OmpThreadsScope {
 public:
  explicit OmpThreadsScope(const ThreadPool* pool);
  // For a call of about `cost` cycles (>= 0).
  OmpThreadsScope(const ThreadPool* pool, int64_t cost);
  ~OmpThreadsScope();
  OmpThreadsScope(const OmpThreadsScope&) = delete;
  OmpThreadsScope& operator=(const OmpThreadsScope&) = delete;

  int num_threads() const { return num_threads_; }

 private:
  int previous_;
  int num_threads_;
};

// The oneDNN type of a tfd dtype: float and bfloat16 (the only ones the
// kernels hand to oneDNN). UNIMPLEMENTED for others.
absl::StatusOr<dnnl::memory::data_type> OneDnnType(DataType dtype);

// A descriptor for `dims` laid out with `strides` (in elements).
dnnl::memory::desc StridedDesc(const dnnl::memory::dims& dims, const dnnl::memory::dims& strides,
                               dnnl::memory::data_type type);
// A descriptor for row-major `dims`.
dnnl::memory::desc RowMajorDesc(const dnnl::memory::dims& dims, dnnl::memory::data_type type);

// Attributes every tfd primitive is made with: user-managed scratchpad.
dnnl::primitive_attr UserScratchpadAttr();

// One argument of a primitive call: its DNNL_ARG_* id, its descriptor and
// its data. `md` must be a descriptor kept with the cached primitive (its
// address names the argument; Note [Reused memories]).
struct Arg {
  int id;
  const dnnl::memory::desc* md;
  const void* data;
};

// Runs `p` on this thread's stream and waits. `scratchpad` is the
// primitive's scratchpad descriptor (kept with it, as `md` above); a buffer
// for it is allocated here. At most 8 args. Errors name oneDNN.
//
// Note [Reused memories]: creating a dnnl::memory allocates (the object
// and its storage, 64-byte aligned), so a small call spent more in making
// its memories than in computing. Run keeps this thread's memories by
// (descriptor address, argument id) and only points them at the call's
// data; a copy of the descriptor confirms a hit, since a descriptor freed
// with an evicted primitive may have its address reused by another.
absl::Status Run(const dnnl::primitive& p, const dnnl::memory::desc& scratchpad,
                 std::initializer_list<Arg> args);

// A memory object over a tensor's buffer (or any host pointer).
dnnl::memory Memory(const dnnl::memory::desc& md, const void* data);

// The Status for a dnnl::error thrown by `call` at file:line.
absl::Status ErrorStatus(const dnnl::error& e, const char* call, const char* file, int line);

// Converts n half or bfloat16 values to float and back (round to nearest
// even), parallel over `pool`.
void CastToFloat(ThreadPool* pool, const half* in, float* out, int64_t n);
void CastFromFloat(ThreadPool* pool, const float* in, half* out, int64_t n);
void CastToFloat(ThreadPool* pool, const bfloat16* in, float* out, int64_t n);
void CastFromFloat(ThreadPool* pool, const float* in, bfloat16* out, int64_t n);

// A float copy of a half or bfloat16 tensor, and the rounding back into
// `out` (same shape, half or bfloat16).
absl::StatusOr<Tensor> ToFloat(ThreadPool* pool, const Tensor& t);
void FromFloat(ThreadPool* pool, const Tensor& f, Tensor* out);

// A kernel body over operands of one dtype, writing `out` of that dtype.
using KernelBody = std::function<absl::Status(const std::vector<Tensor>& in, Tensor* out)>;

// How kernels with a oneDNN path pick their engine by dtype:
//   float, bfloat16: `onednn`; when oneDNN refuses the geometry
//     (UNIMPLEMENTED), `fallback` (bfloat16 through float copies);
//   double: `fallback`;
//   half: float copies of the operands, then as float, rounded back.
// `fallback` must handle float and double.
absl::Status RunOneDnnOrFallback(ThreadPool* pool, const std::vector<Tensor>& in, Tensor* out,
                                 const KernelBody& onednn, const KernelBody& fallback);

// A bounded, thread-safe cache of primitives (or any value) by string key,
// least recently used first out. Values are shared: a caller keeps using
// its entry even if another thread evicts it meanwhile.
template <typename Value>
class PrimitiveCache {
 public:
  explicit PrimitiveCache(size_t capacity = 256) : capacity_(capacity) {}

  // The cached value for `key`, or the one `create` makes (then cached).
  // Creation runs outside the lock; two threads missing together both
  // create, and the first to finish wins.
  absl::StatusOr<std::shared_ptr<const Value>> GetOrCreate(
      const std::string& key, const std::function<absl::StatusOr<Value>()>& create) {
    {
      absl::MutexLock lock(&mu_);
      auto it = index_.find(key);
      if (it != index_.end()) {
        order_.splice(order_.begin(), order_, it->second);
        return it->second->second;
      }
    }
    TFD_ASSIGN_OR_RETURN(Value made, create());
    auto value = std::make_shared<const Value>(std::move(made));
    absl::MutexLock lock(&mu_);
    auto it = index_.find(key);
    if (it != index_.end()) return it->second->second;
    order_.emplace_front(key, value);
    index_[key] = order_.begin();
    if (order_.size() > capacity_) {
      index_.erase(order_.back().first);
      order_.pop_back();
    }
    return value;
  }

  size_t size() {
    absl::MutexLock lock(&mu_);
    return order_.size();
  }

 private:
  using Entry = std::pair<std::string, std::shared_ptr<const Value>>;
  const size_t capacity_;
  absl::Mutex mu_;
  std::list<Entry> order_ ABSL_GUARDED_BY(mu_);  // Most recently used first.
  std::unordered_map<std::string, typename std::list<Entry>::iterator> index_
      ABSL_GUARDED_BY(mu_);
};

}  // namespace onednn
}  // namespace tfd

// Runs `expr`; a dnnl::error it throws returns a Status from the enclosing
// function.
#define TFD_ONEDNN_RETURN_IF_ERROR(expr)                                              \
  do {                                                                                \
    try {                                                                             \
      expr;                                                                           \
    } catch (const ::dnnl::error& tfd_onednn_error_) {                                \
      return ::tfd::onednn::ErrorStatus(tfd_onednn_error_, #expr, __FILE__, __LINE__); \
    }                                                                                 \
  } while (0)

// `TFD_ONEDNN_ASSIGN_OR_RETURN(auto pd, dnnl::matmul::primitive_desc(...));`
// `lhs` must be a declaration of a default-constructible type, or a name.
#define TFD_ONEDNN_ASSIGN_OR_RETURN(lhs, rexpr)                                       \
  TFD_ONEDNN_INTERNAL_ASSIGN_(TFD_INTERNAL_CONCAT(tfd_onednn_value_, __LINE__), lhs, rexpr)
#define TFD_ONEDNN_INTERNAL_ASSIGN_(tmp, lhs, rexpr) \
  decltype(rexpr) tmp;                               \
  TFD_ONEDNN_RETURN_IF_ERROR(tmp = (rexpr));         \
  lhs = std::move(tmp)

#endif  // TFD_CORE_KERNELS_CPU_ONEDNN_UTIL_H_
