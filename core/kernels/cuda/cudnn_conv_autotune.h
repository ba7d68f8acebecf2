// Autotuning of cuDNN convolution algorithms, the host-side half: the
// signature of one convolution pass (ConvAlgoKey), the process-wide cache
// of the algorithm measured fastest for each signature (ConvAlgoCache), and
// the environment variables TensorFlow reads for it. Plain C++, built and
// tested in every build (cudnn_conv_autotune_test); cudnn_conv_kernels.cc
// does the timing (cudnnFind*AlgorithmEx) on the GPU.
//
// TensorFlow times the candidate algorithms once per convolution signature
// and keeps the winner (TF_CUDNN_USE_AUTOTUNE, on unless set to 0 or
// false), as PyTorch does with torch.backends.cudnn.benchmark. So do the
// kernels: the first call of a signature tunes, every later call reads the
// cache. A tuning that fails is cached as that error, and its signature runs
// on cuDNN's heuristic choice from then on, without timing again.
//
// Thread safety: ConvAlgoCache is safe to share; concurrent first calls of
// one signature run one tuning, the others wait for its result. The
// tuning itself runs outside the cache's lock, so signatures tune in
// parallel (on different GPUs).
//
//   ConvAlgoKey key = MakeConvAlgoKey(gpu->ordinal(), dtype, ConvPass::kForward, plan,
//                                     OpDeterminismEnabled());
//   absl::StatusOr<ConvAlgoChoice> choice =
//       GlobalConvAlgoCache().GetOrTune(key, [&] { return TimeForwardAlgorithms(...); });
//   if (!choice.ok()) { ... the heuristic path ... }
#ifndef TFD_CORE_KERNELS_CUDA_CUDNN_CONV_AUTOTUNE_H_
#define TFD_CORE_KERNELS_CUDA_CUDNN_CONV_AUTOTUNE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <tuple>

#include "absl/container/flat_hash_map.h"
#include "absl/functional/function_ref.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "core/framework/types.h"
#include "core/kernels/cuda/cudnn_conv_plan.h"

namespace tfd {
namespace cuda_kernels {

// Which of a convolution's three cuDNN calls is tuned: each has its own
// algorithms.
enum class ConvPass : int { kForward = 0, kBackwardData = 1, kBackwardFilter = 2 };

// Everything that decides which algorithm is fastest and which may run:
// the device, the element type, the pass, and the plan's tensors (dims and
// strides, so the layout and a padded input are part of it), filter
// layout, groups, padding, strides and dilations; and whether op
// determinism was on, since it then may pick only among the algorithms
// cuDNN reports as deterministic (so turning it on or off never reuses a
// choice made under the other setting).
struct ConvAlgoKey {
  int device = 0;
  DataType dtype = DT_INVALID;
  ConvPass pass = ConvPass::kForward;
  NchwView input, output, filter;
  bool filter_nhwc = true;
  int groups = 1;
  int pad_h = 0, pad_w = 0;
  int stride_h = 1, stride_w = 1;
  int dilation_h = 1, dilation_w = 1;
  bool deterministic = false;

  // Every field above, for equality and hashing (defined before their
  // use: the return type is deduced).
  static auto ViewFields(const NchwView& v) {
    return std::make_tuple(v.n, v.c, v.h, v.w, v.n_stride, v.c_stride, v.h_stride, v.w_stride);
  }
  auto Fields() const {
    return std::tuple_cat(std::make_tuple(device, static_cast<int>(dtype), static_cast<int>(pass)),
                          ViewFields(input), ViewFields(output), ViewFields(filter),
                          std::make_tuple(filter_nhwc, groups, pad_h, pad_w, stride_h, stride_w,
                                          dilation_h, dilation_w, deterministic));
  }

  friend bool operator==(const ConvAlgoKey& a, const ConvAlgoKey& b) {
    return a.Fields() == b.Fields();
  }
  friend bool operator!=(const ConvAlgoKey& a, const ConvAlgoKey& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const ConvAlgoKey& k) {
    return H::combine(std::move(h), k.Fields());
  }
  // "GPU:0 bfloat16 forward input 256x64x56x56/..." for messages.
  std::string DebugString() const;
};

// The key of `pass` of the convolution `plan` in `dtype` on GPU `device`,
// tuned with op determinism on or off (`deterministic`).
ConvAlgoKey MakeConvAlgoKey(int device, DataType dtype, ConvPass pass, const CudnnConvPlan& plan,
                            bool deterministic);

// The algorithm a tuning chose, as cuDNN's plain integers: `algo` is the
// pass's cudnnConvolution{Fwd,BwdData,BwdFilter}Algo_t, `math_type` a
// cudnnMathType_t, `workspace_bytes` what the algorithm asked for when
// timed, `time_ms` its measured time.
struct ConvAlgoChoice {
  int algo = 0;
  int math_type = 0;
  int64_t workspace_bytes = 0;
  float time_ms = 0;
};

class ConvAlgoCache {
 public:
  ConvAlgoCache() = default;
  ConvAlgoCache(const ConvAlgoCache&) = delete;
  ConvAlgoCache& operator=(const ConvAlgoCache&) = delete;

  using TuneFn = absl::FunctionRef<absl::StatusOr<ConvAlgoChoice>()>;

  // The result cached for `key`. On the first call for `key`, `tune` runs
  // (on the calling thread, outside the cache's lock) and its result, an
  // error included, is what this and every later call returns; concurrent
  // callers of the same key wait for that result instead of tuning again.
  absl::StatusOr<ConvAlgoChoice> GetOrTune(const ConvAlgoKey& key, TuneFn tune);

  // The finished result for `key`, if any (a tuning in flight is not).
  std::optional<absl::StatusOr<ConvAlgoChoice>> Lookup(const ConvAlgoKey& key) const;

  // The number of keys tuned or being tuned.
  size_t size() const;

  // Forgets every result; tunings in flight finish for their waiters only.
  void Clear();

 private:
  struct Entry {
    absl::Notification done;
    absl::StatusOr<ConvAlgoChoice> result;  // written once, before `done`
  };
  mutable absl::Mutex mu_;
  absl::flat_hash_map<ConvAlgoKey, std::shared_ptr<Entry>> entries_ ABSL_GUARDED_BY(mu_);
};

// The cache the GPU kernels share (never destroyed).
ConvAlgoCache& GlobalConvAlgoCache();

// TF_CUDNN_USE_AUTOTUNE as TensorFlow reads it: unset, "1" or "true" turn
// autotuning on, "0" or "false" off (case-insensitive); anything else is
// reported on stderr and leaves it on, TensorFlow's default.
bool ParseAutotuneSwitch(const char* value);

// Whether the kernels autotune: TF_CUDNN_USE_AUTOTUNE, read on the first
// call, unless SetConvAutotuneEnabled said otherwise.
bool ConvAutotuneEnabled();

// Overrides the environment from now on, for side-by-side benchmarks and
// tests of the two paths. Does not clear the cache.
void SetConvAutotuneEnabled(bool enabled);

// TF_CUDNN_WORKSPACE_LIMIT_IN_MB as TensorFlow reads it: the most
// workspace, in bytes, a timed algorithm may use. Unset or not a
// non-negative integer: 4096 MiB, TensorFlow's default.
int64_t ParseWorkspaceLimitBytes(const char* value);

// The limit from the environment, read on the first call.
int64_t ConvWorkspaceLimitBytes();

}  // namespace cuda_kernels
}  // namespace tfd

#endif  // TFD_CORE_KERNELS_CUDA_CUDNN_CONV_AUTOTUNE_H_
