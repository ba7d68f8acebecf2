// Initializers: Keras's fans, the statistics of every random initializer
// against the variance its formula asks for, seeded determinism, constant
// fills, lookup by name, and Keras's errors.
#include "core/nn/initializers.h"

#include <cmath>

#include "core/kernels/random_seed.h"
#include "core/nn/layer_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using test::ExpectError;
using test::Values;

struct Stats {
  double mean, std, min, max;
};

Stats StatsOf(const std::vector<double>& v) {
  double sum = 0, sq = 0, lo = v[0], hi = v[0];
  for (double x : v) {
    sum += x;
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  const double mean = sum / v.size();
  for (double x : v) sq += (x - mean) * (x - mean);
  return {mean, std::sqrt(sq / v.size()), lo, hi};
}

TEST(FansTest, AsKerasComputesThem) {
  Fans dense = ComputeFans(TensorShape({784, 64}));
  EXPECT_EQ(dense.fan_in, 784);
  EXPECT_EQ(dense.fan_out, 64);
  // Conv2D kernel [3, 3, 32, 64]: receptive field 9.
  Fans conv = ComputeFans(TensorShape({3, 3, 32, 64}));
  EXPECT_EQ(conv.fan_in, 9 * 32);
  EXPECT_EQ(conv.fan_out, 9 * 64);
  Fans conv1d = ComputeFans(TensorShape({5, 4, 8}));
  EXPECT_EQ(conv1d.fan_in, 20);
  EXPECT_EQ(conv1d.fan_out, 40);
  Fans vec = ComputeFans(TensorShape({10}));
  EXPECT_EQ(vec.fan_in, 10);
  EXPECT_EQ(vec.fan_out, 10);
  Fans scalar = ComputeFans(TensorShape());
  EXPECT_EQ(scalar.fan_in, 1);
  EXPECT_EQ(scalar.fan_out, 1);
}

struct RandomCase {
  const char* name;
  InitializerPtr init;
  TensorShape shape;
  double mean, std;
  double bound;  // Largest |x - mean| possible; 0 when unbounded.
};

TEST(InitializerTest, RandomInitializersHaveTheirFormulasStatistics) {
  const TensorShape dense({400, 200});     // fan_in 400, fan_out 200, avg 300.
  const TensorShape conv({3, 3, 40, 30});  // fan_in 360, fan_out 270, avg 315.
  const double trunc = 0.87962566103423978;
  // A unit normal truncated at +-2 has standard deviation `trunc`, so the
  // Keras scaling by 1/trunc gives back the target deviation.
  std::vector<RandomCase> cases = {
      {"glorot_uniform", GlorotUniform(1), dense, 0, std::sqrt(1.0 / 300), std::sqrt(3.0 / 300)},
      {"glorot_normal", GlorotNormal(2), dense, 0, std::sqrt(1.0 / 300),
       2 * std::sqrt(1.0 / 300) / trunc},
      {"he_normal", HeNormal(3), conv, 0, std::sqrt(2.0 / 360), 2 * std::sqrt(2.0 / 360) / trunc},
      {"he_uniform", HeUniform(4), conv, 0, std::sqrt(2.0 / 360), std::sqrt(6.0 / 360)},
      {"lecun_normal", LecunNormal(5), dense, 0, std::sqrt(1.0 / 400),
       2 * std::sqrt(1.0 / 400) / trunc},
      {"lecun_uniform", LecunUniform(6), conv, 0, std::sqrt(1.0 / 360), std::sqrt(3.0 / 360)},
      {"random_normal", RandomNormal(0.5, 2.0, 7), dense, 0.5, 2.0, 0},
      {"random_uniform", RandomUniform(-1.0, 3.0, 8), dense, 1.0, 4.0 / std::sqrt(12.0), 2.0},
      {"truncated_normal", TruncatedNormal(-1.0, 0.5, 9), dense, -1.0, 0.5 * trunc, 1.0},
  };
  for (const RandomCase& c : cases) {
    SCOPED_TRACE(c.name);
    for (DataType dtype : {DT_FLOAT, DT_DOUBLE}) {
      ASSERT_OK_AND_ASSIGN(Tensor t, (*c.init)(c.shape, dtype));
      EXPECT_EQ(t.dtype(), dtype);
      EXPECT_EQ(t.shape(), c.shape);
      const Stats s = StatsOf(Values(t));
      // 80000 and 32400 draws: the sample mean is within 5 standard errors
      // and the deviation within 3%.
      const double n = static_cast<double>(c.shape.num_elements());
      EXPECT_NEAR(s.mean, c.mean, 5 * c.std / std::sqrt(n));
      EXPECT_NEAR(s.std, c.std, 0.03 * c.std);
      if (c.bound > 0) {
        EXPECT_GE(s.min, c.mean - c.bound * (1 + 1e-6));
        EXPECT_LE(s.max, c.mean + c.bound * (1 + 1e-6));
        // The draws reach close to the bounds.
        EXPECT_LT(s.min, c.mean - 0.9 * c.bound);
        EXPECT_GT(s.max, c.mean + 0.9 * c.bound);
      }
    }
  }
}

TEST(InitializerTest, VarianceScalingModesAndDistributions) {
  const TensorShape shape({300, 100});  // fan_in 300, fan_out 100, avg 200.
  struct Case {
    const char* mode;
    const char* distribution;
    double fan;
  };
  for (const Case& c : {Case{"fan_in", "untruncated_normal", 300}, Case{"fan_out", "uniform", 100},
                        Case{"fan_avg", "normal", 200}}) {
    SCOPED_TRACE(c.mode);
    ASSERT_OK_AND_ASSIGN(InitializerPtr init, VarianceScaling(3.0, c.mode, c.distribution, 11));
    ASSERT_OK_AND_ASSIGN(Tensor t, (*init)(shape, DT_DOUBLE));
    const Stats s = StatsOf(Values(t));
    EXPECT_NEAR(s.std, std::sqrt(3.0 / c.fan), 0.03 * std::sqrt(3.0 / c.fan));
  }
  ExpectError(VarianceScaling(0.0).status(), absl::StatusCode::kInvalidArgument,
              {"`scale` must be positive float. Received: scale=0"});
  ExpectError(VarianceScaling(1.0, "fan_max").status(), absl::StatusCode::kInvalidArgument,
              {"Invalid `mode` argument: fan_max"});
  ExpectError(VarianceScaling(1.0, "fan_in", "Cauchy").status(), absl::StatusCode::kInvalidArgument,
              {"Invalid `distribution` argument: cauchy"});
}

TEST(InitializerTest, SeededDrawsRepeatFromAFreshStateAndDifferBySeed) {
  const TensorShape shape({8, 8});
  ClearRandomSeed();
  std::vector<double> first = Values(*(*GlorotUniform(42))(shape, DT_FLOAT));
  std::vector<double> second_call = Values(*(*GlorotUniform(42))(shape, DT_FLOAT));
  std::vector<double> other_seed = Values(*(*GlorotUniform(43))(shape, DT_FLOAT));
  ClearRandomSeed();
  std::vector<double> again = Values(*(*GlorotUniform(42))(shape, DT_FLOAT));
  EXPECT_EQ(first, again);
  // Stateful ops: the same seed continues its sequence.
  EXPECT_NE(first, second_call);
  EXPECT_NE(first, other_seed);
  ClearRandomSeed();
}

TEST(InitializerTest, UnseededDrawsFollowTheGlobalSeed) {
  const TensorShape shape({4, 4});
  SetRandomSeed(1234);
  std::vector<double> a1 = Values(*(*HeNormal())(shape, DT_FLOAT));
  std::vector<double> a2 = Values(*(*HeNormal())(shape, DT_FLOAT));
  SetRandomSeed(1234);
  std::vector<double> b1 = Values(*(*HeNormal())(shape, DT_FLOAT));
  std::vector<double> b2 = Values(*(*HeNormal())(shape, DT_FLOAT));
  EXPECT_EQ(a1, b1);
  EXPECT_EQ(a2, b2);
  EXPECT_NE(a1, a2);
  ClearRandomSeed();
}

TEST(InitializerTest, ConstantFills) {
  ASSERT_OK_AND_ASSIGN(Tensor z, (*Zeros())(TensorShape({2, 3}), DT_FLOAT));
  EXPECT_EQ(Values(z), std::vector<double>(6, 0.0));
  ASSERT_OK_AND_ASSIGN(Tensor o, (*Ones())(TensorShape({4}), DT_DOUBLE));
  EXPECT_EQ(Values(o), std::vector<double>(4, 1.0));
  ASSERT_OK_AND_ASSIGN(Tensor c, (*Constant(2.5))(TensorShape({3}), DT_FLOAT));
  EXPECT_EQ(Values(c), std::vector<double>(3, 2.5));
  // Integer weights (counters) can be filled too.
  ASSERT_OK_AND_ASSIGN(Tensor i, (*Constant(7))(TensorShape({2}), DT_INT64));
  EXPECT_EQ(i.dtype(), DT_INT64);
  EXPECT_EQ(tfd::test::ToHost(i).data<int64_t>()[1], 7);
  ASSERT_OK_AND_ASSIGN(Tensor empty, (*Ones())(TensorShape({0, 3}), DT_FLOAT));
  EXPECT_EQ(empty.NumElements(), 0);
}

TEST(InitializerTest, RandomInitializersRefuseIntegerDtypes) {
  ExpectError((*GlorotUniform())(TensorShape({2, 2}), DT_INT32).status(),
              absl::StatusCode::kInvalidArgument, {"Expected floating point type, got int32"});
}

TEST(InitializerTest, LookupByKerasName) {
  struct Case {
    const char* id;
    const char* cls;
  };
  for (const Case& c :
       {Case{"glorot_uniform", "GlorotUniform"}, Case{"glorot_normal", "GlorotNormal"},
        Case{"he_normal", "HeNormal"}, Case{"he_uniform", "HeUniform"},
        Case{"lecun_normal", "LecunNormal"}, Case{"lecun_uniform", "LecunUniform"},
        Case{"random_normal", "RandomNormal"}, Case{"normal", "RandomNormal"},
        Case{"random_uniform", "RandomUniform"}, Case{"uniform", "RandomUniform"},
        Case{"truncated_normal", "TruncatedNormal"}, Case{"zeros", "Zeros"}, Case{"zero", "Zeros"},
        Case{"ones", "Ones"}, Case{"one", "Ones"}, Case{"constant", "Constant"},
        Case{"variance_scaling", "VarianceScaling"}, Case{"HeNormal", "HeNormal"}}) {
    ASSERT_OK_AND_ASSIGN(InitializerPtr init, GetInitializer(c.id));
    EXPECT_EQ(init->name(), c.cls) << c.id;
  }
  // Keras's defaults: uniform in [-0.05, 0.05).
  ASSERT_OK_AND_ASSIGN(InitializerPtr uniform, GetInitializer("uniform"));
  const Stats s = StatsOf(Values(*(*uniform)(TensorShape({10000}), DT_DOUBLE)));
  EXPECT_GE(s.min, -0.05);
  EXPECT_LT(s.max, 0.05);
  EXPECT_GT(s.max, 0.049);
  ExpectError(GetInitializer("xavier").status(), absl::StatusCode::kInvalidArgument,
              {"Unknown initializer: 'xavier'"});
}

}  // namespace
}  // namespace nn
}  // namespace tfd
