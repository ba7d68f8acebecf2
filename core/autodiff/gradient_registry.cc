#include "core/autodiff/gradient_registry.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>

#include "absl/synchronization/mutex.h"
#include "core/framework/status.h"

namespace tfd {
namespace {

struct GradientRegistry {
  absl::Mutex mu;
  std::map<std::string, GradFn, std::less<>> fns ABSL_GUARDED_BY(mu);
  std::set<std::string, std::less<>> communicating ABSL_GUARDED_BY(mu);
};

GradientRegistry& Registry() {
  static GradientRegistry* const registry = new GradientRegistry();
  return *registry;
}

}  // namespace

absl::StatusOr<Tensor> GradContext::OutputGrad(int i) const {
  if (output_grads[i].defined()) return output_grads[i];
  return Tensor::Zeros(outputs[i].dtype(), outputs[i].shape(), outputs[i].device());
}

GradientRegistrar::GradientRegistrar(const char* op, GradFn fn) {
  GradientRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  if (!r.fns.emplace(op, std::move(fn)).second) {
    std::fprintf(stderr, "tfd: gradient for op '%s' registered twice\n", op);
    std::abort();
  }
}

absl::StatusOr<const GradFn*> LookupGradient(absl::string_view op) {
  GradientRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  auto it = r.fns.find(op);
  if (it == r.fns.end()) return NotFound("no gradient registered for op '", op, "'");
  return it->second ? &it->second : nullptr;
}

CommunicatingGradientRegistrar::CommunicatingGradientRegistrar(const char* op) {
  GradientRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  r.communicating.insert(op);
}

bool GradientCommunicates(absl::string_view op) {
  GradientRegistry& r = Registry();
  absl::MutexLock lock(&r.mu);
  return r.communicating.count(op) > 0;
}

}  // namespace tfd
