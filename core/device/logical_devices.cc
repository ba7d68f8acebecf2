#include "core/device/logical_devices.h"

#include <utility>

#include "absl/strings/str_join.h"
#include "core/framework/status.h"

namespace tfd {

absl::StatusOr<std::vector<int>> FirstLogicalIds(absl::Span<const int> counts) {
  if (counts.empty()) {
    return InvalidArgument("logical GPUs: need a count for at least one physical GPU, got none");
  }
  std::vector<int> first;
  first.reserve(counts.size());
  int next = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    if (counts[i] < 1) {
      return InvalidArgument("logical GPUs: physical GPU ", i,
                             " needs at least 1 logical device, got ", counts[i]);
    }
    first.push_back(next);
    next += counts[i];
  }
  return first;
}

LogicalDeviceTable::LogicalDeviceTable(Maker make) : make_(std::move(make)) {}

absl::StatusOr<std::vector<LogicalDevice>> LogicalDeviceTable::Create(
    absl::Span<const int> counts) {
  TFD_ASSIGN_OR_RETURN(std::vector<int> first, FirstLogicalIds(counts));
  absl::MutexLock lock(&mu_);
  if (!counts_.empty()) {
    if (counts_ != std::vector<int>(counts.begin(), counts.end())) {
      return FailedPrecondition("logical GPUs are already configured as [",
                                absl::StrJoin(counts_, ", "),
                                "] logical devices per physical GPU; cannot change them to [",
                                absl::StrJoin(counts, ", "),
                                "] (devices that exist keep their names)");
    }
    return devices_;
  }
  for (size_t p = 0; p < counts.size(); ++p) {
    for (int k = 0; k < counts[p]; ++k) {
      devices_.push_back({make_(static_cast<int>(p), first[p] + k), static_cast<int>(p)});
    }
  }
  counts_.assign(counts.begin(), counts.end());
  return devices_;
}

}  // namespace tfd
