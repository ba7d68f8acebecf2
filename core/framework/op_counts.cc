#include "core/framework/op_counts.h"

#include <atomic>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/framework/device.h"

namespace tfd {
namespace {

std::atomic<int> active_scopes{0};

struct Tally {
  int64_t total = 0;
  int64_t on_host = 0;
};

absl::Mutex mu;
// Never destroyed: ops may be dispatched by threads still running at exit.
absl::flat_hash_map<std::string, Tally>& Tallies() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) {
  static auto* tallies = new absl::flat_hash_map<std::string, Tally>();
  return *tallies;
}

int64_t Find(const std::map<std::string, int64_t>& m, absl::string_view op) {
  auto it = m.find(std::string(op));
  return it == m.end() ? 0 : it->second;
}

}  // namespace

int64_t OpCounts::Of(absl::string_view op) const { return Find(total, op); }

int64_t OpCounts::OnHost(absl::string_view op) const { return Find(on_host, op); }

int64_t OpCounts::Total() const {
  int64_t n = 0;
  for (const auto& [op, count] : total) n += count;
  return n;
}

OpCounts OpCounts::operator-(const OpCounts& earlier) const {
  OpCounts d;
  for (const auto& [op, count] : total) {
    if (const int64_t n = count - earlier.Of(op); n != 0) d.total[op] = n;
  }
  for (const auto& [op, count] : on_host) {
    if (const int64_t n = count - earlier.OnHost(op); n != 0) d.on_host[op] = n;
  }
  return d;
}

std::string OpCounts::DebugString() const {
  std::string s;
  for (const auto& [op, count] : total) {
    absl::StrAppend(&s, s.empty() ? "" : ", ", op, "=", count);
    if (const int64_t host = OnHost(op); host > 0) absl::StrAppend(&s, " (host ", host, ")");
  }
  return s.empty() ? "no ops" : s;
}

ScopedOpCounting::ScopedOpCounting() { active_scopes.fetch_add(1, std::memory_order_relaxed); }

ScopedOpCounting::~ScopedOpCounting() { active_scopes.fetch_sub(1, std::memory_order_relaxed); }

OpCounts ReadOpCounts() {
  OpCounts counts;
  absl::MutexLock lock(&mu);
  for (const auto& [op, tally] : Tallies()) {
    counts.total[op] = tally.total;
    if (tally.on_host > 0) counts.on_host[op] = tally.on_host;
  }
  return counts;
}

void CountOpDispatch(absl::string_view op, const Device& device) {
  if (active_scopes.load(std::memory_order_relaxed) == 0) return;
  absl::MutexLock lock(&mu);
  Tally& tally = Tallies()[op];
  ++tally.total;
  if (device.host_memory()) ++tally.on_host;
}

}  // namespace tfd
