// Global and per-op seeds for random ops, as tf.random.set_seed and
// TensorFlow's random_seed.get_seed give them in eager mode (TensorFlow
// 2.x, python/framework/random_seed.py and eager/context.py).
//
// GetRandomSeeds(op_seed) returns the (seed, seed2) attrs an op should get:
//   global seed | op seed | (seed, seed2)
//   none        | none    | (0, 0): the op seeds itself nondeterministically
//   none        | s       | (kDefaultGraphSeed = 87654321, s mod (2^31-1))
//   g           | s       | (g mod (2^31-1), s mod (2^31-1))
//   g           | none    | (g mod (2^31-1), next internal op seed)
// and a result of (0, 0) from set seeds becomes (0, 2^31-1), because the
// ops read (0, 0) as "no seed". "mod" is Python's %: never negative.
//
// The internal op seeds are what eager TensorFlow draws from
// context.internal_operation_seed(): Python's random.Random(g) (Mersenne
// Twister seeded with |g| by init_by_array) giving randint(0, 2^31-1) per
// call, which for that range is the first 32-bit output below 2^31. So
// SetRandomSeed(1234) followed by GetRandomSeeds() gives (1234, 1892932127)
// then (1234, 501869158), the same pairs as TensorFlow 2.21 on CPython
// 3.11.7 (the versions the goldens in random_seed_test.cc come from; a
// CPython that changed randint's method would give other op seeds).
//
// SetRandomSeed also clears every op's generator state
// (ClearRandomOpStates), as set_seed clears TensorFlow's kernel cache: after
// it, random ops repeat their sequences from the start.
//
// Not mirrored: graph mode's per-graph counter, and the error TensorFlow
// raises for unseeded ops when op determinism is enabled. Thread-safe (the
// state is process-wide, like TensorFlow's eager context).
//
//   SetRandomSeed(42);
//   RandomSeeds s = GetRandomSeeds();
//   Execute1("RandomUniform", {shape},
//            AttrMap().Set("dtype", DT_FLOAT).Set("seed", s.seed).Set("seed2", s.seed2));
#ifndef TFD_CORE_KERNELS_RANDOM_SEED_H_
#define TFD_CORE_KERNELS_RANDOM_SEED_H_

#include <cstdint>
#include <optional>

namespace tfd {

// TensorFlow's DEFAULT_GRAPH_SEED: the seed of ops given only an op seed.
inline constexpr int64_t kDefaultGraphSeed = 87654321;
// TensorFlow's _MAXINT32 (2^31 - 1): seeds are reduced modulo it.
inline constexpr int64_t kMaxSeed = (int64_t{1} << 31) - 1;

struct RandomSeeds {
  int64_t seed = 0;
  int64_t seed2 = 0;
};

// tf.random.set_seed(seed): sets the global seed, restarts the internal op
// seed sequence, and clears random ops' generator state.
void SetRandomSeed(int64_t seed);

// Back to a fresh process's state: no global seed (also clears the ops'
// generator state).
void ClearRandomSeed();

// The global seed as given to SetRandomSeed, or nullopt.
std::optional<int64_t> GlobalRandomSeed();

// random_seed.get_seed(op_seed) in eager mode; see the table above. Advances
// the internal op seed sequence when a global seed is set and op_seed is not.
RandomSeeds GetRandomSeeds(std::optional<int64_t> op_seed = std::nullopt);

}  // namespace tfd

#endif  // TFD_CORE_KERNELS_RANDOM_SEED_H_
