// Tests of the oneDNN glue: the OpenMP team follows the pool (and the
// call's size), Run reuses memories safely, the cache reuses and evicts, errors become Statuses that name oneDNN, half
// conversion round-trips, and kernels pick oneDNN or the fallback by dtype.
#include "core/kernels/cpu/onednn_util.h"

#include <omp.h>

#include <memory>
#include <string>
#include <vector>

#include "core/device/cpu/cpu_device.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

TEST(OneDnnUtilTest, OmpTeamFollowsThePoolAndIsRestored) {
  const int before = omp_get_max_threads();
  ThreadPool one(1);
  ThreadPool three(3);
  {
    onednn::OmpThreadsScope scope(&three);
    EXPECT_EQ(scope.num_threads(), 3);
    EXPECT_EQ(omp_get_max_threads(), 3);
    {
      onednn::OmpThreadsScope inner(&one);
      EXPECT_EQ(omp_get_max_threads(), 1);
      int team = 0;
#pragma omp parallel
      {
#pragma omp single
        team = omp_get_num_threads();
      }
      EXPECT_EQ(team, 1);
    }
    EXPECT_EQ(omp_get_max_threads(), 3);
  }
  EXPECT_EQ(omp_get_max_threads(), before);
}

TEST(OneDnnUtilTest, SmallCallsRunOnTheCallingThreadAlone) {
  ThreadPool four(4);
  EXPECT_EQ(onednn::OmpThreadsScope(&four, 0).num_threads(), 1);
  EXPECT_EQ(onednn::OmpThreadsScope(&four, kMinParallelCost - 1).num_threads(), 1);
  EXPECT_EQ(onednn::OmpThreadsScope(&four, 2 * kMinParallelCost).num_threads(), 2);
  EXPECT_EQ(onednn::OmpThreadsScope(&four, 100 * kMinParallelCost).num_threads(), 4);
  {
    onednn::OmpThreadsScope small(&four, 10);
    EXPECT_EQ(omp_get_max_threads(), 1);
  }
}

// A reorder of `n` floats from one plain layout to another: the copy's
// primitive and descriptors, kept as a cached primitive keeps them.
struct Copy {
  dnnl::memory::desc md;
  dnnl::reorder primitive;
  dnnl::memory::desc scratchpad;
  explicit Copy(int64_t n) : md(onednn::RowMajorDesc({n}, dnnl::memory::data_type::f32)) {
    const dnnl::reorder::primitive_desc pd(onednn::CpuEngine(), md, onednn::CpuEngine(), md,
                                           onednn::UserScratchpadAttr());
    primitive = dnnl::reorder(pd);
    scratchpad = pd.scratchpad_desc();
  }
};

TEST(OneDnnUtilTest, RunPointsReusedMemoriesAtEachCallsData) {
  Copy copy(3);
  const std::vector<float> a = {1, 2, 3}, b = {4, 5, 6};
  std::vector<float> out_a(3), out_b(3);
  ASSERT_TRUE(onednn::Run(copy.primitive, copy.scratchpad,
                          {{DNNL_ARG_FROM, &copy.md, a.data()}, {DNNL_ARG_TO, &copy.md, out_a.data()}})
                  .ok());
  ASSERT_TRUE(onednn::Run(copy.primitive, copy.scratchpad,
                          {{DNNL_ARG_FROM, &copy.md, b.data()}, {DNNL_ARG_TO, &copy.md, out_b.data()}})
                  .ok());
  EXPECT_EQ(out_a, a);
  EXPECT_EQ(out_b, b);
}

TEST(OneDnnUtilTest, RunStaysCorrectPastItsMemoryBound) {
  // More descriptors than a thread keeps memories for, each run twice.
  std::vector<std::unique_ptr<Copy>> copies;
  for (int64_t n = 1; n <= 300; ++n) copies.push_back(std::make_unique<Copy>(n));
  for (int round = 0; round < 2; ++round) {
    for (const auto& c : copies) {
      const int64_t n = c->md.get_size() / sizeof(float);
      std::vector<float> in(n), out(n, -1.0f);
      for (int64_t i = 0; i < n; ++i) in[i] = static_cast<float>(i + round);
      ASSERT_TRUE(onednn::Run(c->primitive, c->scratchpad,
                              {{DNNL_ARG_FROM, &c->md, in.data()}, {DNNL_ARG_TO, &c->md, out.data()}})
                      .ok());
      ASSERT_EQ(out, in) << n;
    }
  }
  // A new descriptor, perhaps at a freed one's address, is not mistaken for
  // the old one.
  copies.clear();
  Copy fresh(7);
  std::vector<float> in = {1, 2, 3, 4, 5, 6, 7}, out(7);
  ASSERT_TRUE(onednn::Run(fresh.primitive, fresh.scratchpad,
                          {{DNNL_ARG_FROM, &fresh.md, in.data()}, {DNNL_ARG_TO, &fresh.md, out.data()}})
                  .ok());
  EXPECT_EQ(out, in);
}

TEST(OneDnnUtilTest, CacheReusesAndEvictsLeastRecentlyUsed) {
  onednn::PrimitiveCache<int> cache(2);
  int made = 0;
  auto make = [&made](int v) {
    return [&made, v]() -> absl::StatusOr<int> {
      ++made;
      return v;
    };
  };
  EXPECT_EQ(**cache.GetOrCreate("a", make(1)), 1);
  EXPECT_EQ(**cache.GetOrCreate("b", make(2)), 2);
  EXPECT_EQ(**cache.GetOrCreate("a", make(99)), 1);  // Hit: "a" is now newest.
  EXPECT_EQ(made, 2);
  EXPECT_EQ(**cache.GetOrCreate("c", make(3)), 3);  // Evicts "b".
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_EQ(**cache.GetOrCreate("a", make(99)), 1);
  EXPECT_EQ(**cache.GetOrCreate("b", make(4)), 4);  // Made again.
  EXPECT_EQ(made, 4);
}

TEST(OneDnnUtilTest, CacheDoesNotStoreFailures) {
  onednn::PrimitiveCache<int> cache;
  absl::StatusOr<std::shared_ptr<const int>> failed = cache.GetOrCreate(
      "k", []() -> absl::StatusOr<int> { return absl::InternalError("no"); });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(cache.size(), 0u);
}

// A matmul whose shapes disagree: oneDNN refuses it, and the Status says
// who refused, where, and why.
absl::Status MakeBadMatMul() {
  const auto f32 = dnnl::memory::data_type::f32;
  TFD_ONEDNN_ASSIGN_OR_RETURN(
      auto pd, dnnl::matmul::primitive_desc(
                   dnnl::matmul::desc(onednn::RowMajorDesc({2, 3}, f32),
                                      onednn::RowMajorDesc({4, 5}, f32),
                                      onednn::RowMajorDesc({2, 5}, f32)),
                   onednn::CpuEngine()));
  (void)pd;
  return absl::OkStatus();
}

TEST(OneDnnUtilTest, ErrorsNameOneDnnTheCallAndTheLocation) {
  absl::Status s = MakeBadMatMul();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_NE(s.message().find("oneDNN"), std::string::npos) << s;
  EXPECT_NE(s.message().find("matmul::primitive_desc"), std::string::npos) << s;
  EXPECT_NE(s.message().find("onednn_util_test.cc:"), std::string::npos) << s;
  EXPECT_NE(s.message().find("invalid_arguments"), std::string::npos) << s;
}

TEST(OneDnnUtilTest, TypesAndDescriptors) {
  EXPECT_EQ(*onednn::OneDnnType(DT_FLOAT), dnnl::memory::data_type::f32);
  EXPECT_EQ(*onednn::OneDnnType(DT_BFLOAT16), dnnl::memory::data_type::bf16);
  EXPECT_EQ(onednn::OneDnnType(DT_DOUBLE).status().code(), absl::StatusCode::kUnimplemented);
  dnnl::memory::desc md = onednn::RowMajorDesc({2, 3, 4}, dnnl::memory::data_type::f32);
  EXPECT_EQ(md.get_size(), 2u * 3 * 4 * sizeof(float));
}

TEST(OneDnnUtilTest, HalfRoundTrips) {
  ThreadPool pool(2);
  std::vector<half> in;
  for (int i = 0; i < 5000; ++i) in.push_back(half(static_cast<float>(i % 97) * 0.125f - 3));
  std::vector<float> f(in.size());
  std::vector<half> back(in.size());
  onednn::CastToFloat(&pool, in.data(), f.data(), in.size());
  onednn::CastFromFloat(&pool, f.data(), back.data(), in.size());
  for (size_t i = 0; i < in.size(); ++i) {
    ASSERT_EQ(f[i], static_cast<float>(in[i]));
    ASSERT_EQ(back[i].bits, in[i].bits);
  }
}

// Records which body ran and on which dtype; `refuse` makes the oneDNN
// body answer UNIMPLEMENTED as oneDNN does for geometries it lacks.
struct Calls {
  std::vector<std::string> log;
  bool refuse = false;
};

absl::Status Dispatch(Calls* calls, DataType dtype, Tensor* out) {
  ThreadPool pool(2);
  Tensor in(dtype, {3});
  for (int i = 0; i < 3; ++i) {
    if (dtype == DT_HALF) in.data<half>()[i] = half(1.5f * i);
    if (dtype == DT_BFLOAT16) in.data<bfloat16>()[i] = bfloat16(1.5f * i);
    if (dtype == DT_FLOAT) in.data<float>()[i] = 1.5f * i;
    if (dtype == DT_DOUBLE) in.data<double>()[i] = 1.5 * i;
  }
  *out = Tensor(dtype, {3});
  // Both bodies double their input, in whatever dtype they are handed.
  auto twice = [](const Tensor& x, Tensor* y) {
    for (int i = 0; i < 3; ++i) {
      if (x.dtype() == DT_FLOAT) y->data<float>()[i] = 2 * x.data<float>()[i];
      if (x.dtype() == DT_DOUBLE) y->data<double>()[i] = 2 * x.data<double>()[i];
      if (x.dtype() == DT_BFLOAT16) {
        y->data<bfloat16>()[i] = bfloat16(2 * static_cast<float>(x.data<bfloat16>()[i]));
      }
    }
  };
  return onednn::RunOneDnnOrFallback(
      &pool, {in}, out,
      [&](const std::vector<Tensor>& x, Tensor* y) {
        calls->log.push_back("onednn " + DataTypeName(x[0].dtype()));
        if (calls->refuse) return Unimplemented("refused");
        twice(x[0], y);
        return absl::OkStatus();
      },
      [&](const std::vector<Tensor>& x, Tensor* y) {
        calls->log.push_back("fallback " + DataTypeName(x[0].dtype()));
        twice(x[0], y);
        return absl::OkStatus();
      });
}

TEST(OneDnnUtilTest, RunOneDnnOrFallbackPicksByDtype) {
  const struct {
    DataType dtype;
    bool refuse;
    std::vector<std::string> log;
  } cases[] = {
      {DT_FLOAT, false, {"onednn float32"}},
      {DT_FLOAT, true, {"onednn float32", "fallback float32"}},
      {DT_BFLOAT16, false, {"onednn bfloat16"}},
      {DT_BFLOAT16, true, {"onednn bfloat16", "fallback float32"}},
      {DT_HALF, false, {"onednn float32"}},
      {DT_HALF, true, {"onednn float32", "fallback float32"}},
      {DT_DOUBLE, false, {"fallback float64"}},
  };
  for (const auto& c : cases) {
    Calls calls;
    calls.refuse = c.refuse;
    Tensor out;
    ASSERT_TRUE(Dispatch(&calls, c.dtype, &out).ok());
    EXPECT_EQ(calls.log, c.log) << DataTypeName(c.dtype) << " refuse=" << c.refuse;
    // Whatever ran, the result is in the caller's dtype.
    ASSERT_EQ(out.dtype(), c.dtype);
    for (int i = 0; i < 3; ++i) {
      double v = 0;
      if (c.dtype == DT_HALF) v = static_cast<float>(out.data<half>()[i]);
      if (c.dtype == DT_BFLOAT16) v = static_cast<float>(out.data<bfloat16>()[i]);
      if (c.dtype == DT_FLOAT) v = out.data<float>()[i];
      if (c.dtype == DT_DOUBLE) v = out.data<double>()[i];
      EXPECT_EQ(v, 3.0 * i) << DataTypeName(c.dtype);
    }
  }
  Calls calls;
  Tensor out;
  EXPECT_EQ(Dispatch(&calls, DT_INT32, &out).code(), absl::StatusCode::kUnimplemented);
}

}  // namespace
}  // namespace tfd
