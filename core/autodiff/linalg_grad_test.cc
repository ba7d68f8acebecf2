// Finite-difference checks (float64) of the matrix-product gradients over
// every transpose/adjoint combination, and checks that the gradient
// products carry TensorFlow's grad_a/grad_b (grad_x/grad_y) markers.
#include <random>
#include <string>
#include <vector>

#include "core/autodiff/gradient_checker.h"
#include "core/autodiff/gradient_tape.h"
#include "core/framework/execute.h"
#include "core/framework/tensor_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace {

Tensor RandomDouble(const TensorShape& shape, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  Tensor t(DT_DOUBLE, shape);
  for (double& v : t.flat<double>()) v = dist(gen);
  return t;
}

// Stored shape of an operand that is logically [batch..., rows, cols].
TensorShape Stored(std::vector<int64_t> batch, int64_t rows, int64_t cols, bool adj) {
  batch.push_back(adj ? cols : rows);
  batch.push_back(adj ? rows : cols);
  return TensorShape(batch);
}

void CheckGradient(const std::string& op, const Tensor& x, const Tensor& y, bool tx, bool ty) {
  const bool is_matmul = op == "MatMul";
  AttrMap attrs;
  attrs.Set(is_matmul ? "transpose_a" : "adj_x", tx).Set(is_matmul ? "transpose_b" : "adj_y", ty);
  auto f = [&](absl::Span<const Tensor> in) { return Execute1(op, {in[0], in[1]}, attrs); };
  absl::StatusOr<double> err = MaxGradientError(f, {x, y});
  ASSERT_TRUE(err.ok()) << err.status();
  EXPECT_LT(*err, 1e-8) << op << " " << x.shape().DebugString() << " "
                        << y.shape().DebugString() << " transposes " << tx << ty;
}

// CheckGradient at random inputs of the given shapes, drawn with `seed` and
// `seed + 1` in that order (one statement each: the order of a call's
// arguments is unspecified); advances `seed` by two.
void CheckRandomGradient(const std::string& op, const TensorShape& x_shape,
                         const TensorShape& y_shape, bool adj_x, bool adj_y, uint32_t& seed) {
  const Tensor x = RandomDouble(x_shape, seed++);
  const Tensor y = RandomDouble(y_shape, seed++);
  CheckGradient(op, x, y, adj_x, adj_y);
}

TEST(LinalgGradTest, MatMulAllTransposes) {
  uint32_t seed = 1;
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    CheckRandomGradient("MatMul", Stored({}, 3, 4, ta), Stored({}, 4, 2, tb), ta, tb, seed);
    // Batch 1 and a vector-like operand.
    CheckRandomGradient("MatMul", Stored({}, 1, 5, ta), Stored({}, 5, 1, tb), ta, tb, seed);
  }
}

TEST(LinalgGradTest, BatchMatMulBothVersionsAllAdjoints) {
  uint32_t seed = 50;
  for (const char* op : {"BatchMatMul", "BatchMatMulV2"}) {
    for (int t = 0; t < 4; ++t) {
      const bool ax = t & 1, ay = t & 2;
      CheckRandomGradient(op, Stored({2}, 3, 4, ax), Stored({2}, 4, 2, ay), ax, ay, seed);
      CheckRandomGradient(op, Stored({2, 1}, 2, 3, ax), Stored({2, 1}, 3, 2, ay), ax, ay, seed);
    }
  }
}

TEST(LinalgGradTest, BatchMatMulV2SumsOverBroadcastBatches) {
  // Each operand's gradient is summed over the batch axes it was
  // broadcast along, then shaped like the operand.
  struct Case {
    std::vector<int64_t> xb, yb;
  } cases[] = {{{}, {3}}, {{2}, {}}, {{2, 1}, {3}}, {{1, 2}, {3, 1}}, {{1}, {2}},
               {{2, 1, 2}, {1, 3, 1}}};
  uint32_t seed = 200;
  for (const Case& c : cases) {
    for (int t = 0; t < 4; ++t) {
      const bool ax = t & 1, ay = t & 2;
      CheckRandomGradient("BatchMatMulV2", Stored(c.xb, 2, 3, ax), Stored(c.yb, 3, 2, ay), ax, ay,
                          seed);
    }
  }
}

// Records the attrs of every matrix product executed on this thread.
class ProductRecorder : public ExecutionObserver {
 public:
  ProductRecorder() { AddObserver(this); }
  ~ProductRecorder() override { RemoveObserver(this); }
  void OnExecute(const OpCall& call) override {
    if (call.op->name.find("MatMul") != std::string::npos) calls.push_back(call.attrs);
  }
  std::vector<AttrMap> calls;
};

TEST(LinalgGradTest, GradientProductsAreMarked) {
  const struct {
    const char* op;
    const char* ga;
    const char* gb;
  } cases[] = {{"MatMul", "grad_a", "grad_b"},
               {"BatchMatMul", "grad_x", "grad_y"},
               {"BatchMatMulV2", "grad_x", "grad_y"}};
  for (const auto& c : cases) {
    Tensor a = RandomDouble({2, 3}, 1), b = RandomDouble({3, 4}, 2);
    GradientTape tape;
    tape.Watch(a);
    tape.Watch(b);
    absl::StatusOr<Tensor> z = Execute1(c.op, {a, b});
    ASSERT_TRUE(z.ok()) << z.status();
    ProductRecorder recorder;
    absl::StatusOr<std::vector<Tensor>> grads = tape.Gradient({*z}, {a, b});
    ASSERT_TRUE(grads.ok()) << grads.status();
    ASSERT_EQ(recorder.calls.size(), 2u) << c.op;
    EXPECT_TRUE(*recorder.calls[0].Get<bool>(c.ga)) << c.op;
    EXPECT_FALSE(*recorder.calls[0].Get<bool>(c.gb)) << c.op;
    EXPECT_TRUE(*recorder.calls[1].Get<bool>(c.gb)) << c.op;
    // The gradient of sum(a·b) w.r.t. a is the row sums of b, per row.
    for (int64_t i = 0; i < 2; ++i) {
      for (int64_t j = 0; j < 3; ++j) {
        double row = 0;
        for (int64_t k = 0; k < 4; ++k) row += b.data<double>()[j * 4 + k];
        EXPECT_NEAR(test::ToHost((*grads)[0]).data<double>()[i * 3 + j], row, 1e-12);
      }
    }
  }
}

}  // namespace
}  // namespace tfd
