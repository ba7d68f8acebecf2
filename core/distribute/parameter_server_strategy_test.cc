// ParameterServerStrategy from TF_CONFIG against a ps served in this
// process. (tests/parameter_server runs whole jobs across processes.)
#include "core/distribute/parameter_server_strategy.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "core/distribute/ps/ps_server.h"
#include "core/distribute/tf_config_resolver.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace distribute {
namespace {

using ::testing::HasSubstr;

TfConfigClusterResolver Resolver(const std::string& cluster, const std::string& type, int index) {
  return TfConfigClusterResolver(
      {}, EnvFromMap({{"TF_CONFIG", absl::StrCat(R"({"cluster": )", cluster, R"(, "task": {"type": ")",
                                                 type, R"(", "index": )", index, "}}")}}));
}

ParameterServerStrategyOptions Fast() {
  ParameterServerStrategyOptions options;
  options.ps.connect_timeout = absl::Milliseconds(500);
  options.ps.rpc_timeout = absl::Seconds(5);
  return options;
}

TEST(ParameterServerStrategyTest, WorkerSharesVariablesOnThePs) {
  auto ps = ps::StartParameterServer("127.0.0.1:0");
  ASSERT_TRUE(ps.ok()) << ps.status();
  const std::string cluster = absl::StrCat(
      R"({"chief": ["localhost:1"], "worker": ["localhost:2", "localhost:3"], "ps": ["127.0.0.1:)",
      (*ps)->port(), R"("]})");
  auto worker = ParameterServerStrategy::FromClusterResolver(Resolver(cluster, "worker", 1), Fast());
  ASSERT_TRUE(worker.ok()) << worker.status();
  EXPECT_EQ((*worker)->num_ps(), 1);
  EXPECT_EQ((*worker)->worker_index(), 1);
  EXPECT_EQ((*worker)->worker_addresses().size(), 2u);

  auto chief = ParameterServerStrategy::FromClusterResolver(Resolver(cluster, "chief", 0), Fast());
  ASSERT_TRUE(chief.ok()) << chief.status();
  EXPECT_EQ((*chief)->worker_index(), -1);
  ps::OptimizerConfig sgd;
  sgd.set_learning_rate(1);
  Tensor init = *Tensor::FromVector<float>({3}, TensorShape({1}));
  absl::Status created = (*chief)->parameter_servers().CreateVariable("w", init, sgd);
  ASSERT_TRUE(created.ok()) << created;
  // The worker's call finds the chief's variable: the same value, no error.
  created = (*worker)->parameter_servers().CreateVariable("w", init, sgd);
  ASSERT_TRUE(created.ok()) << created;
  const absl::Status applied = (*worker)->parameter_servers().ApplyGradient("w", init);
  ASSERT_TRUE(applied.ok()) << applied;
  EXPECT_EQ((*chief)->parameter_servers().Read("w")->flat<float>()[0], 0.0f);
}

// A non-trainable variable (moving statistics) stays local until
// MakeRemote places it on the ps; then workers subtract their changes.
TEST(ParameterServerStrategyTest, MakeRemotePlacesStateOnThePs) {
  auto ps = ps::StartParameterServer("127.0.0.1:0");
  ASSERT_TRUE(ps.ok()) << ps.status();
  const std::string cluster = absl::StrCat(
      R"({"chief": ["localhost:1"], "worker": ["localhost:2"], "ps": ["127.0.0.1:)",
      (*ps)->port(), R"("]})");
  auto worker = ParameterServerStrategy::FromClusterResolver(Resolver(cluster, "worker", 0), Fast());
  ASSERT_TRUE(worker.ok()) << worker.status();
  VariableSpec spec;
  spec.name = "bn/moving_mean";
  spec.trainable = false;
  spec.synchronization = VariableSynchronization::kOnRead;
  spec.initial_value = [] { return Tensor::FromVector<float>({1, 2}, TensorShape({2})); };
  auto mean = (*worker)->CreateVariable(spec);
  ASSERT_TRUE(mean.ok()) << mean.status();
  EXPECT_FALSE((*worker)->IsRemote(**mean));
  DistributedVariable* raw = mean->get();
  const Tensor delta = *Tensor::FromVector<float>({0.5f, -1}, TensorShape({2}));
  EXPECT_EQ((*worker)->AssignSubVariables({delta}, {raw}).code(),
            absl::StatusCode::kFailedPrecondition);

  ASSERT_TRUE((*worker)->MakeRemote({*mean}).ok());
  EXPECT_TRUE((*worker)->IsRemote(**mean));
  ASSERT_TRUE((*worker)->AssignSubVariables({delta}, {raw}).ok());
  ASSERT_TRUE((*worker)->PullVariables({raw}).ok());
  const Tensor pulled = raw->component(0).Peek();
  EXPECT_EQ(pulled.flat<float>()[0], 0.5f);
  EXPECT_EQ(pulled.flat<float>()[1], 3.0f);

  spec.name = "counter";
  spec.initial_value = [] { return Tensor::FromVector<int64_t>({0}, TensorShape({1})); };
  auto counter = (*worker)->CreateVariable(spec);
  ASSERT_TRUE(counter.ok()) << counter.status();
  const absl::Status refused = (*worker)->MakeRemote({*counter});
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnimplemented);
  EXPECT_THAT(refused.message(), HasSubstr("counter"));
}

TEST(ParameterServerStrategyTest, NeedsPsAndWorkerJobs) {
  auto no_ps = ParameterServerStrategy::FromClusterResolver(
      Resolver(R"({"worker": ["localhost:2"]})", "worker", 0), Fast());
  EXPECT_EQ(no_ps.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(no_ps.status().message(), HasSubstr("\"ps\""));
  auto on_ps = ParameterServerStrategy::FromClusterResolver(
      Resolver(R"({"worker": ["localhost:2"], "ps": ["localhost:3"]})", "ps", 0), Fast());
  EXPECT_EQ(on_ps.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(ParameterServerStrategyTest, PsThatNeverStartsTimesOut) {
  auto strategy = ParameterServerStrategy::FromClusterResolver(
      Resolver(R"({"worker": ["localhost:2"], "ps": ["localhost:1"]})", "worker", 0), Fast());
  EXPECT_EQ(strategy.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(strategy.status().message(), HasSubstr("/job:ps/replica:0/task:0 at localhost:1"));
}

}  // namespace
}  // namespace distribute
}  // namespace tfd
