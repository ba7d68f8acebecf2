// Tests of the random ops' CPU kernels: TensorFlow's exact numbers, element
// order independent of threading, the kernels' state across calls, edge
// shapes and errors.
//
// Golden values come from TensorFlow 2.21.0 (pip tensorflow-cpu, CPython
// 3.11.7, glibc x86-64), eager mode, printed as bit patterns:
//
//   import numpy as np, tensorflow as tf
//   R = tf.raw_ops
//   for op in ('RandomUniform', 'RandomStandardNormal', 'TruncatedNormal'):
//     for dt in (tf.float32, tf.float64, tf.half, tf.bfloat16):
//       getattr(R, op)(shape=[10], dtype=dt, seed=1, seed2=2)       # kTen*
//   idx = [0, 1, 2, 3, 4, 5, 255, 256, 257, 500, 997, 998, 999]
//   a = getattr(R, op)(shape=[1000], dtype=dt, seed=7, seed2=11).numpy()
//   a[idx], a.astype(np.float64).sum()                              # kLong*
//   R.RandomUniformInt(shape=[1000], minval=tf.constant(0, dt),
//                      maxval=tf.constant(1000, dt), seed=7, seed2=11)
// Each value is the first call of its op and attrs in a fresh process
// (later calls continue the sequence; see StatefulCallsContinue).
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"
#include "core/device/cpu/cpu_device.h"
#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/cpu/fill_philox_random.h"
#include "core/kernels/guarded_philox_random.h"
#include "core/kernels/random_seed.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

Tensor ShapeTensor(const std::vector<int64_t>& dims, DataType type = DT_INT32) {
  if (type == DT_INT64) return test::AsTensor<int64_t>(dims, {static_cast<int64_t>(dims.size())});
  std::vector<int32_t> d(dims.begin(), dims.end());
  return test::AsTensor<int32_t>(d, {static_cast<int64_t>(d.size())});
}

absl::StatusOr<Tensor> Random(const std::string& op, const std::vector<int64_t>& shape,
                              DataType dtype, int64_t seed, int64_t seed2,
                              Device* device = nullptr, DataType shape_type = DT_INT32) {
  return Execute1(op, {ShapeTensor(shape, shape_type)},
                  AttrMap().Set("dtype", dtype).Set("seed", seed).Set("seed2", seed2), device);
}

template <typename Int>
absl::StatusOr<Tensor> RandomInt(const std::vector<int64_t>& shape, Int lo, Int hi,
                                 int64_t seed, int64_t seed2) {
  return Execute1("RandomUniformInt",
                  {ShapeTensor(shape), Tensor::Scalar<Int>(lo), Tensor::Scalar<Int>(hi)},
                  AttrMap().Set("seed", seed).Set("seed2", seed2));
}

// Element i's bit pattern (2, 4 or 8 bytes); `t` in host memory.
uint64_t BitsAt(const Tensor& t, int64_t i) {
  const size_t size = DataTypeSize(t.dtype());
  uint64_t bits = 0;
  std::memcpy(&bits, static_cast<const char*>(t.raw_data()) + i * size, size);
  return bits;
}

// Distance in units in the last place between two floats of `bytes` bytes,
// given as bit patterns (sign-magnitude mapped onto a line).
int64_t UlpDistance(uint64_t a, uint64_t b, size_t bytes) {
  const uint64_t sign = uint64_t{1} << (bytes * 8 - 1);
  auto ordered = [sign](uint64_t x) -> int64_t {
    const int64_t magnitude = static_cast<int64_t>(x & (sign - 1));
    return (x & sign) ? -magnitude : magnitude;
  };
  const int64_t d = ordered(a) - ordered(b);
  return d < 0 ? -d : d;
}

// Normal samples go through the C library's logf/sincosf (log/sincos). On
// the machine that produced the goldens they match bit for bit; another
// libm may round differently by an ulp, so those goldens allow 2 ulps.
// Uniform and integer outputs are pure bit manipulation: exact.
constexpr int kTranscendentalUlps = 2;

void ExpectBits(const Tensor& t, const std::vector<int64_t>& positions,
                const std::vector<uint64_t>& expected, int max_ulps) {
  ASSERT_EQ(positions.size(), expected.size());
  // Op outputs are on the default device when there is one.
  const Tensor host = test::ToHost(t);
  for (size_t k = 0; k < positions.size(); ++k) {
    const uint64_t got = BitsAt(host, positions[k]);
    EXPECT_LE(UlpDistance(got, expected[k], DataTypeSize(t.dtype())), max_ulps)
        << "element " << positions[k] << ": got 0x" << std::hex << got << ", want 0x"
        << expected[k];
  }
}

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = i;
  return v;
}

class RandomOpsTest : public ::testing::Test {
 protected:
  // Every test starts as a fresh process would: no generator has run yet.
  void SetUp() override { ClearRandomOpStates(); }
  void TearDown() override { ClearRandomSeed(); }
};

struct TenCase {
  const char* op;
  DataType dtype;
  std::vector<uint64_t> bits;
};

TEST_F(RandomOpsTest, TenValuesMatchTensorFlow) {
  const TenCase cases[] = {
      {"RandomUniform", DT_FLOAT,
       {0x3ed0133c, 0x3f5b8ba6, 0x3d62e6c0, 0x3dafddd0, 0x3ed305cc, 0x3d160a40, 0x3f283f22,
        0x3db3cf30, 0x3f5e7caa, 0x3d2cf660}},
      {"RandomUniform", DT_DOUBLE,
       {0x3fd0133e33b7174c, 0x3fdc5cd8282bf774, 0x3fd305cf6c12c148, 0x3fd07e44382cf3cc,
        0x3fee7caab50acf66, 0x3fea888cfd3cefa6, 0x3fe17ea4cc7dfe9e, 0x3fe389c57babca90,
        0x3fe95050666ab87a, 0x3fd1b96c27340560}},
      {"RandomUniform", DT_HALF,
       {0x3278, 0x374c, 0x3a6c, 0x3774, 0x35cc, 0x2d20, 0x3b22, 0x3398, 0x38aa, 0x3b66}},
      {"RandomUniform", DT_BFLOAT16,
       {0x3f1e, 0x3f26, 0x3ed8, 0x3f3a, 0x3f66, 0x3f24, 0x3e08, 0x3f66, 0x3f2a, 0x3ecc}},
      {"RandomStandardNormal", DT_FLOAT,
       {0xbf85fcdd, 0x3f56f6e1, 0x3f9e2fe3, 0x4004150f, 0x3e9b842a, 0x3fa5edfb, 0x3ef5dbd8,
        0x3f47c36a, 0x3e0e3d73, 0x3f02ddd6}},
      {"RandomStandardNormal", DT_DOUBLE,
       {0x3fe298089076cdd3, 0xbff8eb3aca515204, 0x3ff8e4f44037f289, 0xbfb34d61b9fd07a9,
        0xbfd1816ab358dc28, 0x3fc30293969a8e6e, 0xbfe683254bbe0fe9, 0xbfeb040f6e8efb92,
        0x3fe598ac5fe86c45, 0xbfbd87a6b50ef753}},
      {"RandomStandardNormal", DT_HALF,
       {0xbc30, 0x3ab8, 0x3cf1, 0x4021, 0x34dc, 0x3d2f, 0x37af, 0x3a3e, 0x3072, 0x3817}},
      {"RandomStandardNormal", DT_BFLOAT16,
       {0xbf86, 0x3f57, 0x3f9e, 0x4004, 0x3e9c, 0x3fa6, 0x3ef6, 0x3f48, 0x3e0e, 0x3f03}},
      {"TruncatedNormal", DT_FLOAT,
       {0xbf85fcdd, 0x3f56f6e1, 0x3f9e2fe3, 0x3e9b842a, 0x3ec7027f, 0x3f9e4c57, 0x3e762ae7,
        0xbe20e9fd, 0xbe27f63a, 0xbf7dac4f}},
      {"TruncatedNormal", DT_DOUBLE,
       {0x3fe298089076cdd3, 0xbff8eb3aca515204, 0xbff212c734d3894d, 0xbfe0803aba843b6c,
        0xbff20bf7ca0d8c29, 0xbfe1e326f34231da, 0x3ff013f256794a06, 0x3fcff77610125143,
        0x3fe330b1d9847a73, 0x3fba9b77853d5041}},
      {"TruncatedNormal", DT_HALF,
       {0xbc30, 0x3ab8, 0x3cf1, 0x34dc, 0x3638, 0x3cf2, 0x33b1, 0xb107, 0xb140, 0xbbed}},
      {"TruncatedNormal", DT_BFLOAT16,
       {0xbf86, 0x3f57, 0x3f9e, 0x3e9c, 0x3ec7, 0x3f9e, 0x3e76, 0xbe21, 0xbe28, 0xbf7e}},
  };
  for (const TenCase& c : cases) {
    SCOPED_TRACE(std::string(c.op) + " " + DataTypeName(c.dtype));
    absl::StatusOr<Tensor> t = Random(c.op, {10}, c.dtype, 1, 2);
    ASSERT_TRUE(t.ok()) << t.status();
    ASSERT_EQ(t->dtype(), c.dtype);
    ASSERT_EQ(t->shape(), TensorShape({10}));
    const bool exact = std::string(c.op) == "RandomUniform";
    ExpectBits(*t, Iota(10), c.bits, exact ? 0 : kTranscendentalUlps);
  }
}

struct LongCase {
  const char* op;
  DataType dtype;
  double sum;
  std::vector<uint64_t> bits;  // at kLongPositions
};

const std::vector<int64_t> kLongPositions = {0, 1, 2, 3, 4, 5, 255, 256, 257, 500, 997, 998, 999};

TEST_F(RandomOpsTest, ThousandValuesMatchTensorFlowFarIntoTheSequence) {
  const LongCase cases[] = {
      {"RandomUniform", DT_FLOAT, 498.445298910141,
       {0x3cbdf140, 0x3dcbc020, 0x3f11b246, 0x3f158ffa, 0x3eee805c, 0x3e8ddab8, 0x3f4df07e,
        0x3f525a8a, 0x3efdd740, 0x3ee1e650, 0x3f701874, 0x3f62f0d2, 0x3f5e1b0a}},
      {"RandomUniform", DT_DOUBLE, 507.9217684090842,
       {0x3fc7be2a5465e010, 0x3fe1b2479c958ffa, 0x3fe7402e7d46ed5c, 0x3fdbc92082bfb708,
        0x3fbbfdaa32cf1ae0, 0x3fe85bc8063c4918, 0x3fd68b6f6f8ad870, 0x3feec70700c166c2,
        0x3fcd218f5120d2e8, 0x3fe9bd341596b63e, 0x3fe12d1c2ea55650, 0x3f6f5710de7df600,
        0x3fea60a33d4f686c}},
      {"RandomStandardNormal", DT_FLOAT, 12.713024781376589,
       {0x3fcd846c, 0x400e65a7, 0xbf09398e, 0xbf6a9fbd, 0x3f9befef, 0xbe562a63, 0x3f155fa1,
        0x3c88058b, 0xbf20621e, 0xbf77fc14, 0x3ea723ea, 0xbeb9ca7c, 0x3ea9453c}},
      {"RandomStandardNormal", DT_DOUBLE, 10.446443257692074,
       {0xbfe334acd6cd90c4, 0xbffbc172a9dbf4e2, 0x3fd490aa24627d82, 0xbfe76aff8cc8825a,
        0xc000ca36b57910b5, 0x3fc2f1347b9f3652, 0xbfe3259fe7b50d30, 0x3fd1afcea3a93100,
        0x3fa40f18ce9b1024, 0x3fcbf541e6cf0b0e, 0xbff177cbfa50ad23, 0xc007d5fa876fc462,
        0x3ff8067048f54ec3}},
      {"TruncatedNormal", DT_FLOAT, -4.053007118403912,
       {0x3fcd846c, 0xbf09398e, 0xbf6a9fbd, 0x3f9befef, 0x3f86cdc3, 0x3e33f17c, 0x3f6715d7,
        0xbf622caa, 0xbfad67e7, 0x3f34e826, 0xbf87dd06, 0xbe92e9a3, 0xbfa89779}},
      {"TruncatedNormal", DT_DOUBLE, 55.478073822243175,
       {0xbfe334acd6cd90c4, 0xbffbc172a9dbf4e2, 0x3fd1afcea3a93100, 0x3fa40f18ce9b1024,
        0x3ff170c6bc56b663, 0x3fd49be8da7ea052, 0xbfd1db2b70f8e8c7, 0x3fc7b900687e78ac,
        0x3ffe5462c7f67a26, 0xbfc35f6ef2d2c31a, 0x3fd36a69f9fc9832, 0x3fd5905844ac3542,
        0x3fa5809c6f3035c9}},
  };
  for (const LongCase& c : cases) {
    SCOPED_TRACE(std::string(c.op) + " " + DataTypeName(c.dtype));
    absl::StatusOr<Tensor> t = Random(c.op, {1000}, c.dtype, 7, 11);
    ASSERT_TRUE(t.ok()) << t.status();
    const bool exact = std::string(c.op) == "RandomUniform";
    ExpectBits(*t, kLongPositions, c.bits, exact ? 0 : kTranscendentalUlps);
    double sum = 0;
    for (double v : test::ToDoubles(*t)) sum += v;
    EXPECT_NEAR(sum, c.sum, 1e-9 * 1000);  // numpy sums pairwise: order differs.
  }
}

TEST_F(RandomOpsTest, UniformIntMatchesTensorFlow) {
  // R.RandomUniformInt(shape=[10], minval=-5, maxval=17, seed=1, seed2=2)
  absl::StatusOr<Tensor> small = RandomInt<int32_t>({10}, -5, 17, 1, 2);
  ASSERT_TRUE(small.ok()) << small.status();
  test::ExpectTensorEqual(*small,
                          test::AsTensor<int32_t>({0, 0, 1, 4, 12, 9, -2, 4, 6, -4}, {10}));
  // minval=tf.constant(-2**40, tf.int64), maxval=tf.constant(2**50, tf.int64)
  absl::StatusOr<Tensor> big =
      RandomInt<int64_t>({10}, -(int64_t{1} << 40), int64_t{1} << 50, 1, 2);
  ASSERT_TRUE(big.ok()) << big.status();
  test::ExpectTensorEqual(
      *big, test::AsTensor<int64_t>({724388768122063, 135090663790390, 558907176305011,
                                     1049978916315025, 786922094935637, 800253895590982,
                                     410460864692050, 698501392090338, 159694799546408,
                                     719460985237083},
                                    {10}));
  // minval=-2**31, maxval=2**31-1, seed=3, seed2=4: a range that overflows int32.
  absl::StatusOr<Tensor> wide = RandomInt<int32_t>({6}, INT32_MIN, INT32_MAX, 3, 4);
  ASSERT_TRUE(wide.ok()) << wide.status();
  test::ExpectTensorEqual(*wide, test::AsTensor<int32_t>({-151634687, 229599812, -1954980207,
                                                          501771546, 1178931311, -184892548},
                                                         {6}));
  // shape=[1000], [0, 1000), seed=7, seed2=11, both widths.
  struct IntCase {
    bool is64;
    int64_t sum;
    std::vector<int64_t> at;
  };
  const IntCase cases[] = {
      {false, 509254, {853, 154, 427, 357, 687, 142, 863, 549, 688, 252, 930, 889, 61}},
      {true, 485197, {437, 99, 719, 816, 482, 196, 291, 523, 665, 682, 470, 275, 465}},
  };
  for (const IntCase& c : cases) {
    absl::StatusOr<Tensor> t = c.is64 ? RandomInt<int64_t>({1000}, 0, 1000, 7, 11)
                                      : RandomInt<int32_t>({1000}, 0, 1000, 7, 11);
    ASSERT_TRUE(t.ok()) << t.status();
    const std::vector<double> v = test::ToDoubles(*t);
    double sum = 0;
    for (double x : v) sum += x;
    EXPECT_EQ(sum, static_cast<double>(c.sum)) << "int64=" << c.is64;
    for (size_t k = 0; k < kLongPositions.size(); ++k) {
      EXPECT_EQ(v[kLongPositions[k]], c.at[k]) << "element " << kLongPositions[k];
    }
  }
}

TEST_F(RandomOpsTest, SeedsAndShapesMatchTensorFlow) {
  // shape=tf.constant([2, 3], tf.int64), float32, seed=1, seed2=2: the first
  // six of the [10] case, in a 2-D shape.
  absl::StatusOr<Tensor> t = Random("RandomUniform", {2, 3}, DT_FLOAT, 1, 2, nullptr, DT_INT64);
  ASSERT_TRUE(t.ok()) << t.status();
  EXPECT_EQ(t->shape(), TensorShape({2, 3}));
  ExpectBits(*t, Iota(6), {0x3ed0133c, 0x3f5b8ba6, 0x3d62e6c0, 0x3dafddd0, 0x3ed305cc, 0x3d160a40},
             0);
  // One seed zero is still deterministic; negative seeds are fine.
  // R.RandomUniform(shape=[4], dtype=tf.float32, seed=s, seed2=s2)
  struct SeedCase {
    int64_t seed, seed2;
    std::vector<uint64_t> bits;
  };
  const SeedCase cases[] = {
      {0, 5, {0x3f6d2818, 0x3eb3f368, 0x3f46168a, 0x3ed53884}},
      {5, 0, {0x3e3b40e8, 0x3f30a328, 0x3f2c5876, 0x3ee789e0}},
      {-1, -2, {0x3e803590, 0x3ebfa5e4, 0x3e3b33b8, 0x3f75f23a}},
  };
  for (const SeedCase& c : cases) {
    absl::StatusOr<Tensor> u = Random("RandomUniform", {4}, DT_FLOAT, c.seed, c.seed2);
    ASSERT_TRUE(u.ok()) << u.status();
    ExpectBits(*u, Iota(4), c.bits, 0);
  }
  // A partial group: R.TruncatedNormal(shape=[3], dtype=tf.float32, seed=5, seed2=6)
  absl::StatusOr<Tensor> tn = Random("TruncatedNormal", {3}, DT_FLOAT, 5, 6);
  ASSERT_TRUE(tn.ok()) << tn.status();
  ExpectBits(*tn, Iota(3), {0x3f3409ba, 0xbedf24c2, 0xbf52855b}, kTranscendentalUlps);
}

TEST_F(RandomOpsTest, StatefulCallsContinue) {
  // a = R.RandomUniform(shape=[3], dtype=tf.float32, seed=21, seed2=22)
  // b = R.RandomUniform(shape=[5], dtype=tf.float32, seed=21, seed2=22)
  // TensorFlow's cached kernel reserved 3 * 256 blocks for a; b follows.
  absl::StatusOr<Tensor> a = Random("RandomUniform", {3}, DT_FLOAT, 21, 22);
  absl::StatusOr<Tensor> b = Random("RandomUniform", {5}, DT_FLOAT, 21, 22);
  ASSERT_TRUE(a.ok() && b.ok());
  ExpectBits(*a, Iota(3), {0x3edf5a10, 0x3ece1c30, 0x3ecfb760}, 0);
  ExpectBits(*b, Iota(5), {0x3f080702, 0x3f73092c, 0x3f2bdd1c, 0x3f77cde0, 0x3f64a7ba}, 0);
  // Other attrs (here the shape's dtype) are another kernel: a fresh start.
  absl::StatusOr<Tensor> c = Random("RandomUniform", {3}, DT_FLOAT, 21, 22, nullptr, DT_INT64);
  ASSERT_TRUE(c.ok());
  ExpectBits(*c, Iota(3), {0x3edf5a10, 0x3ece1c30, 0x3ecfb760}, 0);
  // Clearing the state (what set_seed does) restarts the sequence.
  ClearRandomOpStates();
  absl::StatusOr<Tensor> again = Random("RandomUniform", {3}, DT_FLOAT, 21, 22);
  ASSERT_TRUE(again.ok());
  test::ExpectTensorEqual(*again, *a);
}

TEST_F(RandomOpsTest, EmptyIntOutputLeavesTheGeneratorAlone) {
  absl::StatusOr<Tensor> fresh = RandomInt<int32_t>({4}, 0, 100, 31, 32);
  ASSERT_TRUE(fresh.ok());
  ClearRandomOpStates();
  absl::StatusOr<Tensor> empty = RandomInt<int32_t>({0}, 0, 100, 31, 32);
  ASSERT_TRUE(empty.ok()) << empty.status();
  absl::StatusOr<Tensor> after = RandomInt<int32_t>({4}, 0, 100, 31, 32);
  ASSERT_TRUE(after.ok());
  test::ExpectTensorEqual(*after, *fresh);
}

TEST_F(RandomOpsTest, TensorFlowSetSeedEndToEnd) {
  // tf.random.set_seed(1234)
  // tf.random.uniform([4]); tf.random.uniform([4])
  // tf.random.set_seed(1234)
  // tf.random.uniform([4], seed=5); tf.random.uniform([4], seed=5)
  auto uniform = [](std::optional<int64_t> op_seed) -> std::vector<double> {
    RandomSeeds s = GetRandomSeeds(op_seed);
    absl::StatusOr<Tensor> t = Random("RandomUniform", {4}, DT_FLOAT, s.seed, s.seed2);
    EXPECT_TRUE(t.ok()) << t.status();
    return t.ok() ? test::ToDoubles(*t) : std::vector<double>();
  };
  auto f = [](std::vector<double> v) {  // float32 values as TensorFlow printed them
    for (double& x : v) x = static_cast<float>(x);
    return v;
  };
  SetRandomSeed(1234);
  EXPECT_EQ(uniform(std::nullopt),
            f({0.5380393266677856, 0.3646186590194702, 0.5816301107406616, 0.2438284158706665}));
  EXPECT_EQ(uniform(std::nullopt), f({0.32536470890045166, 0.13870060443878174,
                                      0.6480493545532227, 0.30401837825775146}));
  SetRandomSeed(1234);
  EXPECT_EQ(uniform(5),
            f({0.5191683769226074, 0.2586510181427002, 0.30959463119506836, 0.16933536529541016}));
  EXPECT_EQ(uniform(5),
            f({0.5004482269287109, 0.5647857189178467, 0.6456433534622192, 0.5412696599960327}));
}

// A plain reference for float uniforms: element i takes the low 23 bits of
// word i % 4 of block i / 4 of PhiloxRandom(seed, seed2).
std::vector<float> ReferenceUniform(int64_t n, uint64_t seed, uint64_t seed2) {
  std::vector<float> out(n);
  for (int64_t i = 0; i < n; ++i) {
    PhiloxRandom gen(seed, seed2);
    gen.Skip(i / 4);
    const uint32_t bits = 0x3f800000u | (gen()[i % 4] & 0x7fffffu);
    float f;
    std::memcpy(&f, &bits, 4);
    out[i] = f - 1.0f;
  }
  return out;
}

TEST_F(RandomOpsTest, ResultDoesNotDependOnThreads) {
  static CpuDevice* one_thread = new CpuDevice(/*id=*/101, /*num_threads=*/1);
  static CpuDevice* four_threads = new CpuDevice(/*id=*/102, /*num_threads=*/4);
  const int64_t n = (1 << 16) + 3;  // Big enough to shard; a partial last group.

  absl::StatusOr<Tensor> par = Random("RandomUniform", {n}, DT_FLOAT, 9, 10, four_threads);
  ASSERT_TRUE(par.ok()) << par.status();
  const std::vector<float> ref = ReferenceUniform(n, 9, 10);
  EXPECT_TRUE(std::equal(ref.begin(), ref.end(), par->data<float>()));

  for (const char* op : {"RandomStandardNormal", "TruncatedNormal"}) {
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      SCOPED_TRACE(std::string(op) + " " + DataTypeName(dtype));
      absl::StatusOr<Tensor> a = Random(op, {n}, dtype, 9, 10, one_thread);
      absl::StatusOr<Tensor> b = Random(op, {n}, dtype, 9, 10, four_threads);
      ASSERT_TRUE(a.ok() && b.ok());
      test::ExpectTensorEqual(*b, *a);
    }
  }
  // Any split of the groups gives the same elements.
  const PhiloxRandom base(9, 10);
  using Dist = TruncatedNormalDistribution<float>;
  const int64_t groups = PhiloxGroupCount<Dist>(1001);
  std::vector<float> whole(1001), pieces(1001);
  FillPhiloxRandomGroups(base, whole.data(), 1001, 0, groups, Dist());
  for (auto [b, e] : {std::pair<int64_t, int64_t>{0, 7}, {7, 8}, {8, 100}, {100, groups}}) {
    FillPhiloxRandomGroups(base, pieces.data(), 1001, b, e, Dist());
  }
  EXPECT_EQ(pieces, whole);
}

TEST_F(RandomOpsTest, DistributionsHaveTheirMoments) {
  const int64_t n = 200000;
  auto moments = [](const std::vector<double>& v, double* mean, double* var) {
    double s = 0, s2 = 0;
    for (double x : v) s += x;
    *mean = s / v.size();
    for (double x : v) s2 += (x - *mean) * (x - *mean);
    *var = s2 / v.size();
  };
  double mean, var;
  for (DataType dtype : {DT_FLOAT, DT_DOUBLE, DT_HALF, DT_BFLOAT16}) {
    SCOPED_TRACE(DataTypeName(dtype));
    std::vector<double> u = test::ToDoubles(*Random("RandomUniform", {n}, dtype, 3, 4));
    for (double x : u) ASSERT_TRUE(x >= 0 && x < 1) << x;
    moments(u, &mean, &var);
    EXPECT_NEAR(mean, 0.5, 0.01);
    EXPECT_NEAR(var, 1.0 / 12, 0.01);
    std::vector<double> z = test::ToDoubles(*Random("RandomStandardNormal", {n}, dtype, 3, 4));
    moments(z, &mean, &var);
    EXPECT_NEAR(mean, 0, 0.01);
    EXPECT_NEAR(var, 1, 0.02);
    std::vector<double> t = test::ToDoubles(*Random("TruncatedNormal", {n}, dtype, 3, 4));
    for (double x : t) ASSERT_TRUE(std::fabs(x) <= 2) << x;  // half may round to 2.0
    moments(t, &mean, &var);
    EXPECT_NEAR(mean, 0, 0.01);
    EXPECT_NEAR(var, 0.7737, 0.02);  // Variance of N(0,1) truncated to (-2, 2).
  }
  std::vector<double> ints = test::ToDoubles(*RandomInt<int64_t>({n}, -3, 4, 3, 4));
  std::vector<int> counts(7);
  for (double x : ints) {
    ASSERT_TRUE(x >= -3 && x < 4) << x;
    ++counts[static_cast<int>(x) + 3];
  }
  for (int c : counts) EXPECT_NEAR(c, n / 7.0, n / 7.0 * 0.05);
}

TEST_F(RandomOpsTest, EdgeShapes) {
  for (const std::vector<int64_t>& dims :
       {std::vector<int64_t>{0}, std::vector<int64_t>{3, 0}, std::vector<int64_t>{}}) {
    for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
      absl::StatusOr<Tensor> t = Random(op, dims, DT_FLOAT, 1, 2);
      ASSERT_TRUE(t.ok()) << op << ": " << t.status();
      EXPECT_EQ(t->shape(), TensorShape(dims));
    }
    absl::StatusOr<Tensor> i = RandomInt<int32_t>(dims, 0, 5, 1, 2);
    ASSERT_TRUE(i.ok()) << i.status();
    EXPECT_EQ(i->shape(), TensorShape(dims));
  }
  // A scalar shape ([]): one element, the sequence's first.
  ClearRandomOpStates();
  absl::StatusOr<Tensor> s = Random("RandomUniform", {}, DT_FLOAT, 1, 2);
  ASSERT_TRUE(s.ok());
  ExpectBits(*s, {0}, {0x3ed0133c}, 0);
  // An empty output needs no valid range, as in TensorFlow.
  EXPECT_TRUE(RandomInt<int32_t>({2, 0}, 5, 5, 1, 2).ok());
}

void ExpectInvalid(const absl::StatusOr<Tensor>& t, const std::string& op,
                   const std::string& fragment) {
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument) << t.status();
  EXPECT_NE(t.status().message().find(op), std::string::npos) << t.status();
  EXPECT_NE(t.status().message().find(fragment), std::string::npos) << t.status();
}

TEST_F(RandomOpsTest, Errors) {
  const AttrMap f32 = AttrMap().Set("dtype", DT_FLOAT);
  ExpectInvalid(Execute1("RandomUniform", {test::AsTensor<int32_t>({2, 3}, {1, 2})}, f32),
                "RandomUniform", "got shape [1,2]");
  ExpectInvalid(Random("RandomStandardNormal", {-1, 2}, DT_FLOAT, 1, 2), "RandomStandardNormal",
                ">= 0");
  ExpectInvalid(Random("TruncatedNormal", {2}, DT_INT32, 1, 2), "TruncatedNormal", "dtype");
  ExpectInvalid(Execute1("RandomUniform", {test::AsTensor<float>({2}, {1})}, f32),
                "RandomUniform", "float32");
  ExpectInvalid(Execute1("RandomUniform", {ShapeTensor({2})}), "RandomUniform", "dtype");
  ExpectInvalid(Execute1("RandomUniform", {ShapeTensor({2})},
                         AttrMap().Set("dtype", DT_FLOAT).Set("seed", 1.5f)),
                "RandomUniform", "seed");

  ExpectInvalid(RandomInt<int32_t>({3}, 4, 4, 1, 2), "RandomUniformInt",
                "Need minval < maxval: 4 >= 4");
  ExpectInvalid(RandomInt<int64_t>({3}, 9, -9, 1, 2), "RandomUniformInt", "9 >= -9");
  ExpectInvalid(Execute1("RandomUniformInt",
                         {ShapeTensor({3}), test::AsTensor<int32_t>({0, 1}, {2}),
                          Tensor::Scalar<int32_t>(5)}),
                "RandomUniformInt", "minval must be 0-D, got shape [2]");
  ExpectInvalid(Execute1("RandomUniformInt",
                         {ShapeTensor({3}), Tensor::Scalar<int32_t>(0),
                          test::AsTensor<int32_t>({5}, {1, 1})}),
                "RandomUniformInt", "maxval must be 0-D, got shape [1,1]");
  ExpectInvalid(Execute1("RandomUniformInt", {ShapeTensor({3}), Tensor::Scalar<int32_t>(0),
                                              Tensor::Scalar<int64_t>(5)}),
                "RandomUniformInt", "");
  ExpectInvalid(Execute1("RandomUniformInt", {ShapeTensor({3}), Tensor::Scalar<float>(0),
                                              Tensor::Scalar<float>(5)}),
                "RandomUniformInt", "float32");
}

TEST_F(RandomOpsTest, UnseededOpsAreNondeterministic) {
  absl::StatusOr<Tensor> a = Random("RandomUniform", {8}, DT_FLOAT, 0, 0);
  ClearRandomOpStates();  // A fresh kernel: new random seeds.
  absl::StatusOr<Tensor> b = Random("RandomUniform", {8}, DT_FLOAT, 0, 0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(test::ToDoubles(*a), test::ToDoubles(*b));
}

TEST_F(RandomOpsTest, OpsAreStatefulAndNotDifferentiable) {
  for (const char* op :
       {"RandomUniform", "RandomStandardNormal", "TruncatedNormal", "RandomUniformInt"}) {
    absl::StatusOr<const OpDef*> def = LookupOpDef(op);
    ASSERT_TRUE(def.ok()) << op;
    EXPECT_TRUE((*def)->is_stateful) << op;
    absl::StatusOr<const GradFn*> grad = LookupGradient(op);
    ASSERT_TRUE(grad.ok()) << op << ": " << grad.status();
    EXPECT_EQ(*grad, nullptr) << op;
  }
}

}  // namespace
}  // namespace tfd
