#include "core/kernels/random_seed.h"

#include <cstdint>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "core/kernels/guarded_philox_random.h"

namespace tfd {
namespace {

// MT19937 seeded as CPython's random.Random(n) seeds it: init_by_array over
// the 32-bit words of |n|, least significant first (one zero word for 0).
// Only what randint(0, 2^31 - 1) needs: 32-bit outputs.
class PythonMersenneTwister {
 public:
  explicit PythonMersenneTwister(int64_t seed) {
    // |seed| as unsigned, so that |INT64_MIN| does not overflow.
    const uint64_t magnitude =
        seed < 0 ? ~static_cast<uint64_t>(seed) + 1 : static_cast<uint64_t>(seed);
    std::vector<uint32_t> key = {static_cast<uint32_t>(magnitude)};
    if (magnitude >> 32) key.push_back(static_cast<uint32_t>(magnitude >> 32));
    InitByArray(key);
  }

  uint32_t Next() {
    if (index_ >= kN) Twist();
    uint32_t y = mt_[index_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

 private:
  static constexpr int kN = 624;
  static constexpr int kM = 397;

  void InitGenrand(uint32_t s) {
    mt_[0] = s;
    for (int i = 1; i < kN; ++i) {
      mt_[i] = 1812433253u * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
    }
    index_ = kN;
  }

  void InitByArray(const std::vector<uint32_t>& key) {
    InitGenrand(19650218u);
    const int len = static_cast<int>(key.size());
    int i = 1, j = 0;
    for (int k = kN > len ? kN : len; k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525u)) + key[j] +
               static_cast<uint32_t>(j);
      if (++i >= kN) {
        mt_[0] = mt_[kN - 1];
        i = 1;
      }
      if (++j >= len) j = 0;
    }
    for (int k = kN - 1; k > 0; --k) {
      mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941u)) -
               static_cast<uint32_t>(i);
      if (++i >= kN) {
        mt_[0] = mt_[kN - 1];
        i = 1;
      }
    }
    mt_[0] = 0x80000000u;  // Guarantees a non-zero state.
  }

  void Twist() {
    for (int i = 0; i < kN; ++i) {
      const uint32_t y = (mt_[i] & 0x80000000u) | (mt_[(i + 1) % kN] & 0x7fffffffu);
      mt_[i] = mt_[(i + kM) % kN] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    index_ = 0;
  }

  uint32_t mt_[kN];
  int index_ = kN;
};

// Python's seed % _MAXINT32: the result has the divisor's sign (>= 0).
int64_t TruncateSeed(int64_t seed) {
  const int64_t r = seed % kMaxSeed;
  return r < 0 ? r + kMaxSeed : r;
}

struct SeedState {
  absl::Mutex mu;
  std::optional<int64_t> global_seed ABSL_GUARDED_BY(mu);
  std::optional<PythonMersenneTwister> op_seed_rng ABSL_GUARDED_BY(mu);
};

SeedState& State() {
  static SeedState* state = new SeedState;
  return *state;
}

}  // namespace

void SetRandomSeed(int64_t seed) {
  SeedState& s = State();
  {
    absl::MutexLock lock(&s.mu);
    s.global_seed = seed;
    s.op_seed_rng.emplace(seed);
  }
  ClearRandomOpStates();
}

void ClearRandomSeed() {
  SeedState& s = State();
  {
    absl::MutexLock lock(&s.mu);
    s.global_seed.reset();
    s.op_seed_rng.reset();
  }
  ClearRandomOpStates();
}

std::optional<int64_t> GlobalRandomSeed() {
  SeedState& s = State();
  absl::MutexLock lock(&s.mu);
  return s.global_seed;
}

RandomSeeds GetRandomSeeds(std::optional<int64_t> op_seed) {
  SeedState& s = State();
  absl::MutexLock lock(&s.mu);
  RandomSeeds seeds;
  if (s.global_seed.has_value()) {
    if (!op_seed.has_value()) {
      // randint(0, 2^31 - 1): rejection on 32-bit outputs (randbelow(2^31)
      // draws getrandbits(32), one output, until it is below 2^31).
      uint32_t r;
      do {
        r = s.op_seed_rng->Next();
      } while (r >= (uint32_t{1} << 31));
      op_seed = r;
    }
    seeds = {TruncateSeed(*s.global_seed), TruncateSeed(*op_seed)};
  } else if (op_seed.has_value()) {
    seeds = {kDefaultGraphSeed, TruncateSeed(*op_seed)};
  } else {
    return RandomSeeds{0, 0};  // No seed at all: nondeterministic ops.
  }
  if (seeds.seed == 0 && seeds.seed2 == 0) seeds.seed2 = kMaxSeed;
  return seeds;
}

}  // namespace tfd
