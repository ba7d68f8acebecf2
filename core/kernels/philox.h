// Philox4x32-10: the counter-based random number generator of Salmon et al.,
// "Parallel Random Numbers: As Easy as 1, 2, 3" (SC'11), as TensorFlow uses
// it for every stateful random op.
//
// The generator is a pure function of a 128-bit counter and a 64-bit key:
// block(counter, key) is four 32-bit numbers. A PhiloxRandom holds a
// (counter, key) pair; operator() returns the block at the counter and then
// increments the counter by one. Skip(n) jumps n blocks ahead in O(1), which
// is how a parallel kernel gives each shard its own slice of one sequence.
//
// Seeding follows tensorflow::random::PhiloxRandom(seed_lo, seed_hi): the key
// is seed_lo, the counter's upper 64 bits are seed_hi, the lower 64 bits
// start at zero. The host-only helpers at the bottom (defined in philox.cc)
// give ops TensorFlow's seed/seed2 convention.
//
// Everything above those helpers is header-only, allocation-free and marked
// host+device under nvcc, so CUDA kernels can run the same generator.
// A PhiloxRandom is a small value type; copies are independent. It is not
// thread-safe to share one instance; copy it per thread and Skip instead.
//
//   PhiloxRandom gen(/*seed_lo=*/1, /*seed_hi=*/2);
//   gen.Skip(shard_begin);               // this shard's first block
//   PhiloxRandom::Block b = gen();       // four uint32s
#ifndef TFD_CORE_KERNELS_PHILOX_H_
#define TFD_CORE_KERNELS_PHILOX_H_

#include <cstdint>

#if defined(__CUDACC__)
#define TFD_PHILOX_INLINE __host__ __device__ __forceinline__
#else
#define TFD_PHILOX_INLINE inline
#endif

namespace tfd {

// A fixed-size array usable in device code (std::array is not, without
// extra nvcc flags).
template <typename T, int N>
struct PhiloxArray {
  static constexpr int kSize = N;
  T values[N];

  TFD_PHILOX_INLINE T& operator[](int i) { return values[i]; }
  TFD_PHILOX_INLINE const T& operator[](int i) const { return values[i]; }
};

class PhiloxRandom {
 public:
  // Numbers returned per call.
  static constexpr int kResultElementCount = 4;
  static constexpr int kRounds = 10;

  using ResultElementType = uint32_t;
  using Block = PhiloxArray<uint32_t, 4>;
  using Counter = PhiloxArray<uint32_t, 4>;  // counter[0] is the lowest word
  using Key = PhiloxArray<uint32_t, 2>;

  TFD_PHILOX_INLINE PhiloxRandom() : counter_{{0, 0, 0, 0}}, key_{{0, 0}} {}

  // TensorFlow's PhiloxRandom(seed_lo, seed_hi).
  TFD_PHILOX_INLINE PhiloxRandom(uint64_t seed_lo, uint64_t seed_hi)
      : counter_{{0, 0, static_cast<uint32_t>(seed_hi),
                  static_cast<uint32_t>(seed_hi >> 32)}},
        key_{{static_cast<uint32_t>(seed_lo), static_cast<uint32_t>(seed_lo >> 32)}} {}

  TFD_PHILOX_INLINE PhiloxRandom(const Counter& counter, const Key& key)
      : counter_(counter), key_(key) {}

  TFD_PHILOX_INLINE const Counter& counter() const { return counter_; }
  TFD_PHILOX_INLINE const Key& key() const { return key_; }

  // Advances the counter by `count` blocks: a 128-bit addition of `count`.
  // (TensorFlow's Skip drops the carry into the upper half when count is
  // within 2^32 of 2^64; no kernel skips that far.)
  TFD_PHILOX_INLINE void Skip(uint64_t count) {
    const uint64_t low = (static_cast<uint64_t>(counter_[1]) << 32) | counter_[0];
    const uint64_t sum = low + count;
    counter_[0] = static_cast<uint32_t>(sum);
    counter_[1] = static_cast<uint32_t>(sum >> 32);
    if (sum < low) {  // Carry into the upper 64 bits.
      if (++counter_[2] == 0) ++counter_[3];
    }
  }

  // The block at the current counter; then the counter moves on by one.
  TFD_PHILOX_INLINE Block operator()() {
    const Block block = Compute(counter_, key_);
    SkipOne();
    return block;
  }

  // The ten Philox rounds, with the key bumped by the Weyl constants
  // between rounds: a pure function, checked against Random123's
  // known-answer vectors.
  static TFD_PHILOX_INLINE Block Compute(Counter counter, Key key) {
    for (int round = 0; round < kRounds; ++round) {
      if (round > 0) {
        key[0] += kWeylA;
        key[1] += kWeylB;
      }
      counter = Round(counter, key);
    }
    return counter;
  }

 private:
  static constexpr uint32_t kMultiplierA = 0xD2511F53;
  static constexpr uint32_t kMultiplierB = 0xCD9E8D57;
  static constexpr uint32_t kWeylA = 0x9E3779B9;  // golden ratio
  static constexpr uint32_t kWeylB = 0xBB67AE85;  // sqrt(3) - 1

  static TFD_PHILOX_INLINE void MulHiLo(uint32_t a, uint32_t b, uint32_t* hi, uint32_t* lo) {
#if defined(__CUDA_ARCH__)
    *lo = a * b;
    *hi = __umulhi(a, b);
#else
    const uint64_t product = static_cast<uint64_t>(a) * b;
    *lo = static_cast<uint32_t>(product);
    *hi = static_cast<uint32_t>(product >> 32);
#endif
  }

  static TFD_PHILOX_INLINE Counter Round(const Counter& c, const Key& key) {
    uint32_t hi0, lo0, hi1, lo1;
    MulHiLo(kMultiplierA, c[0], &hi0, &lo0);
    MulHiLo(kMultiplierB, c[2], &hi1, &lo1);
    Counter out;
    out[0] = hi1 ^ c[1] ^ key[0];
    out[1] = lo1;
    out[2] = hi0 ^ c[3] ^ key[1];
    out[3] = lo0;
    return out;
  }

  TFD_PHILOX_INLINE void SkipOne() {
    if (++counter_[0] == 0 && ++counter_[1] == 0 && ++counter_[2] == 0) ++counter_[3];
  }

  Counter counter_;
  Key key_;
};

// Hands out the numbers of a PhiloxRandom one at a time (TensorFlow's
// SingleSampleAdapter<PhiloxRandom>): a block is drawn when the previous
// one is used up. Distributions that reject samples (truncated normal)
// draw through it. Holds a pointer to, and advances, the generator.
class PhiloxSingleSample {
 public:
  static constexpr int kNativeElementCount = PhiloxRandom::kResultElementCount;

  TFD_PHILOX_INLINE explicit PhiloxSingleSample(PhiloxRandom* gen)
      : gen_(gen), used_(kNativeElementCount) {}

  TFD_PHILOX_INLINE uint32_t operator()() {
    if (used_ == kNativeElementCount) {
      block_ = (*gen_)();
      used_ = 0;
    }
    return block_[used_++];
  }

 private:
  PhiloxRandom* gen_;
  PhiloxRandom::Block block_;
  int used_;
};

// ---- Host-only (philox.cc) ----------------------------------------------
#if !defined(__CUDA_ARCH__)

// A 64-bit seed from a process-wide generator seeded by the OS; thread-safe.
uint64_t NewNondeterministicSeed();

// The generator an op with attrs seed, seed2 starts from, as TensorFlow's
// GuardedPhiloxRandom::Init: PhiloxRandom(seed, seed2), except that
// seed == seed2 == 0 asks for nondeterminism and picks both at random.
PhiloxRandom PhiloxFromOpSeeds(int64_t seed, int64_t seed2);

#endif

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_PHILOX_H_
