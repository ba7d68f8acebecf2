// Golden values from TensorFlow 2.21.0 (tensorflow-cpu, CPython 3.11.7), eager:
//
//   import tensorflow as tf
//   from tensorflow.python.framework import random_seed
//   random_seed.get_seed(7)                      # no global seed
//   tf.random.set_seed(g)
//   [random_seed.get_seed(None) for _ in range(5)], random_seed.get_seed(7),
//   random_seed.get_seed(0), random_seed.get_seed(None)
//
// for g in (1234, 0, 2**31 - 1, 2**40 + 3, -5).
#include "core/kernels/random_seed.h"

#include <utility>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace {

using Pair = std::pair<int64_t, int64_t>;

Pair Get(std::optional<int64_t> op_seed = std::nullopt) {
  RandomSeeds s = GetRandomSeeds(op_seed);
  return {s.seed, s.seed2};
}

class RandomSeedTest : public ::testing::Test {
 protected:
  void TearDown() override { ClearRandomSeed(); }
};

TEST_F(RandomSeedTest, NoGlobalSeed) {
  ClearRandomSeed();
  EXPECT_FALSE(GlobalRandomSeed().has_value());
  EXPECT_EQ(Get(), Pair(0, 0));  // (None, None): the op picks its own seeds.
  EXPECT_EQ(Get(7), Pair(87654321, 7));
  EXPECT_EQ(Get((int64_t{1} << 31) + 5), Pair(87654321, 6));  // mod 2^31 - 1
  EXPECT_EQ(Get(-1), Pair(87654321, 2147483646));           // Python's %
}

struct GlobalCase {
  int64_t global_seed;
  int64_t truncated;
  std::vector<int64_t> op_seeds;  // Five draws, then one after two explicit.
};

TEST_F(RandomSeedTest, GlobalSeedMatchesTensorFlow) {
  const GlobalCase cases[] = {
      {1234, 1234, {1892932127, 501869158, 32175636, 389311301, 150006740, 360511942}},
      {0, 0, {1654615998, 1806341205, 173879092, 1112038970, 2087043557, 1739178872}},
      {2147483647, 0, {1364760256, 516955790, 843305193, 1247118883, 1427070677, 32113387}},
      {(int64_t{1} << 40) + 3,
       515,
       {943978446, 261273136, 406355048, 1306272805, 1829332056, 1005814068}},
      {-5, 2147483642, {1097127993, 1539898300, 124576495, 1999834075, 1069673014, 222708024}},
  };
  for (const GlobalCase& c : cases) {
    SCOPED_TRACE(c.global_seed);
    SetRandomSeed(c.global_seed);
    ASSERT_EQ(GlobalRandomSeed(), c.global_seed);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(Get(), Pair(c.truncated, c.op_seeds[i]));
    // Explicit op seeds do not advance the internal sequence.
    EXPECT_EQ(Get(7), Pair(c.truncated, 7));
    // (0, 0) would mean "unseeded" to the ops, so it becomes (0, 2^31 - 1).
    EXPECT_EQ(Get(0), Pair(c.truncated, c.truncated == 0 ? 2147483647 : 0));
    EXPECT_EQ(Get(), Pair(c.truncated, c.op_seeds[5]));
  }
}

TEST_F(RandomSeedTest, SetSeedRestartsTheSequence) {
  SetRandomSeed(1234);
  const Pair first = Get();
  Get();
  SetRandomSeed(1234);
  EXPECT_EQ(Get(), first);
  ClearRandomSeed();
  EXPECT_EQ(Get(), Pair(0, 0));
}

}  // namespace
}  // namespace tfd
