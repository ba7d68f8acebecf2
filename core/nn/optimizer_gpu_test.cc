// The one-launch optimizer path against the host's per-variable path:
// the same variables, gradients and optimizer settings, updated for a few
// steps on GPU:0 (where ApplyGradients groups every variable of one dtype
// into multi-tensor ops, at most kMaxVariablesPerGroup a launch) and on
// the host (one
// ResourceApply* op per variable). Variables and slots agree within 1e-5
// relative in float32 and 1e-2 in half; the GPU run issued only grouped
// ops, as many as the grouping rule says. Needs a GPU; skips, saying so,
// without one.
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "core/device/cuda/cuda_device.h"
#include "core/device/cuda/cuda_test_util.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/execute.h"
#include "core/nn/adam.h"
#include "core/nn/multi_tensor_update_plan.h"
#include "core/nn/optimizer_testutil.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using testing::Values;

// Counts the ops run on this thread while alive.
class OpCounter : public ExecutionObserver {
 public:
  OpCounter() { AddObserver(this); }
  ~OpCounter() override { RemoveObserver(this); }
  void OnExecute(const OpCall& call) override { ++counts[call.op->name]; }
  std::map<std::string, int> counts;
};

constexpr int kFloatVariables = kMaxVariablesPerGroup + 12;  // Two launches.
constexpr int kHalfVariables = 5;    // One launch.
constexpr int kSteps = 3;

DataType DtypeOf(int i) { return i < kFloatVariables ? DT_FLOAT : DT_HALF; }
int64_t SizeOf(int i) { return (i * 37) % 300 + 1; }

Values Sequence(int64_t n, double start, double step) {
  Values v(n);
  for (int64_t k = 0; k < n; ++k) v[k] = start + step * ((k * 7) % 13 - 6);
  return v;
}

struct UpdateRun {
  std::vector<Values> variables;
  // Every slot of every variable, in the optimizer's order, with its dtype.
  std::vector<std::pair<DataType, Values>> slots;
  std::map<std::string, int> last_step_ops;
};

using MakeOptimizer = std::function<std::unique_ptr<Optimizer>()>;

UpdateRun Train(Device* device, const MakeOptimizer& make) {
  UpdateRun run;
  auto strategy = distribute::OneDeviceStrategy::Create(device);
  EXPECT_TRUE(strategy.ok()) << strategy.status();
  distribute::StrategyScope scope(strategy->get());
  std::vector<std::shared_ptr<DistributedVariable>> vars;
  for (int i = 0; i < kFloatVariables + kHalfVariables; ++i) {
    vars.push_back(testing::NewVariable("v" + std::to_string(i),
                                        Sequence(SizeOf(i), 0.1 * (i % 5), 0.01), DtypeOf(i)));
  }
  std::unique_ptr<Optimizer> opt = make();
  for (int step = 0; step < kSteps; ++step) {
    std::vector<Tensor> grads;
    for (int i = 0; i < static_cast<int>(vars.size()); ++i) {
      Tensor g = testing::T(Sequence(SizeOf(i), 0.05 * (step + 1), 0.02 * (i % 3 + 1)), DT_FLOAT);
      grads.push_back(*Execute1("Cast", {g}, AttrMap().Set("DstT", DtypeOf(i)), HostDevice()));
      grads.back() = *grads.back().CopyTo(device);
    }
    OpCounter counter;
    absl::Status s = opt->ApplyGradients(grads, vars);
    EXPECT_TRUE(s.ok()) << s;
    run.last_step_ops = counter.counts;
  }
  for (const auto& v : vars) run.variables.push_back(testing::Read(*v));
  for (const auto& slot : opt->variables()) {
    if (slot->dtype() != DT_INT64) run.slots.emplace_back(slot->dtype(), testing::Read(*slot));
  }
  return run;
}

void ExpectSameRun(const UpdateRun& gpu, const UpdateRun& host) {
  ASSERT_EQ(gpu.variables.size(), host.variables.size());
  for (size_t i = 0; i < gpu.variables.size(); ++i) {
    testing::ExpectNear(gpu.variables[i], host.variables[i],
                        DtypeOf(static_cast<int>(i)) == DT_FLOAT ? 1e-5 : 1e-2,
                        "variable " + std::to_string(i));
  }
  ASSERT_EQ(gpu.slots.size(), host.slots.size());
  for (size_t i = 0; i < gpu.slots.size(); ++i) {
    ASSERT_EQ(gpu.slots[i].first, host.slots[i].first);
    testing::ExpectNear(gpu.slots[i].second, host.slots[i].second,
                        gpu.slots[i].first == DT_FLOAT ? 1e-5 : 1e-2, "slot " + std::to_string(i));
  }
}

void ExpectGrouped(const UpdateRun& gpu, const std::string& grouped_op,
                   const std::string& single_op) {
  auto count = [&](const std::string& op) {
    auto it = gpu.last_step_ops.find(op);
    return it == gpu.last_step_ops.end() ? 0 : it->second;
  };
  EXPECT_EQ(count(grouped_op), 3) << "two float launches (a full table and 12 more) and one "
                                     "half launch";
  EXPECT_EQ(count(single_op), 0);
}

class OptimizerGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TFD_SKIP_WITHOUT_CUDA_DEVICE();
    gpu_ = *CudaDevice::Get(0);
  }
  Device* gpu_ = nullptr;
};

TEST_F(OptimizerGpuTest, SgdWithMomentumInOneLaunchPerGroupMatchesTheHost) {
  for (bool nesterov : {false, true}) {
    MakeOptimizer make = [nesterov]() -> std::unique_ptr<Optimizer> {
      SGDOptions o;
      o.learning_rate = 0.1f;
      o.momentum = 0.9;
      o.nesterov = nesterov;
      return *SGD::Create(o);
    };
    UpdateRun gpu = Train(gpu_, make), host = Train(HostDevice(), make);
    ExpectSameRun(gpu, host);
    ExpectGrouped(gpu, "TfdMultiTensorApplyKerasMomentum", "ResourceApplyKerasMomentum");
    EXPECT_EQ(host.last_step_ops.count("TfdMultiTensorApplyKerasMomentum"), 0u);
  }
}

TEST_F(OptimizerGpuTest, AdamAndAmsgradInOneLaunchPerGroupMatchTheHost) {
  for (bool amsgrad : {false, true}) {
    MakeOptimizer make = [amsgrad]() -> std::unique_ptr<Optimizer> {
      AdamOptions o;
      o.learning_rate = 0.01f;
      o.amsgrad = amsgrad;
      return *Adam::Create(o);
    };
    UpdateRun gpu = Train(gpu_, make), host = Train(HostDevice(), make);
    ExpectSameRun(gpu, host);
    ExpectGrouped(gpu, amsgrad ? "TfdMultiTensorApplyAdamWithAmsgrad" : "TfdMultiTensorApplyAdam",
                  amsgrad ? "ResourceApplyAdamWithAmsgrad" : "ResourceApplyAdam");
  }
}

TEST_F(OptimizerGpuTest, AdamWDecaysEachVariableThenUpdatesInGroups) {
  MakeOptimizer make = []() -> std::unique_ptr<Optimizer> {
    AdamWOptions o;
    o.learning_rate = 0.01f;
    o.weight_decay = 0.1;
    return *AdamW::Create(o);
  };
  UpdateRun gpu = Train(gpu_, make), host = Train(HostDevice(), make);
  ExpectSameRun(gpu, host);
  ExpectGrouped(gpu, "TfdMultiTensorApplyAdam", "ResourceApplyAdam");
}

}  // namespace
}  // namespace nn
}  // namespace tfd
