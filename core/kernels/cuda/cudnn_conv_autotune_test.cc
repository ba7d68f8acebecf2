// The host-side half of cuDNN autotuning, in every build: which
// convolutions share a key, the cache's one tuning per key (under
// concurrent first calls too), cached failures, and the environment
// variables' parsing.
#include "core/kernels/cuda/cudnn_conv_autotune.h"

#include <atomic>
#include <cstdlib>
#include <functional>
#include <thread>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/hash/hash.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gtest/gtest.h"

namespace tfd {
namespace cuda_kernels {
namespace {

CudnnConvPlan Plan(DataFormat format, int64_t n, int64_t hw, int64_t c, int64_t k, int64_t r,
                   int64_t stride) {
  Conv2DAttrs attrs;
  attrs.stride_rows = attrs.stride_cols = stride;
  attrs.padding = Padding::kSame;
  attrs.format = format;
  absl::StatusOr<Conv2DGeometry> g =
      ComputeConv2DGeometry(attrs, ShapeInFormat(format, n, hw, hw, c), TensorShape({r, r, c, k}));
  EXPECT_TRUE(g.ok()) << g.status();
  absl::StatusOr<CudnnConvPlan> p = MakeCudnnConvPlan(*g);
  EXPECT_TRUE(p.ok()) << p.status();
  return *p;
}

ConvAlgoKey BaseKey() {
  return MakeConvAlgoKey(0, DT_BFLOAT16, ConvPass::kForward,
                         Plan(DataFormat::kNHWC, 256, 56, 64, 64, 3, 1), /*deterministic=*/false);
}

ConvAlgoChoice Choice(int algo) {
  ConvAlgoChoice c;
  c.algo = algo;
  c.workspace_bytes = 1024 * algo;
  return c;
}

TEST(ConvAlgoKeyTest, SameConvolutionSameKey) {
  const ConvAlgoKey a = BaseKey();
  const ConvAlgoKey b = BaseKey();
  EXPECT_EQ(a, b);
  EXPECT_EQ(absl::HashOf(a), absl::HashOf(b));
}

TEST(ConvAlgoKeyTest, EveryPartOfTheSignatureMatters) {
  const ConvAlgoKey base = BaseKey();
  std::vector<std::function<void(ConvAlgoKey*)>> changes = {
      [](ConvAlgoKey* k) { k->device = 1; },
      [](ConvAlgoKey* k) { k->dtype = DT_HALF; },
      [](ConvAlgoKey* k) { k->pass = ConvPass::kBackwardData; },
      [](ConvAlgoKey* k) { k->pass = ConvPass::kBackwardFilter; },
      [](ConvAlgoKey* k) { k->input.n = 128; },
      [](ConvAlgoKey* k) { k->input.c_stride = 56 * 56; },
      [](ConvAlgoKey* k) { k->output.h = 28; },
      [](ConvAlgoKey* k) { k->filter.w = 1; },
      [](ConvAlgoKey* k) { k->filter_nhwc = false; },
      [](ConvAlgoKey* k) { k->groups = 2; },
      [](ConvAlgoKey* k) { k->pad_h = 0; },
      [](ConvAlgoKey* k) { k->pad_w = 0; },
      [](ConvAlgoKey* k) { k->stride_h = 2; },
      [](ConvAlgoKey* k) { k->stride_w = 2; },
      [](ConvAlgoKey* k) { k->dilation_h = 2; },
      [](ConvAlgoKey* k) { k->dilation_w = 2; },
      [](ConvAlgoKey* k) { k->deterministic = true; },
  };
  absl::flat_hash_set<ConvAlgoKey> keys = {base};
  for (size_t i = 0; i < changes.size(); ++i) {
    ConvAlgoKey k = base;
    changes[i](&k);
    EXPECT_NE(k, base) << "change " << i << ": " << k.DebugString();
    keys.insert(k);
  }
  // Distinct keys stay distinct in a hash set (equality, not only hashes).
  EXPECT_EQ(keys.size(), changes.size() + 1);
}

TEST(ConvAlgoKeyTest, LayoutsOfTheSameShapeDiffer) {
  const ConvAlgoKey nhwc = MakeConvAlgoKey(0, DT_FLOAT, ConvPass::kForward,
                                           Plan(DataFormat::kNHWC, 8, 14, 32, 16, 3, 1), false);
  const ConvAlgoKey nchw = MakeConvAlgoKey(0, DT_FLOAT, ConvPass::kForward,
                                           Plan(DataFormat::kNCHW, 8, 14, 32, 16, 3, 1), false);
  EXPECT_NE(nhwc, nchw);
  EXPECT_NE(nhwc.DebugString(), nchw.DebugString());
}

TEST(ConvAlgoKeyTest, DeterminismIsPartOfTheKey) {
  const CudnnConvPlan plan = Plan(DataFormat::kNHWC, 32, 28, 64, 64, 3, 1);
  const ConvAlgoKey plain = MakeConvAlgoKey(0, DT_FLOAT, ConvPass::kBackwardFilter, plan, false);
  const ConvAlgoKey strict = MakeConvAlgoKey(0, DT_FLOAT, ConvPass::kBackwardFilter, plan, true);
  EXPECT_FALSE(plain.deterministic);
  EXPECT_TRUE(strict.deterministic);
  EXPECT_NE(plain, strict);
  EXPECT_EQ(plain.DebugString().find("deterministic"), std::string::npos);
  EXPECT_NE(strict.DebugString().find(" deterministic"), std::string::npos);

  // A choice tuned without determinism is never what a deterministic call
  // reads from the cache, nor the other way round.
  ConvAlgoCache cache;
  EXPECT_EQ(cache.GetOrTune(plain, [] { return absl::StatusOr<ConvAlgoChoice>(Choice(3)); })->algo,
            3);
  int tunings = 0;
  absl::StatusOr<ConvAlgoChoice> got = cache.GetOrTune(strict, [&] {
    ++tunings;
    return absl::StatusOr<ConvAlgoChoice>(Choice(1));
  });
  EXPECT_EQ(tunings, 1);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->algo, 1);
  EXPECT_EQ(cache.Lookup(plain)->value().algo, 3);
  EXPECT_EQ(cache.size(), 2u);
}

TEST(ConvAlgoKeyTest, DebugStringNamesThePass) {
  ConvAlgoKey k = BaseKey();
  k.pass = ConvPass::kBackwardFilter;
  EXPECT_NE(k.DebugString().find("bfloat16 backward-filter"), std::string::npos)
      << k.DebugString();
}

TEST(ConvAlgoCacheTest, TunesOncePerKey) {
  ConvAlgoCache cache;
  int tunings = 0;
  auto tune = [&]() -> absl::StatusOr<ConvAlgoChoice> { return Choice(++tunings); };
  const ConvAlgoKey a = BaseKey();
  ConvAlgoKey b = BaseKey();
  b.pass = ConvPass::kBackwardData;
  EXPECT_FALSE(cache.Lookup(a).has_value());
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<ConvAlgoChoice> c = cache.GetOrTune(a, tune);
    ASSERT_TRUE(c.ok()) << c.status();
    EXPECT_EQ(c->algo, 1);
    EXPECT_EQ(c->workspace_bytes, 1024);
  }
  absl::StatusOr<ConvAlgoChoice> cb = cache.GetOrTune(b, tune);
  ASSERT_TRUE(cb.ok());
  EXPECT_EQ(cb->algo, 2);
  EXPECT_EQ(tunings, 2);
  EXPECT_EQ(cache.size(), 2u);
  ASSERT_TRUE(cache.Lookup(a).has_value());
  EXPECT_EQ(cache.Lookup(a)->value().algo, 1);
  cache.Clear();
  EXPECT_EQ(cache.size(), 0u);
  EXPECT_EQ(cache.GetOrTune(a, tune)->algo, 3);
}

TEST(ConvAlgoCacheTest, AFailedTuningIsCachedAndNotRetried) {
  ConvAlgoCache cache;
  int tunings = 0;
  auto tune = [&]() -> absl::StatusOr<ConvAlgoChoice> {
    ++tunings;
    return absl::ResourceExhaustedError("no workspace");
  };
  for (int i = 0; i < 3; ++i) {
    absl::StatusOr<ConvAlgoChoice> c = cache.GetOrTune(BaseKey(), tune);
    ASSERT_FALSE(c.ok());
    EXPECT_EQ(c.status().code(), absl::StatusCode::kResourceExhausted);
  }
  EXPECT_EQ(tunings, 1);
}

TEST(ConvAlgoCacheTest, ConcurrentFirstCallsTuneOnce) {
  ConvAlgoCache cache;
  std::atomic<int> tunings{0};
  absl::Notification release;
  auto slow_tune = [&]() -> absl::StatusOr<ConvAlgoChoice> {
    ++tunings;
    // Hold the tuning open until every thread has asked for the key.
    release.WaitForNotificationWithTimeout(absl::Seconds(10));
    return Choice(7);
  };
  constexpr int kThreads = 8;
  std::atomic<int> started{0};
  std::vector<int> algos(kThreads, -1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      ++started;
      absl::StatusOr<ConvAlgoChoice> c = cache.GetOrTune(BaseKey(), slow_tune);
      algos[t] = c.ok() ? c->algo : -2;
    });
  }
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (started.load() < kThreads && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(1));
  // Give the late threads time to reach the cache and block on the tuning.
  absl::SleepFor(absl::Milliseconds(50));
  EXPECT_FALSE(cache.Lookup(BaseKey()).has_value()) << "the tuning is still in flight";
  release.Notify();
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(tunings.load(), 1);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(algos[t], 7) << "thread " << t;
}

TEST(ConvAlgoCacheTest, DifferentKeysTuneInParallel) {
  // A tuning in flight does not hold the cache: another key tunes meanwhile.
  ConvAlgoCache cache;
  absl::Notification first_tuning, second_done;
  ConvAlgoKey other = BaseKey();
  other.device = 1;
  absl::StatusOr<ConvAlgoChoice> first_result;
  std::thread first([&] {
    first_result = cache.GetOrTune(BaseKey(), [&]() -> absl::StatusOr<ConvAlgoChoice> {
      first_tuning.Notify();
      EXPECT_TRUE(second_done.WaitForNotificationWithTimeout(absl::Seconds(10)));
      return Choice(1);
    });
  });
  ASSERT_TRUE(first_tuning.WaitForNotificationWithTimeout(absl::Seconds(10)));
  absl::StatusOr<ConvAlgoChoice> c =
      cache.GetOrTune(other, [] { return absl::StatusOr<ConvAlgoChoice>(Choice(2)); });
  second_done.Notify();
  first.join();
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->algo, 2);
  ASSERT_TRUE(first_result.ok());
  EXPECT_EQ(first_result->algo, 1);
}

TEST(AutotuneSwitchTest, ParsesTensorFlowsValues) {
  EXPECT_TRUE(ParseAutotuneSwitch(nullptr));
  EXPECT_TRUE(ParseAutotuneSwitch("1"));
  EXPECT_TRUE(ParseAutotuneSwitch("true"));
  EXPECT_TRUE(ParseAutotuneSwitch("TRUE"));
  EXPECT_FALSE(ParseAutotuneSwitch("0"));
  EXPECT_FALSE(ParseAutotuneSwitch("false"));
  EXPECT_FALSE(ParseAutotuneSwitch("False"));
  // Unrecognized: TensorFlow's default, on.
  EXPECT_TRUE(ParseAutotuneSwitch("maybe"));
  EXPECT_TRUE(ParseAutotuneSwitch(""));
}

TEST(AutotuneSwitchTest, ReadsTheEnvironmentUnlessOverridden) {
  // The first ConvAutotuneEnabled call of the process reads the variable.
  ASSERT_EQ(setenv("TF_CUDNN_USE_AUTOTUNE", "0", 1), 0);
  EXPECT_FALSE(ConvAutotuneEnabled());
  ASSERT_EQ(setenv("TF_CUDNN_USE_AUTOTUNE", "1", 1), 0);
  EXPECT_FALSE(ConvAutotuneEnabled()) << "read once, as TensorFlow does";
  SetConvAutotuneEnabled(true);
  EXPECT_TRUE(ConvAutotuneEnabled());
  SetConvAutotuneEnabled(false);
  EXPECT_FALSE(ConvAutotuneEnabled());
  unsetenv("TF_CUDNN_USE_AUTOTUNE");
}

TEST(WorkspaceLimitTest, ParsesMebibytes) {
  EXPECT_EQ(ParseWorkspaceLimitBytes(nullptr), int64_t{4096} << 20);
  EXPECT_EQ(ParseWorkspaceLimitBytes("256"), int64_t{256} << 20);
  EXPECT_EQ(ParseWorkspaceLimitBytes("0"), 0);
  EXPECT_EQ(ParseWorkspaceLimitBytes("-5"), int64_t{4096} << 20);
  EXPECT_EQ(ParseWorkspaceLimitBytes("lots"), int64_t{4096} << 20);
}

}  // namespace
}  // namespace cuda_kernels
}  // namespace tfd
