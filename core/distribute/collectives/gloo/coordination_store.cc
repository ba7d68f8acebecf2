#include "core/distribute/collectives/gloo/coordination_store.h"

#include <utility>

#include "gloo/common/error.h"

namespace tfd {
namespace distribute {

void CoordinationStore::Fail(absl::Status status) {
  {
    absl::MutexLock lock(&mu_);
    if (error_.ok()) error_ = status;
  }
  throw gloo::IoException(std::string(status.message()));
}

absl::Status CoordinationStore::error() const {
  absl::MutexLock lock(&mu_);
  return error_;
}

void CoordinationStore::set(const std::string& key, const std::vector<char>& data) {
  absl::Status status = client_->SetKeyValue(prefix_ + key, std::string(data.begin(), data.end()));
  if (!status.ok()) Fail(std::move(status));
}

std::vector<char> CoordinationStore::get(const std::string& key) {
  absl::StatusOr<std::string> value = client_->GetKeyValue(prefix_ + key, timeout_);
  if (!value.ok()) Fail(value.status());
  return std::vector<char>(value->begin(), value->end());
}

void CoordinationStore::wait(const std::vector<std::string>& keys) {
  wait(keys, std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout_)));
}

void CoordinationStore::wait(const std::vector<std::string>& keys,
                             const std::chrono::milliseconds& timeout) {
  // One deadline for all the keys, not one timeout each.
  const absl::Time deadline = absl::Now() + absl::FromChrono(timeout);
  for (const std::string& key : keys) {
    absl::StatusOr<std::string> value =
        client_->GetKeyValue(prefix_ + key, std::max(deadline - absl::Now(), absl::ZeroDuration()));
    if (!value.ok()) Fail(value.status());
  }
}

}  // namespace distribute
}  // namespace tfd
