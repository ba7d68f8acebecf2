// Op counts: how many kernels Execute dispatched, per op name, and how
// many of those ran in host memory. Tests count a training step's ops to
// prove what it does not do (a Transpose in a channels-last model, a Cast
// the dtype policy does not need, one optimizer op per variable) and where
// (an op that fell back to the host inside a GPU step).
//
// Counting is off unless a ScopedOpCounting is alive: Execute's hook then
// costs one relaxed atomic load. While on, each dispatch takes a mutex and
// a hash lookup, which tests can afford and a benchmark should not pay.
// Counts are process-wide (every thread) and only grow; compare readings.
//
// Thread safety: every function may be called from any thread.
//
//   ScopedOpCounting counting;
//   const OpCounts before = ReadOpCounts();
//   ... one training step ...
//   const OpCounts step = ReadOpCounts() - before;
//   EXPECT_EQ(step.Of("Transpose"), 0);
#ifndef TFD_CORE_FRAMEWORK_OP_COUNTS_H_
#define TFD_CORE_FRAMEWORK_OP_COUNTS_H_

#include <cstdint>
#include <map>
#include <string>

#include "absl/strings/string_view.h"

namespace tfd {

class Device;

struct OpCounts {
  // Dispatches per op name; the part of them that ran on a host-memory
  // device. Ops never dispatched are absent.
  std::map<std::string, int64_t> total;
  std::map<std::string, int64_t> on_host;

  int64_t Of(absl::string_view op) const;
  int64_t OnHost(absl::string_view op) const;
  // Every dispatch, of every op.
  int64_t Total() const;
  // The dispatches between two readings (ops with none left out).
  OpCounts operator-(const OpCounts& earlier) const;
  // "AddV2=3 (host 1), Cast=2", ops by name, for test failures and logs.
  std::string DebugString() const;
};

// Counts dispatches while alive. Scopes nest (and may overlap across
// threads): counting is on while any is alive.
class ScopedOpCounting {
 public:
  ScopedOpCounting();
  ~ScopedOpCounting();
  ScopedOpCounting(const ScopedOpCounting&) = delete;
  ScopedOpCounting& operator=(const ScopedOpCounting&) = delete;
};

// The counts so far.
OpCounts ReadOpCounts();

// Execute's hook, once per kernel it runs: `op` ran on `device`.
void CountOpDispatch(absl::string_view op, const Device& device);

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_OP_COUNTS_H_
