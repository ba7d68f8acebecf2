#include "core/kernels/cpu/onednn_util.h"

#include <omp.h>

#include <algorithm>

#include "absl/container/flat_hash_map.h"
#include "oneapi/dnnl/dnnl_debug.h"

namespace tfd {
namespace onednn {

const dnnl::engine& CpuEngine() {
  static const dnnl::engine* const engine = new dnnl::engine(dnnl::engine::kind::cpu, 0);
  return *engine;
}

dnnl::stream& ThreadStream() {
  thread_local dnnl::stream stream(CpuEngine());
  return stream;
}

OmpThreadsScope::OmpThreadsScope(const ThreadPool* pool)
    : previous_(omp_get_max_threads()), num_threads_(pool->NumThreads()) {
  omp_set_num_threads(num_threads_);
}

OmpThreadsScope::OmpThreadsScope(const ThreadPool* pool, int64_t cost)
    : previous_(omp_get_max_threads()),
      num_threads_(static_cast<int>(
          PlanShards(std::max<int64_t>(1, cost), 1, pool->NumThreads()).num_shards)) {
  omp_set_num_threads(num_threads_);
}

OmpThreadsScope::~OmpThreadsScope() { omp_set_num_threads(previous_); }

absl::StatusOr<dnnl::memory::data_type> OneDnnType(DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return dnnl::memory::data_type::f32;
    case DT_BFLOAT16:
      return dnnl::memory::data_type::bf16;
    default:
      return Unimplemented("oneDNN kernels do not take ", DataTypeName(dtype));
  }
}

dnnl::memory::desc StridedDesc(const dnnl::memory::dims& dims, const dnnl::memory::dims& strides,
                               dnnl::memory::data_type type) {
  return dnnl::memory::desc(dims, type, strides);
}

dnnl::memory::desc RowMajorDesc(const dnnl::memory::dims& dims, dnnl::memory::data_type type) {
  dnnl::memory::dims strides(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i) {
    strides[i] = strides[i + 1] * std::max<int64_t>(dims[i + 1], 1);
  }
  return StridedDesc(dims, strides, type);
}

dnnl::primitive_attr UserScratchpadAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

dnnl::memory Memory(const dnnl::memory::desc& md, const void* data) {
  // oneDNN takes a non-const handle for inputs as well; it never writes them.
  return dnnl::memory(md, CpuEngine(), const_cast<void*>(data));
}

namespace {

// This thread's memories for Run (Note [Reused memories]).
class ThreadMemories {
 public:
  // Makes room for a call of `n` arguments. Bounded: a thread that ran
  // many geometries starts over, before the call's memories are taken (a
  // memory dropped during the call would leave its handle dangling).
  void Reserve(size_t n) {
    if (entries_.size() + n > kMaxEntries) entries_.clear();
  }

  // A memory of descriptor `*md` for argument `id`, pointing at `data`. Its
  // handle stays valid until the next Reserve.
  const dnnl::memory& Get(const dnnl::memory::desc* md, int id, const void* data) {
    auto [it, inserted] = entries_.try_emplace({md, id});
    Entry& e = it->second;
    if (inserted || !(e.md == *md)) {
      e.md = *md;
      e.memory = Memory(*md, data);
    } else {
      // oneDNN takes a non-const handle for inputs as well; it never writes them.
      e.memory.set_data_handle(const_cast<void*>(data));
    }
    return e.memory;
  }

 private:
  static constexpr size_t kMaxEntries = 256;
  struct Entry {
    dnnl::memory::desc md;
    dnnl::memory memory;
  };
  absl::flat_hash_map<std::pair<const dnnl::memory::desc*, int>, Entry> entries_;
};

}  // namespace

absl::Status Run(const dnnl::primitive& p, const dnnl::memory::desc& scratchpad,
                 std::initializer_list<Arg> args) {
  constexpr int kMaxArgs = 9;  // 8 and the scratchpad.
  if (args.size() + 1 > kMaxArgs) {
    return Internal("oneDNN call with ", args.size(), " arguments; at most ", kMaxArgs - 1);
  }
  thread_local ThreadMemories memories;
  dnnl_exec_arg_t exec_args[kMaxArgs];
  int n = 0;
  Tensor buffer;
  memories.Reserve(args.size() + 1);
  try {
    for (const Arg& a : args) {
      exec_args[n++] = {a.id, memories.Get(a.md, a.id, a.data).get()};
    }
    const size_t bytes = scratchpad.get_size();
    if (bytes > 0) {
      TFD_ASSIGN_OR_RETURN(buffer, Tensor::Allocate(DT_UINT8, {static_cast<int64_t>(bytes)}));
      exec_args[n++] = {DNNL_ARG_SCRATCHPAD,
                        memories.Get(&scratchpad, DNNL_ARG_SCRATCHPAD, buffer.raw_data()).get()};
    }
  } catch (const dnnl::error& e) {
    return ErrorStatus(e, "dnnl::memory", __FILE__, __LINE__);
  }
  dnnl::stream& stream = ThreadStream();
  const dnnl_status_t status = dnnl_primitive_execute(p.get(), stream.get(), n, exec_args);
  if (status != dnnl_success) {
    return ErrorStatus(dnnl::error(status, "could not execute a primitive"),
                       "dnnl_primitive_execute", __FILE__, __LINE__);
  }
  TFD_ONEDNN_RETURN_IF_ERROR(stream.wait());
  return absl::OkStatus();
}

absl::Status ErrorStatus(const dnnl::error& e, const char* call, const char* file, int line) {
  const std::string message = absl::StrCat("oneDNN: ", call, " failed at ", file, ":", line,
                                           ": ", dnnl_status2str(e.status), ": ", e.what());
  switch (e.status) {
    case dnnl_out_of_memory:
      return absl::ResourceExhaustedError(message);
    case dnnl_unimplemented:
      return absl::UnimplementedError(message);
    case dnnl_invalid_arguments:
      return absl::InvalidArgumentError(message);
    default:
      return absl::InternalError(message);
  }
}

namespace {

template <typename T>
void ToFloatImpl(ThreadPool* pool, const T* in, float* out, int64_t n) {
  pool->ParallelFor(n, 2, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = static_cast<float>(in[i]);
  });
}

template <typename T>
void FromFloatImpl(ThreadPool* pool, const float* in, T* out, int64_t n) {
  pool->ParallelFor(n, 4, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = T(in[i]);
  });
}

}  // namespace

void CastToFloat(ThreadPool* pool, const half* in, float* out, int64_t n) {
  ToFloatImpl(pool, in, out, n);
}
void CastFromFloat(ThreadPool* pool, const float* in, half* out, int64_t n) {
  FromFloatImpl(pool, in, out, n);
}
void CastToFloat(ThreadPool* pool, const bfloat16* in, float* out, int64_t n) {
  ToFloatImpl(pool, in, out, n);
}
void CastFromFloat(ThreadPool* pool, const float* in, bfloat16* out, int64_t n) {
  FromFloatImpl(pool, in, out, n);
}

absl::StatusOr<Tensor> ToFloat(ThreadPool* pool, const Tensor& t) {
  TFD_ASSIGN_OR_RETURN(Tensor f, Tensor::Allocate(DT_FLOAT, t.shape()));
  if (t.dtype() == DT_HALF) {
    CastToFloat(pool, t.data<half>(), f.data<float>(), t.NumElements());
  } else {
    CastToFloat(pool, t.data<bfloat16>(), f.data<float>(), t.NumElements());
  }
  return f;
}

void FromFloat(ThreadPool* pool, const Tensor& f, Tensor* out) {
  if (out->dtype() == DT_HALF) {
    CastFromFloat(pool, f.data<float>(), out->data<half>(), out->NumElements());
  } else {
    CastFromFloat(pool, f.data<float>(), out->data<bfloat16>(), out->NumElements());
  }
}

namespace {

// Runs `body` on float copies of the operands and rounds into `out`.
absl::Status InFloat(ThreadPool* pool, const std::vector<Tensor>& in, Tensor* out,
                     const KernelBody& body) {
  std::vector<Tensor> f;
  for (const Tensor& t : in) {
    TFD_ASSIGN_OR_RETURN(Tensor copy, ToFloat(pool, t));
    f.push_back(copy);
  }
  TFD_ASSIGN_OR_RETURN(Tensor out_f, Tensor::Allocate(DT_FLOAT, out->shape()));
  TFD_RETURN_IF_ERROR(body(f, &out_f));
  FromFloat(pool, out_f, out);
  return absl::OkStatus();
}

}  // namespace

absl::Status RunOneDnnOrFallback(ThreadPool* pool, const std::vector<Tensor>& in, Tensor* out,
                                 const KernelBody& onednn, const KernelBody& fallback) {
  switch (out->dtype()) {
    case DT_DOUBLE:
      return fallback(in, out);
    case DT_HALF:
      return InFloat(pool, in, out, [&](const std::vector<Tensor>& f, Tensor* out_f) {
        return RunOneDnnOrFallback(pool, f, out_f, onednn, fallback);
      });
    case DT_FLOAT:
    case DT_BFLOAT16: {
      absl::Status s = onednn(in, out);
      if (s.code() != absl::StatusCode::kUnimplemented) return s;
      if (out->dtype() == DT_FLOAT) return fallback(in, out);
      return InFloat(pool, in, out, fallback);
    }
    default:
      return Unimplemented("no CPU kernel for ", DataTypeName(out->dtype()));
  }
}

}  // namespace onednn
}  // namespace tfd
