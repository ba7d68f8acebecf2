// Tests of the gradient all-reduce during the backward pass, through a
// one-replica ReplicaContext that records what reaches it: gradients are
// handed in while the backward pass still runs, last layer first, in the
// fixed reverse-variable layout; Minimize applies what a plain
// Gradient + ApplyGradients applies, a LossScaleOptimizer's too; and the
// plain path is taken when overlap is off, when a variable gets no
// gradient, and when the backward pass communicates (synchronized batch
// normalization).
#include "core/nn/gradient_all_reduce.h"

#include <memory>
#include <string>
#include <vector>

#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/kernels/random_seed.h"
#include "core/nn/batch_normalization.h"
#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/model_fit_testutil.h"
#include "core/nn/sequential.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

using ::testing::HasSubstr;
using test::Values;

// What happened on the replica's thread, in order: "op <name>" for every
// op run, "put <position>" for every gradient handed in.
struct EventLog : public ExecutionObserver {
  EventLog() { AddObserver(this); }
  ~EventLog() override { RemoveObserver(this); }
  void OnExecute(const OpCall& call) override { events.push_back("op " + call.op->name); }
  std::vector<std::string> events;
};

// A replica whose collectives return its own values (as if the others
// contributed nothing) and are recorded. It says it has `in_sync`
// replicas, so that layers which skip collectives alone (synchronized
// batch normalization) make them.
class RecordingContext : public distribute::ReplicaContext {
 public:
  RecordingContext(bool overlap, EventLog* log, int in_sync = 1)
      : overlap_(overlap), log_(log), in_sync_(in_sync) {}
  distribute::Strategy& strategy() const override { return distribute::DefaultStrategy(); }
  int replica_id_in_sync_group() const override { return 0; }
  int num_replicas_in_sync() const override { return in_sync_; }
  Device* device() const override { return HostDevice(); }
  absl::StatusOr<std::vector<Tensor>> AllReduce(distribute::ReduceOp,
                                                std::vector<Tensor> values) override {
    ++all_reduces;
    return values;
  }
  absl::StatusOr<std::unique_ptr<distribute::PendingAllReduce>> StartAllReduce(
      distribute::ReduceOp op, std::vector<distribute::TensorSpec> specs) override {
    ++started;
    for (const distribute::TensorSpec& s : specs) layout.push_back(s.shape.DebugString());
    return std::make_unique<Recording>(this, specs.size());
  }
  bool overlap_backward_pass() const override { return overlap_; }
  absl::Status MergeCall(const std::function<absl::Status()>& fn) override { return fn(); }

  int all_reduces = 0;
  int started = 0;
  std::vector<std::string> layout;  // The started all-reduce's shapes.

 private:
  class Recording : public distribute::PendingAllReduce {
   public:
    Recording(RecordingContext* ctx, size_t n) : ctx_(ctx), values_(n) {}
    absl::Status Put(int index, const Tensor& value) override {
      ctx_->log_->events.push_back("put " + std::to_string(index));
      values_[index] = value;
      return absl::OkStatus();
    }
    absl::StatusOr<std::vector<Tensor>> Wait() override { return values_; }

   private:
    RecordingContext* ctx_;
    std::vector<Tensor> values_;
  };

  const bool overlap_;
  EventLog* const log_;
  const int in_sync_;
};

absl::StatusOr<std::shared_ptr<Sequential>> ThreeDense() {
  SetRandomSeed(3);
  return Sequential::Make({MakeInputLayer({kNone, 4}),
                           std::make_shared<Dense>(5, DenseOptions().Activation("relu")),
                           std::make_shared<Dense>(6, DenseOptions().Activation("relu")),
                           std::make_shared<Dense>(2)});
}

Tensor Input() {
  std::vector<float> x(12);
  for (int i = 0; i < 12; ++i) x[i] = 0.1f * static_cast<float>(i % 7) - 0.3f;
  return tfd::test::AsTensor<float>(x, {3, 4});
}

// sum(y * y) over every axis.
absl::StatusOr<Tensor> SquaredSum(const Tensor& y) {
  TFD_ASSIGN_OR_RETURN(Tensor p, Execute1("Mul", {y, y}));
  TFD_ASSIGN_OR_RETURN(Tensor axes, Tensor::FromVector(std::vector<int32_t>{0, 1}, {2}));
  return Execute1("Sum", {p, axes});
}

std::vector<distribute::DistributedVariable*> Raw(const std::vector<Weight>& weights) {
  std::vector<distribute::DistributedVariable*> out;
  for (const Weight& w : weights) out.push_back(w.get());
  return out;
}

// One Minimize step of `model` on Input() in `ctx`.
absl::Status Step(Sequential& model, Optimizer& opt, distribute::ReplicaContext& ctx) {
  distribute::ReplicaContextScope scope(&ctx);
  GradientTape tape;
  TFD_ASSIGN_OR_RETURN(Tensor y, model.Call(Input(), /*training=*/true));
  TFD_ASSIGN_OR_RETURN(Tensor loss, SquaredSum(y));
  return opt.Minimize(loss, model.TrainableVariables(), tape);
}

TEST(GradientAllReduceTest, GradientsGoInDuringTheBackwardPassLastLayerFirst) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, ThreeDense());
  ASSERT_OK(model->Call(Input(), false).status());  // builds
  EventLog log;
  RecordingContext ctx(/*overlap=*/true, &log);
  ASSERT_OK(Step(*model, *fit_test::MakeSgd(), ctx));
  EXPECT_EQ(ctx.started, 1);
  EXPECT_EQ(ctx.all_reduces, 0);
  // Reverse variable order: the last Dense's bias and kernel come first.
  EXPECT_EQ(ctx.layout, std::vector<std::string>({"[2]", "[6,2]", "[6]", "[5,6]", "[5]", "[4,5]"}));
  std::vector<size_t> puts;
  std::vector<std::string> order;
  for (size_t i = 0; i < log.events.size(); ++i) {
    if (log.events[i].rfind("put ", 0) == 0) {
      puts.push_back(i);
      order.push_back(log.events[i].substr(4));
    }
  }
  ASSERT_EQ(puts.size(), 6u);
  // The last layer's gradients are final first ...
  EXPECT_THAT(std::vector<std::string>(order.begin(), order.begin() + 2),
              ::testing::UnorderedElementsAre("0", "1"));
  // ... and are handed in while the earlier layers' MatMul gradients are
  // still to be computed.
  int matmuls_after_first_put = 0;
  for (size_t i = puts[0]; i < puts.back(); ++i) {
    matmuls_after_first_put += log.events[i] == "op MatMul";
  }
  EXPECT_GE(matmuls_after_first_put, 2);
}

TEST(GradientAllReduceTest, MinimizeAppliesWhatGradientAndApplyGradientsApply) {
  std::vector<std::vector<double>> by_path[2];
  for (bool overlap : {false, true}) {
    ClearSession();
    ASSERT_OK_AND_ASSIGN(auto model, ThreeDense());
    ASSERT_OK(model->Call(Input(), false).status());
    auto opt = fit_test::MakeAdam();
    EventLog log;
    RecordingContext ctx(overlap, &log);
    for (int step = 0; step < 3; ++step) ASSERT_OK(Step(*model, *opt, ctx));
    EXPECT_EQ(ctx.started, overlap ? 3 : 0);
    EXPECT_EQ(ctx.all_reduces, overlap ? 0 : 3);
    EXPECT_EQ(*opt->Iterations(), 3);
    for (const Weight& w : model->weights()) by_path[overlap].push_back(Values(w->Local().Peek()));
  }
  EXPECT_EQ(by_path[0], by_path[1]);
}

TEST(GradientAllReduceTest, LossScaleOptimizerOverlapsWithNoCollectiveOfItsOwn) {
  std::vector<std::vector<double>> by_path[2];
  for (bool overlap : {false, true}) {
    ClearSession();
    ASSERT_OK_AND_ASSIGN(auto model, ThreeDense());
    ASSERT_OK(model->Call(Input(), false).status());
    LossScaleOptions options;
    options.initial_scale = 1024;
    ASSERT_OK_AND_ASSIGN(auto opt, LossScaleOptimizer::Create(fit_test::MakeAdam(), options));
    EventLog log;
    RecordingContext ctx(overlap, &log);
    for (int step = 0; step < 3; ++step) ASSERT_OK(Step(*model, *opt, ctx));
    // One all-reduce per step, of the gradients only: the finiteness test
    // reads the summed gradients.
    EXPECT_EQ(ctx.started, overlap ? 3 : 0);
    EXPECT_EQ(ctx.all_reduces, overlap ? 0 : 3);
    EXPECT_EQ(*opt->Iterations(), 3);
    EXPECT_EQ(*opt->DynamicCounter(), 3);
    for (const Weight& w : model->weights()) by_path[overlap].push_back(Values(w->Local().Peek()));
  }
  EXPECT_EQ(by_path[0], by_path[1]);
}

TEST(GradientAllReduceTest, AVariableWithoutGradientTakesThePlainPath) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, ThreeDense());
  ASSERT_OK(model->Call(Input(), false).status());
  EventLog log;
  RecordingContext ctx(/*overlap=*/true, &log);
  distribute::VariableSpec spec;
  spec.name = "unused";
  spec.initial_value = []() -> absl::StatusOr<Tensor> {
    return tfd::test::AsTensor<float>({1, 2}, {2});
  };
  ASSERT_OK_AND_ASSIGN(Weight unused, distribute::CreateVariable(spec));
  std::vector<Weight> vars = model->TrainableVariables();
  vars.push_back(unused);
  const std::vector<double> before = Values(unused->Local().Peek());
  {
    distribute::ReplicaContextScope scope(&ctx);
    GradientTape tape;
    ASSERT_OK_AND_ASSIGN(Tensor y, model->Call(Input(), true));
    ASSERT_OK_AND_ASSIGN(Tensor loss, SquaredSum(y));
    ASSERT_OK_AND_ASSIGN(auto why, WhyNotOverlap(ctx, tape, loss, Raw(vars)));
    ASSERT_TRUE(why.has_value());
    EXPECT_THAT(*why, HasSubstr("unused"));
    ASSERT_OK(fit_test::MakeSgd()->Minimize(loss, vars, tape));
  }
  EXPECT_EQ(ctx.started, 0);
  EXPECT_EQ(ctx.all_reduces, 1);
  EXPECT_EQ(Values(unused->Local().Peek()), before);  // Keras skips it.
}

TEST(GradientAllReduceTest, CommunicatingBackwardPassTakesThePlainPath) {
  ClearSession();
  SetRandomSeed(5);
  ASSERT_OK_AND_ASSIGN(
      auto model,
      Sequential::Make({MakeInputLayer({kNone, 4}), std::make_shared<Dense>(5),
                        std::make_shared<BatchNormalization>(
                            BatchNormalizationOptions().Synchronized(true)),
                        std::make_shared<Dense>(2)}));
  EventLog log;
  RecordingContext ctx(/*overlap=*/true, &log, /*in_sync=*/2);
  {
    distribute::ReplicaContextScope scope(&ctx);
    GradientTape tape;
    ASSERT_OK_AND_ASSIGN(Tensor y, model->Call(Input(), true));
    ASSERT_OK_AND_ASSIGN(Tensor loss, SquaredSum(y));
    ASSERT_OK_AND_ASSIGN(auto why,
                         WhyNotOverlap(ctx, tape, loss, Raw(model->TrainableVariables())));
    ASSERT_TRUE(why.has_value());
    EXPECT_THAT(*why, HasSubstr("collectives"));
  }
  const int forward_all_reduces = ctx.all_reduces;
  EXPECT_GT(forward_all_reduces, 0);  // The synchronized moments.
  ASSERT_OK(Step(*model, *fit_test::MakeSgd(), ctx));
  EXPECT_EQ(ctx.started, 0);
  // Two forward passes, then the backward pass's and the gradients' AllReduce.
  EXPECT_GT(ctx.all_reduces, 2 * forward_all_reduces);
}

TEST(GradientAllReduceTest, OverlapOffSaysSo) {
  ClearSession();
  ASSERT_OK_AND_ASSIGN(auto model, ThreeDense());
  EventLog log;
  RecordingContext ctx(/*overlap=*/false, &log);
  GradientTape tape;
  ASSERT_OK_AND_ASSIGN(Tensor y, model->Call(Input(), true));
  ASSERT_OK_AND_ASSIGN(Tensor loss, SquaredSum(y));
  ASSERT_OK_AND_ASSIGN(auto why, WhyNotOverlap(ctx, tape, loss, Raw(model->TrainableVariables())));
  ASSERT_TRUE(why.has_value());
  EXPECT_THAT(*why, HasSubstr("off"));
  RecordingContext on(/*overlap=*/true, &log);
  ASSERT_OK_AND_ASSIGN(why, WhyNotOverlap(on, tape, loss, Raw(model->TrainableVariables())));
  EXPECT_FALSE(why.has_value()) << *why;
}

}  // namespace
}  // namespace nn
}  // namespace tfd
