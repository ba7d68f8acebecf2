#include "core/framework/kernel.h"

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <tuple>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"

namespace tfd {
namespace {

using KernelKey = std::tuple<std::string, DeviceType, DataType>;

struct KernelRegistry {
  absl::Mutex mu;
  std::map<KernelKey, KernelFn> kernels ABSL_GUARDED_BY(mu);
  // Bumped by every registration: a lookup cached before it may now have
  // a better answer (a dtype-specific kernel over the any-dtype one).
  std::atomic<uint64_t> generation{0};
};

KernelRegistry& Registry() {
  static KernelRegistry* const registry = new KernelRegistry();
  return *registry;
}

}  // namespace

KernelContext::KernelContext(const OpDef* op, absl::Span<const Tensor> inputs,
                             const AttrMap* attrs, Device* device,
                             std::vector<TensorShape> output_shapes,
                             absl::Span<const DataType> output_dtypes)
    : op_(op),
      inputs_(inputs),
      attrs_(attrs),
      device_(device),
      output_shapes_(std::move(output_shapes)),
      output_dtypes_(output_dtypes.begin(), output_dtypes.end()),
      outputs_(output_shapes_.size()) {}

ThreadPool* KernelContext::thread_pool() const {
  ThreadPool* pool = device_->thread_pool();
  return pool != nullptr ? pool : HostDevice()->thread_pool();
}

absl::StatusOr<Tensor*> KernelContext::AllocateOutput(int i) {
  if (i < 0 || i >= num_outputs()) {
    return Internal(op_->name, ": kernel asked for output ", i, " of ", num_outputs());
  }
  TFD_ASSIGN_OR_RETURN(outputs_[i],
                       Tensor::Allocate(output_dtypes_[i], output_shapes_[i], device_));
  return &outputs_[i];
}

absl::Status KernelContext::SetOutput(int i, Tensor t) {
  if (i < 0 || i >= num_outputs()) {
    return Internal(op_->name, ": kernel set output ", i, " of ", num_outputs());
  }
  if (t.dtype() != output_dtypes_[i] || t.shape() != output_shapes_[i]) {
    return Internal(op_->name, ": kernel produced ", DataTypeName(t.dtype()), " ",
                    t.shape().DebugString(), " for output ", i, ", expected ",
                    DataTypeName(output_dtypes_[i]), " ",
                    output_shapes_[i].DebugString());
  }
  outputs_[i] = std::move(t);
  return absl::OkStatus();
}

absl::StatusOr<std::vector<Tensor>> KernelContext::TakeOutputs() {
  for (int i = 0; i < num_outputs(); ++i) {
    if (!outputs_[i].defined()) {
      return Internal(op_->name, ": kernel did not produce output ", i);
    }
  }
  return std::move(outputs_);
}

KernelRegistrar::KernelRegistrar(const char* op, DeviceType device, DataType dtype,
                                 KernelFn fn) {
  KernelRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  if (!r.kernels.emplace(KernelKey(op, device, dtype), std::move(fn)).second) {
    std::fprintf(stderr, "tfd: kernel %s/%s/%s registered twice\n", op,
                 DeviceTypeName(device), DataTypeName(dtype).c_str());
    std::abort();
  }
  r.generation.fetch_add(1, std::memory_order_release);
}

// A per-thread cache of found kernels, as for ops (Note [Op lookup cache]
// in op_def.cc): keyed by the name's address and length, confirmed by the
// name, and dropped when a registration happened since (the generation).
// Registered kernels are never removed, so a cached pointer stays valid.
absl::StatusOr<const KernelFn*> LookupKernel(absl::string_view op, DeviceType device,
                                            DataType dtype) {
  // Note [Host-only dtypes] in placement.h: whatever is registered, only
  // the host runs ops on strings, resources and variants.
  if (device != DeviceType::kCPU && IsHostOnlyType(dtype)) {
    return NotFound("no ", DeviceTypeName(device), " kernel for op '", op, "' with dtype ",
                    DataTypeName(dtype), ": ", DataTypeName(dtype),
                    " tensors stay in host memory and only host kernels run on them");
  }
  struct Slot {
    const char* data = nullptr;
    size_t size = 0;
    DeviceType device = DeviceType::kCPU;
    DataType dtype = DT_INVALID;
    uint64_t generation = 0;
    const std::string* name = nullptr;  // The registry's key.
    const KernelFn* fn = nullptr;
  };
  constexpr size_t kSlots = 64;
  thread_local Slot cache[kSlots];
  KernelRegistry& r = Registry();
  const uint64_t generation = r.generation.load(std::memory_order_acquire);
  const uintptr_t address = reinterpret_cast<uintptr_t>(op.data());
  Slot& slot = cache[(address ^ (address >> 6) ^ (static_cast<size_t>(device) << 5) ^
                      static_cast<size_t>(dtype)) %
                     kSlots];
  if (slot.fn != nullptr && slot.data == op.data() && slot.size == op.size() &&
      slot.device == device && slot.dtype == dtype && slot.generation == generation &&
      *slot.name == op) {
    return slot.fn;
  }

  absl::MutexLock lock(&r.mu);
  const std::string name(op);
  auto it = r.kernels.find(KernelKey(name, device, dtype));
  if (it == r.kernels.end()) it = r.kernels.find(KernelKey(name, device, DT_INVALID));
  if (it != r.kernels.end()) {
    slot = Slot{op.data(), op.size(), device, dtype, generation, &std::get<0>(it->first),
                &it->second};
    return &it->second;
  }
  std::vector<std::string> have;
  for (const auto& [key, fn] : r.kernels) {
    if (std::get<0>(key) == name) {
      have.push_back(std::string(DeviceTypeName(std::get<1>(key))) + "/" +
                     DataTypeName(std::get<2>(key)));
    }
  }
  return NotFound("no ", DeviceTypeName(device), " kernel for op '", op, "' with dtype ",
                  DataTypeName(dtype), "; registered: [", absl::StrJoin(have, ", "), "]");
}

bool HasKernel(absl::string_view op, DeviceType device) {
  KernelRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  for (const auto& [key, fn] : r.kernels) {
    if (std::get<0>(key) == op && std::get<1>(key) == device) return true;
  }
  return false;
}

std::vector<KernelRegistration> RegisteredKernels() {
  KernelRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  std::vector<KernelRegistration> out;
  out.reserve(r.kernels.size());
  for (const auto& [key, fn] : r.kernels) {
    out.push_back({std::get<0>(key), std::get<1>(key), std::get<2>(key)});
  }
  return out;  // Sorted already: the registry is a map over the same key.
}

}  // namespace tfd
