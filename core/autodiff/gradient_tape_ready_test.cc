// Tests of GradientTape's ready callback (Gradient with a GradientReadyFn)
// and PlanBackward: the order in which sources become final, that a
// reported gradient is final (equal to what the whole pass returns), the
// unconnected-source handling, errors of the callback, and what a plan
// says before the pass runs.
#include <string>
#include <vector>

#include "core/autodiff/gradient_registry.h"
#include "core/autodiff/gradient_tape.h"
#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "core/framework/variable.h"
#include "core/kernels/cpu/math_testutil.h"
#include "gtest/gtest.h"

// In this test binary, Sin stands for an op whose gradient communicates
// (as synchronized batch normalization's all-reduce does in core/nn).
TFD_GRADIENT_COMMUNICATES("Sin");

namespace tfd {
namespace {

Tensor Vec(std::vector<double> v) {
  const int64_t n = static_cast<int64_t>(v.size());
  return test::AsTensor<double>(v, {n});
}

Tensor Mul(const Tensor& a, const Tensor& b) { return *Execute1("Mul", {a, b}); }
Tensor Sum(const Tensor& a) { return *Execute1("Sum", {a, test::Ints({0})}); }

// What the callback saw: (source, gradient) in call order.
struct Reports {
  std::vector<int> order;
  std::vector<Tensor> grads;
  GradientReadyFn Fn() {
    return [this](int source, const Tensor& g) {
      order.push_back(source);
      grads.push_back(g);
      return absl::OkStatus();
    };
  }
};

// A three-layer chain h3 = w3 * (w2 * (w1 * x)): each weight is read just
// before its layer runs, so the backward pass finishes w3 first.
TEST(GradientTapeReadyTest, LayersBecomeFinalInReverseOrder) {
  Variable w1("w1", Vec({1.5, 2})), w2("w2", Vec({-1, 3})), w3("w3", Vec({0.5, 4}));
  Tensor x = Vec({2, -3});
  std::vector<Tensor> expected;
  {
    GradientTape tape;
    Tensor loss = Sum(Mul(w3.Read(), Mul(w2.Read(), Mul(w1.Read(), x))));
    expected = *tape.Gradient(loss, {&w1, &w2, &w3});
  }
  GradientTape tape;
  Tensor loss = Sum(Mul(w3.Read(), Mul(w2.Read(), Mul(w1.Read(), x))));
  Reports reports;
  std::vector<Tensor> result = *tape.Gradient(loss, {&w1, &w2, &w3}, reports.Fn());
  EXPECT_EQ(reports.order, std::vector<int>({2, 1, 0}));
  ASSERT_EQ(result.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    // The reported tensor is the returned one, with the plain call's bits.
    EXPECT_EQ(reports.grads[2 - i].id(), result[i].id()) << i;
    EXPECT_EQ(test::ToDoubles(result[i]), test::ToDoubles(expected[i])) << i;
  }
}

// `a` is read early and again late; its gradient has two contributions,
// and it is final only after the pass has gone back past its first read,
// so `b` (read in between) is reported before it.
TEST(GradientTapeReadyTest, VariableReadTwiceIsFinalAfterItsFirstRead) {
  Variable a("a", Vec({2, 3})), b("b", Vec({5, 7}));
  Tensor x = Vec({1, -1});
  GradientTape tape;
  Tensor t1 = Mul(a.Read(), x);
  Tensor t2 = Mul(b.Read(), t1);
  Tensor loss = Sum(Mul(t2, a.Read()));  // loss = sum(b * a^2 * x)
  Reports reports;
  std::vector<Tensor> result = *tape.Gradient(loss, {&a, &b}, reports.Fn());
  EXPECT_EQ(reports.order, std::vector<int>({1, 0}));
  // d/da = 2 * a * b * x; d/db = a^2 * x: both contributions arrived.
  EXPECT_EQ(test::ToDoubles(reports.grads[1]), std::vector<double>({20, -42}));
  EXPECT_EQ(test::ToDoubles(reports.grads[0]), std::vector<double>({4, -9}));
  EXPECT_EQ(test::ToDoubles(result[0]), std::vector<double>({20, -42}));
}

TEST(GradientTapeReadyTest, UnconnectedSourcesFollowTheUnconnectedOption) {
  Variable w("w", Vec({2})), unused("unused", Vec({3, 4}));
  for (UnconnectedGradients mode : {UnconnectedGradients::kNone, UnconnectedGradients::kZero}) {
    GradientTape tape;
    Tensor loss = Sum(Mul(w.Read(), Vec({5})));
    Reports reports;
    std::vector<Tensor> result = *tape.Gradient(loss, {&w, &unused}, reports.Fn(), mode);
    // Nothing reads `unused`: it is final (and reported) before the pass.
    ASSERT_EQ(reports.order, std::vector<int>({1, 0}));
    if (mode == UnconnectedGradients::kNone) {
      EXPECT_FALSE(reports.grads[0].defined());
      EXPECT_FALSE(result[1].defined());
    } else {
      EXPECT_EQ(test::ToDoubles(reports.grads[0]), std::vector<double>({0, 0}));
      EXPECT_EQ(test::ToDoubles(result[1]), std::vector<double>({0, 0}));
    }
    EXPECT_EQ(test::ToDoubles(result[0]), std::vector<double>({5}));
  }
}

TEST(GradientTapeReadyTest, DuplicateSourcesAreEachReported) {
  Variable w("w", Vec({2}));
  GradientTape tape;
  Tensor loss = Sum(Mul(w.Read(), w.Read()));
  Reports reports;
  std::vector<Tensor> result = *tape.Gradient(loss, {&w, &w}, reports.Fn());
  ASSERT_EQ(reports.order.size(), 2u);
  EXPECT_EQ(test::ToDoubles(result[0]), std::vector<double>({4}));
  EXPECT_EQ(test::ToDoubles(result[1]), std::vector<double>({4}));
}

TEST(GradientTapeReadyTest, CallbackErrorStopsThePass) {
  Variable w1("w1", Vec({2})), w2("w2", Vec({3}));
  GradientTape tape;
  Tensor loss = Sum(Mul(w2.Read(), Mul(w1.Read(), Vec({1}))));
  int calls = 0;
  absl::StatusOr<std::vector<Tensor>> result =
      tape.Gradient(loss, {&w1, &w2}, [&](int, const Tensor&) {
        ++calls;
        return absl::CancelledError("stop here");
      });
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled);
  EXPECT_EQ(calls, 1);
}

TEST(GradientTapeReadyTest, PlanSaysWhatIsReachableWithoutUsingTheTape) {
  Variable w("w", Vec({2})), frozen("frozen", Vec({3}), /*trainable=*/false),
      unused("unused", Vec({1}));
  GradientTape tape;
  Tensor loss = Sum(Mul(w.Read(), frozen.Read()));
  BackwardPlan plan = *tape.PlanBackward(loss, {&w, &frozen, &unused});
  EXPECT_EQ(plan.reachable, std::vector<bool>({true, false, false}));
  EXPECT_FALSE(plan.communicates);
  // The non-persistent tape still answers its one Gradient call.
  EXPECT_EQ(test::ToDoubles((*tape.Gradient(loss, {&w}))[0]), std::vector<double>({3}));
}

TEST(GradientTapeReadyTest, PlanSeesACommunicatingGradientOnThePath) {
  Variable w("w", Vec({0.5}));
  {
    GradientTape tape;
    Tensor loss = Sum(*Execute1("Sin", {w.Read()}));
    EXPECT_TRUE(tape.PlanBackward(loss, {&w})->communicates);
  }
  {
    // Sin of a value the tape does not watch is not on the path.
    GradientTape tape;
    Tensor s = *Execute1("Sin", {Vec({0.5})});
    Tensor loss = Sum(Mul(w.Read(), s));
    EXPECT_FALSE(tape.PlanBackward(loss, {&w})->communicates);
  }
}

}  // namespace
}  // namespace tfd
