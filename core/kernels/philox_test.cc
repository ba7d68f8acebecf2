#include "core/kernels/philox.h"

#include <cstdint>
#include <set>
#include <vector>

#include "gtest/gtest.h"

namespace tfd {
namespace {

using Block = PhiloxRandom::Block;

std::vector<uint32_t> ToVector(const Block& b) { return {b[0], b[1], b[2], b[3]}; }

// Random123's known-answer vectors, tests/kat_vectors of
// github.com/DEShawResearch/random123, the three "philox4x32 10" lines:
// counter (4 words, lowest first), key (2 words), expected output.
struct KnownAnswer {
  PhiloxRandom::Counter counter;
  PhiloxRandom::Key key;
  std::vector<uint32_t> expected;
};

TEST(PhiloxTest, MatchesRandom123KnownAnswers) {
  const KnownAnswer cases[] = {
      {{{0x00000000, 0x00000000, 0x00000000, 0x00000000}},
       {{0x00000000, 0x00000000}},
       {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}},
       {{0xffffffff, 0xffffffff}},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}},
       {{0xa4093822, 0x299f31d0}},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const KnownAnswer& c : cases) {
    EXPECT_EQ(ToVector(PhiloxRandom::Compute(c.counter, c.key)), c.expected);
    // The stateful interface returns the same block first.
    PhiloxRandom gen(c.counter, c.key);
    EXPECT_EQ(ToVector(gen()), c.expected);
  }
}

TEST(PhiloxTest, SeedsAsTensorFlowDoes) {
  // key = seed_lo, counter = {0, 0, seed_hi low word, seed_hi high word}.
  PhiloxRandom gen(0x1122334455667788ull, 0x99aabbccddeeff00ull);
  EXPECT_EQ(gen.key()[0], 0x55667788u);
  EXPECT_EQ(gen.key()[1], 0x11223344u);
  EXPECT_EQ(gen.counter()[0], 0u);
  EXPECT_EQ(gen.counter()[1], 0u);
  EXPECT_EQ(gen.counter()[2], 0xddeeff00u);
  EXPECT_EQ(gen.counter()[3], 0x99aabbccu);
}

TEST(PhiloxTest, EachCallAdvancesTheCounterByOne) {
  PhiloxRandom gen(7, 9);
  const PhiloxRandom::Key key = gen.key();
  for (uint32_t i = 0; i < 5; ++i) {
    PhiloxRandom::Counter expected_counter = {{i, 0, 9, 0}};
    EXPECT_EQ(ToVector(gen()), ToVector(PhiloxRandom::Compute(expected_counter, key)));
  }
}

TEST(PhiloxTest, SkipEqualsDrawing) {
  for (uint64_t n : {0ull, 1ull, 3ull, 100ull, 1000ull}) {
    PhiloxRandom drawn(42, 43), skipped(42, 43);
    for (uint64_t i = 0; i < n; ++i) drawn();
    skipped.Skip(n);
    EXPECT_EQ(ToVector(drawn()), ToVector(skipped())) << "n=" << n;
  }
}

TEST(PhiloxTest, SkipCarriesAcrossWords) {
  // Low word carries into the second.
  PhiloxRandom a({{0xfffffffe, 5, 6, 7}}, {{1, 2}});
  a.Skip(3);
  EXPECT_EQ(ToVector(a.counter()), (std::vector<uint32_t>{1, 6, 6, 7}));
  // The low 64 bits wrap into the upper half.
  PhiloxRandom b({{0xffffffff, 0xffffffff, 0xffffffff, 7}}, {{1, 2}});
  b.Skip(2);
  EXPECT_EQ(ToVector(b.counter()), (std::vector<uint32_t>{1, 0, 0, 8}));
  // A large skip (high word of the count).
  PhiloxRandom c({{0, 0xffffffff, 0, 0}}, {{1, 2}});
  c.Skip(uint64_t{1} << 32);
  EXPECT_EQ(ToVector(c.counter()), (std::vector<uint32_t>{0, 0, 1, 0}));
  // Drawing across the full wrap of all four words.
  PhiloxRandom d({{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}}, {{1, 2}});
  d();
  EXPECT_EQ(ToVector(d.counter()), (std::vector<uint32_t>{0, 0, 0, 0}));
}

TEST(PhiloxTest, SingleSampleHandsOutBlocksInOrder) {
  PhiloxRandom blocks(3, 4), source(3, 4);
  PhiloxSingleSample single(&source);
  for (int b = 0; b < 3; ++b) {
    const Block expected = blocks();
    for (int i = 0; i < 4; ++i) EXPECT_EQ(single(), expected[i]);
  }
}

TEST(PhiloxTest, OpSeedsZeroZeroIsNondeterministic) {
  // Explicit seeds give PhiloxRandom(seed, seed2) exactly.
  PhiloxRandom seeded = PhiloxFromOpSeeds(1, 2);
  PhiloxRandom direct(1, 2);
  EXPECT_EQ(ToVector(seeded()), ToVector(direct()));
  // Negative int64 seeds keep their two's-complement bits.
  PhiloxRandom negative = PhiloxFromOpSeeds(-1, -2);
  EXPECT_EQ(negative.key()[0], 0xffffffffu);
  EXPECT_EQ(negative.counter()[2], 0xfffffffeu);
  // (0, 0) draws fresh seeds each time: distinct generators.
  std::set<std::vector<uint32_t>> firsts;
  for (int i = 0; i < 8; ++i) {
    PhiloxRandom g = PhiloxFromOpSeeds(0, 0);
    firsts.insert(ToVector(g()));
  }
  EXPECT_EQ(firsts.size(), 8u);
}

}  // namespace
}  // namespace tfd
