// Host-side seeding for Philox: the nondeterministic seed source and
// TensorFlow's (seed, seed2) convention.
#include "core/kernels/philox.h"

#include <random>

#include "absl/synchronization/mutex.h"

namespace tfd {

uint64_t NewNondeterministicSeed() {
  // One engine for the process, seeded once from the OS: std::random_device
  // may be slow or block, so it is not asked per op.
  static absl::Mutex mu(absl::kConstInit);
  static std::mt19937_64* engine ABSL_GUARDED_BY(mu) = nullptr;
  absl::MutexLock lock(&mu);
  if (engine == nullptr) {
    std::random_device device;
    std::seed_seq seq{device(), device(), device(), device()};
    engine = new std::mt19937_64(seq);
  }
  return (*engine)();
}

PhiloxRandom PhiloxFromOpSeeds(int64_t seed, int64_t seed2) {
  if (seed == 0 && seed2 == 0) {
    // As TensorFlow: zero for both means "no seed given".
    const uint64_t lo = NewNondeterministicSeed();
    const uint64_t hi = NewNondeterministicSeed();
    return PhiloxRandom(lo, hi);
  }
  return PhiloxRandom(static_cast<uint64_t>(seed), static_cast<uint64_t>(seed2));
}

}  // namespace tfd
