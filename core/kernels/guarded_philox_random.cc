#include "core/kernels/guarded_philox_random.h"

#include <deque>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "core/framework/status.h"
#include "core/kernels/random_distributions.h"

namespace tfd {
namespace {

struct Registry {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, PhiloxRandom> generators ABSL_GUARDED_BY(mu);
  std::deque<std::string> insertion_order ABSL_GUARDED_BY(mu);  // For eviction.
};

Registry& GetRegistry() {
  static Registry* registry = new Registry;
  return *registry;
}

}  // namespace

absl::StatusOr<PhiloxRandom> ReserveRandomOutputs(const KernelContext& ctx,
                                                  int64_t output_count) {
  TFD_ASSIGN_OR_RETURN(int64_t seed, ctx.GetAttr<int64_t>("seed"));
  TFD_ASSIGN_OR_RETURN(int64_t seed2, ctx.GetAttr<int64_t>("seed2"));
  // The attrs are complete (defaults and inferred types filled in), so equal
  // keys are exactly the calls TensorFlow would serve with one cached kernel.
  std::string key = ctx.op_name();
  key += '\0';
  key += ctx.device() != nullptr ? ctx.device()->name() : std::string("host");
  key += '\0';
  key += ctx.attrs().DebugString();

  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  auto it = r.generators.find(key);
  if (it == r.generators.end()) {
    if (static_cast<int>(r.generators.size()) >= kMaxRandomOpStates) {
      r.generators.erase(r.insertion_order.front());
      r.insertion_order.pop_front();
    }
    it = r.generators.emplace(key, PhiloxFromOpSeeds(seed, seed2)).first;
    r.insertion_order.push_back(std::move(key));
  }
  const PhiloxRandom start = it->second;
  it->second.Skip(static_cast<uint64_t>(output_count) * kReservedSamplesPerOutput);
  return start;
}

void ClearRandomOpStates() {
  Registry& r = GetRegistry();
  absl::MutexLock lock(&r.mu);
  r.generators.clear();
  r.insertion_order.clear();
}

}  // namespace tfd
