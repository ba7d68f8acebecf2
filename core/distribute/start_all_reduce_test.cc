// ReplicaContext::StartAllReduce: under MirroredStrategy (shared-memory
// collectives) the inputs may be handed in in a different order on each
// replica and the result is AllReduce's, to the bit, whatever the bucket
// size; the overlap option reaches the replica context; the default
// implementation (OneDeviceStrategy) gathers the inputs and checks them.
#include <vector>

#include "core/distribute/mirrored_strategy.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/status.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

// Replica r's value of tensor t: [n] floats with awkward low bits.
Tensor Input(int r, int t, int64_t n) {
  std::vector<float> v(n);
  for (int64_t i = 0; i < n; ++i) {
    v[i] = 0.1f * (r + 1) + 1e-3f * t + 1.7e-7f * static_cast<float>(i);
  }
  return test::AsTensor<float>(v, {n});
}

std::vector<std::vector<float>> Floats(const std::vector<Tensor>& ts) {
  std::vector<std::vector<float>> out;
  for (const Tensor& t : ts) out.emplace_back(t.data<float>(), t.data<float>() + t.NumElements());
  return out;
}

TEST(StartAllReduceTest, ReplicasHandInInDifferentOrdersAndGetAllReducesBits) {
  const std::vector<int64_t> sizes = {300, 7, 1000, 1, 64};
  for (int64_t bytes : {int64_t{0}, int64_t{256}}) {
    SCOPED_TRACE(bytes);
    ReplicatedStrategyOptions options;
    options.communication.bytes_per_pack = bytes;
    auto strategy = MirroredStrategy::WithCpuReplicas(3, options);
    ASSERT_TRUE(strategy.ok()) << strategy.status();
    auto out = (*strategy)->Run([&](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
      EXPECT_TRUE(ctx.overlap_backward_pass());
      const int r = ctx.replica_id_in_sync_group();
      std::vector<TensorSpec> specs;
      std::vector<Tensor> values;
      for (size_t t = 0; t < sizes.size(); ++t) {
        specs.push_back({DT_FLOAT, TensorShape({sizes[t]})});
        values.push_back(Input(r, static_cast<int>(t), sizes[t]));
      }
      TFD_ASSIGN_OR_RETURN(std::unique_ptr<PendingAllReduce> pending,
                           ctx.StartAllReduce(ReduceOp::kSum, specs));
      // Replica 0 in order, 1 backwards, 2 odd indices first.
      std::vector<int> order = {0, 1, 2, 3, 4};
      if (r == 1) order = {4, 3, 2, 1, 0};
      if (r == 2) order = {1, 3, 0, 2, 4};
      for (int t : order) TFD_RETURN_IF_ERROR(pending->Put(t, values[t]));
      TFD_ASSIGN_OR_RETURN(std::vector<Tensor> started, pending->Wait());
      TFD_ASSIGN_OR_RETURN(std::vector<Tensor> plain, ctx.AllReduce(ReduceOp::kSum, values));
      started.insert(started.end(), plain.begin(), plain.end());
      return started;
    });
    ASSERT_TRUE(out.ok()) << out.status();
    for (int r = 0; r < 3; ++r) {
      const std::vector<Tensor>& got = (*out)[r];
      ASSERT_EQ(got.size(), 2 * sizes.size());
      const auto started = Floats({got.begin(), got.begin() + sizes.size()});
      const auto plain = Floats({got.begin() + sizes.size(), got.end()});
      EXPECT_EQ(started, plain) << "replica " << r;
      EXPECT_EQ(started, Floats({(*out)[0].begin(), (*out)[0].begin() + sizes.size()}))
          << "replica " << r;
      // And it is the sum.
      EXPECT_NEAR(started[2][999], Input(0, 2, 1000).data<float>()[999] +
                                       Input(1, 2, 1000).data<float>()[999] +
                                       Input(2, 2, 1000).data<float>()[999],
                  1e-5);
    }
  }
}

TEST(StartAllReduceTest, OverlapOptionReachesTheReplicas) {
  ReplicatedStrategyOptions options;
  options.communication.overlap_backward_pass = false;
  auto strategy = MirroredStrategy::WithCpuReplicas(2, options);
  ASSERT_TRUE(strategy.ok());
  auto out = (*strategy)->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    EXPECT_FALSE(ctx.overlap_backward_pass());
    return std::vector<Tensor>();
  });
  ASSERT_TRUE(out.ok()) << out.status();
}

TEST(StartAllReduceTest, DefaultGathersAndChecksItsInputs) {
  auto strategy = OneDeviceStrategy::Create(HostDevice());
  ASSERT_TRUE(strategy.ok()) << strategy.status();
  auto out = (*strategy)->Run([](ReplicaContext& ctx) -> absl::StatusOr<std::vector<Tensor>> {
    EXPECT_FALSE(ctx.overlap_backward_pass());
    TFD_ASSIGN_OR_RETURN(auto pending,
                         ctx.StartAllReduce(ReduceOp::kSum, {{DT_FLOAT, TensorShape({2})},
                                                             {DT_FLOAT, TensorShape({1})}}));
    EXPECT_EQ(pending->Put(2, test::AsTensor<float>({1}, {1})).code(),
              absl::StatusCode::kInvalidArgument);
    EXPECT_EQ(pending->Put(1, test::AsTensor<float>({1, 2}, {2})).code(),
              absl::StatusCode::kInvalidArgument);  // wrong shape
    TFD_RETURN_IF_ERROR(pending->Put(1, test::AsTensor<float>({3}, {1})));
    EXPECT_EQ(pending->Put(1, test::AsTensor<float>({3}, {1})).code(),
              absl::StatusCode::kInvalidArgument);  // twice
    TFD_RETURN_IF_ERROR(pending->Put(0, test::AsTensor<float>({1, 2}, {2})));
    return pending->Wait();
  });
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ(Floats((*out)[0]), (std::vector<std::vector<float>>{{1, 2}, {3}}));
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
