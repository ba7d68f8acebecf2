#include "core/kernels/cuda/cudnn_conv_autotune.h"

#include <cstdlib>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "core/framework/env_switch.h"

namespace tfd {
namespace cuda_kernels {
namespace {

constexpr int64_t kDefaultWorkspaceLimitMiB = 4096;

const char* PassName(ConvPass pass) {
  switch (pass) {
    case ConvPass::kForward: return "forward";
    case ConvPass::kBackwardData: return "backward-data";
    case ConvPass::kBackwardFilter: return "backward-filter";
  }
  return "unknown-pass";
}

std::string ViewString(const NchwView& v) {
  return absl::StrCat(v.n, "x", v.c, "x", v.h, "x", v.w, "/", v.n_stride, ",", v.c_stride, ",",
                      v.h_stride, ",", v.w_stride);
}

EnvSwitch& AutotuneSwitch() {
  static EnvSwitch* s = new EnvSwitch("TF_CUDNN_USE_AUTOTUNE", true, "cuDNN autotuning");
  return *s;
}

}  // namespace

std::string ConvAlgoKey::DebugString() const {
  return absl::StrCat("GPU:", device, " ", DataTypeName(dtype), " ", PassName(pass), " input ",
                      ViewString(input), " output ", ViewString(output), " filter ",
                      ViewString(filter), filter_nhwc ? " KRSC" : " KCRS", " groups ", groups,
                      " pad ", pad_h, ",", pad_w, " stride ", stride_h, ",", stride_w,
                      " dilation ", dilation_h, ",", dilation_w,
                      deterministic ? " deterministic" : "");
}

ConvAlgoKey MakeConvAlgoKey(int device, DataType dtype, ConvPass pass, const CudnnConvPlan& plan,
                            bool deterministic) {
  ConvAlgoKey k;
  k.device = device;
  k.dtype = dtype;
  k.pass = pass;
  k.input = plan.input;
  k.output = plan.output;
  k.filter = plan.filter_packed;
  k.filter_nhwc = plan.filter_nhwc;
  k.groups = plan.groups;
  k.pad_h = plan.pad_h;
  k.pad_w = plan.pad_w;
  k.stride_h = plan.stride_h;
  k.stride_w = plan.stride_w;
  k.dilation_h = plan.dilation_h;
  k.dilation_w = plan.dilation_w;
  k.deterministic = deterministic;
  return k;
}

absl::StatusOr<ConvAlgoChoice> ConvAlgoCache::GetOrTune(const ConvAlgoKey& key, TuneFn tune) {
  std::shared_ptr<Entry> entry;
  bool tunes_here = false;
  {
    absl::MutexLock lock(&mu_);
    std::shared_ptr<Entry>& slot = entries_[key];
    if (slot == nullptr) {
      slot = std::make_shared<Entry>();
      tunes_here = true;
    }
    entry = slot;
  }
  if (tunes_here) {
    entry->result = tune();
    entry->done.Notify();
  } else {
    entry->done.WaitForNotification();
  }
  return entry->result;
}

std::optional<absl::StatusOr<ConvAlgoChoice>> ConvAlgoCache::Lookup(const ConvAlgoKey& key) const {
  std::shared_ptr<Entry> entry;
  {
    absl::MutexLock lock(&mu_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    entry = it->second;
  }
  if (!entry->done.HasBeenNotified()) return std::nullopt;
  return entry->result;
}

size_t ConvAlgoCache::size() const {
  absl::MutexLock lock(&mu_);
  return entries_.size();
}

void ConvAlgoCache::Clear() {
  absl::MutexLock lock(&mu_);
  entries_.clear();
}

ConvAlgoCache& GlobalConvAlgoCache() {
  static ConvAlgoCache* cache = new ConvAlgoCache();
  return *cache;
}

bool ParseAutotuneSwitch(const char* value) {
  return ParseEnvSwitch("TF_CUDNN_USE_AUTOTUNE", value, true, "cuDNN autotuning");
}

bool ConvAutotuneEnabled() { return AutotuneSwitch().enabled(); }

void SetConvAutotuneEnabled(bool enabled) { AutotuneSwitch().set(enabled); }

int64_t ParseWorkspaceLimitBytes(const char* value) {
  int64_t mib = 0;
  if (value == nullptr || !absl::SimpleAtoi(value, &mib) || mib < 0 ||
      mib > (int64_t{1} << 40)) {
    mib = kDefaultWorkspaceLimitMiB;
  }
  return mib << 20;
}

int64_t ConvWorkspaceLimitBytes() {
  static const int64_t limit =
      ParseWorkspaceLimitBytes(std::getenv("TF_CUDNN_WORKSPACE_LIMIT_IN_MB"));
  return limit;
}

}  // namespace cuda_kernels
}  // namespace tfd
