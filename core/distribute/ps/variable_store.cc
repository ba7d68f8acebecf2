#include "core/distribute/ps/variable_store.h"

#include <algorithm>
#include <utility>

#include "core/framework/status.h"

namespace tfd {
namespace ps {
namespace {

absl::Status CheckSameShape(const std::string& what, const std::string& name,
                            const TensorShape& expected, const Tensor& got) {
  if (got.dtype() != DT_FLOAT) {
    return InvalidArgument(what, " of variable ", name, ": expected float32, got ",
                           DataTypeName(got.dtype()));
  }
  if (got.shape().dims() != expected.dims()) {
    return InvalidArgument(what, " of variable ", name, ": expected shape ",
                           expected.DebugString(), ", got ", got.shape().DebugString());
  }
  return absl::OkStatus();
}

Tensor Copy(const Tensor& t) {
  Tensor out(t.dtype(), t.shape());
  const absl::Span<float> from = t.flat<float>();
  std::copy(from.begin(), from.end(), out.data<float>());
  return out;
}

}  // namespace

absl::Status VariableStore::Create(const std::string& name, const Tensor& initial_value,
                                   const OptimizerConfig& optimizer) {
  if (name.empty()) return InvalidArgument("a parameter-server variable needs a name");
  if (initial_value.dtype() != DT_FLOAT) {
    return InvalidArgument("variable ", name, ": expected float32, got ",
                           DataTypeName(initial_value.dtype()));
  }
  if (optimizer.learning_rate() < 0 || optimizer.momentum() < 0) {
    return InvalidArgument("variable ", name, ": learning rate and momentum must be >= 0, got ",
                           optimizer.learning_rate(), " and ", optimizer.momentum());
  }
  absl::MutexLock lock(&mu_);
  auto it = variables_.find(name);
  if (it != variables_.end()) {
    absl::MutexLock variable_lock(&it->second->mu);
    if (it->second->value.shape().dims() != initial_value.shape().dims()) {
      return absl::AlreadyExistsError(absl::StrCat(
          "variable ", name, " exists with shape ", it->second->value.shape().DebugString(),
          ", asked for ", initial_value.shape().DebugString()));
    }
    return absl::OkStatus();
  }
  auto variable = std::make_shared<Variable>();
  variable->optimizer = optimizer;
  {
    absl::MutexLock variable_lock(&variable->mu);
    variable->value = Copy(initial_value);
    if (optimizer.momentum() > 0) {
      TFD_ASSIGN_OR_RETURN(variable->momentum, Tensor::Zeros(DT_FLOAT, initial_value.shape()));
    }
  }
  variables_.emplace(name, std::move(variable));
  return absl::OkStatus();
}

absl::StatusOr<std::shared_ptr<VariableStore::Variable>> VariableStore::Find(
    const std::string& name) const {
  absl::MutexLock lock(&mu_);
  auto it = variables_.find(name);
  if (it == variables_.end()) return NotFound("no variable ", name, " on this parameter server");
  return it->second;
}

absl::StatusOr<Tensor> VariableStore::Read(const std::string& name) const {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  return Copy(variable->value);
}

absl::Status VariableStore::Assign(const std::string& name, const Tensor& value) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  TFD_RETURN_IF_ERROR(CheckSameShape("assigned value", name, variable->value.shape(), value));
  variable->value = Copy(value);
  return absl::OkStatus();
}

absl::Status VariableStore::ApplyGradient(const std::string& name, const Tensor& gradient) {
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Variable> variable, Find(name));
  absl::MutexLock lock(&variable->mu);
  TFD_RETURN_IF_ERROR(CheckSameShape("gradient", name, variable->value.shape(), gradient));
  const OptimizerConfig& opt = variable->optimizer;
  const float lr = opt.learning_rate();
  float* w = variable->value.data<float>();
  const float* g = gradient.data<float>();
  const int64_t n = gradient.NumElements();
  if (opt.momentum() == 0) {
    for (int64_t i = 0; i < n; ++i) w[i] -= lr * g[i];
    return absl::OkStatus();
  }
  // Keras SGD with momentum (TF's ResourceApplyKerasMomentum):
  //   v = m * v - lr * g;  w += v             (plain)
  //   v = m * v - lr * g;  w += m * v - lr * g (nesterov)
  const float m = opt.momentum();
  float* v = variable->momentum.data<float>();
  for (int64_t i = 0; i < n; ++i) {
    v[i] = m * v[i] - lr * g[i];
    w[i] += opt.nesterov() ? m * v[i] - lr * g[i] : v[i];
  }
  return absl::OkStatus();
}

}  // namespace ps
}  // namespace tfd
