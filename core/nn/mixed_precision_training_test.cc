// Short trainings under each dtype policy against tf-keras 2.21's losses
// (testdata/mixed_precision_golden.py): Dense(8, relu) -> Dense(3) ->
// Activation("softmax", dtype="float32"), sparse cross-entropy, SGD(0.5),
// ten steps on fixed data and fixed initial weights. float32 matches
// tf-keras to float32 rounding; mixed_bfloat16 and mixed_float16 (with its
// LossScaleOptimizer) match tf-keras's mixed runs and the float32 run
// within 1e-2.
#include <cmath>
#include <memory>
#include <vector>

#include "core/autodiff/gradient_tape.h"
#include "core/nn/activation_layer.h"
#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

// Losses printed by testdata/mixed_precision_golden.py.
const std::vector<double> kKerasFloat32 = {1.10013902, 1.09294307, 1.08848953, 1.08387065,
                                           1.08088505, 1.07769275, 1.07459903, 1.0727452,
                                           1.07037473, 1.06795812};
const std::vector<double> kKerasMixedBfloat16 = {1.10005438, 1.09324121, 1.08846939, 1.0839678,
                                                 1.08089519, 1.07775259, 1.07438612, 1.07257962,
                                                 1.07028258, 1.06804991};
const std::vector<double> kKerasMixedFloat16 = {1.10015666, 1.09294796, 1.08848405, 1.08386791,
                                                1.08087134, 1.07768965, 1.07460654, 1.07272768,
                                                1.07038546, 1.06792748};

// 0.5 * sin(offset + i * m + j + 1), the script's weights().
std::vector<double> Weights(int n, int m, double offset) {
  std::vector<double> w;
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < m; ++j) w.push_back(0.5 * std::sin(offset + i * m + j + 1));
  }
  return w;
}

absl::StatusOr<std::vector<double>> Train(const char* policy_name) {
  TFD_ASSIGN_OR_RETURN(DTypePolicy policy, DTypePolicy::FromName(policy_name));
  ScopedGlobalPolicy scope(policy);
  Dense hidden(8, Dense::Options().Activation("relu"));
  Dense logits(3);
  LayerOptions float32;
  float32.dtype = DT_FLOAT;
  Activation softmax("softmax", float32);

  std::vector<double> x, bias;
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 4; ++c) x.push_back(std::cos(0.37 * (4 * r + c)));
  }
  for (int j = 0; j < 8; ++j) bias.push_back(0.1 * std::cos(j));
  std::vector<int32_t> y;
  for (int r = 0; r < 16; ++r) y.push_back(r % 3);
  const Tensor images = test::FromDoubles(DT_FLOAT, x, {16, 4});
  const Tensor labels = *Tensor::FromVector(y, {16});

  TFD_RETURN_IF_ERROR(hidden.Build(Shape{kNone, 4}));
  TFD_RETURN_IF_ERROR(logits.Build(Shape{kNone, 8}));
  test::AssignWeight(hidden.kernel(), Weights(4, 8, 0.0));
  test::AssignWeight(hidden.bias(), bias);
  test::AssignWeight(logits.kernel(), Weights(8, 3, 7.0));
  test::AssignWeight(logits.bias(), {0, 0, 0});
  std::vector<Weight> vars = hidden.trainable_weights();
  for (const Weight& w : logits.trainable_weights()) vars.push_back(w);

  SGDOptions sgd;
  sgd.learning_rate = 0.5f;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<SGD> plain, SGD::Create(sgd));
  // As Keras's compile(): mixed_float16 gets a LossScaleOptimizer.
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Optimizer> opt,
                       WrapOptimizerForPolicy(std::shared_ptr<Optimizer>(std::move(plain)), policy));
  SparseCategoricalCrossentropy loss_fn;
  std::vector<double> losses;
  for (int step = 0; step < 10; ++step) {
    GradientTape tape;
    TFD_ASSIGN_OR_RETURN(Tensor h, hidden.Call(images, /*training=*/true));
    TFD_ASSIGN_OR_RETURN(Tensor z, logits.Call(h, /*training=*/true));
    TFD_ASSIGN_OR_RETURN(Tensor p, softmax.Call(z, /*training=*/true));
    if (p.dtype() != DT_FLOAT) return absl::InternalError("softmax output is not float32");
    TFD_ASSIGN_OR_RETURN(Tensor loss, loss_fn.Call(labels, p));
    losses.push_back(test::Values(loss)[0]);
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads,
                         ComputeScaledGradients(*opt, tape, loss, LocalVariables(vars)));
    TFD_RETURN_IF_ERROR(opt->ApplyGradients(grads, vars));
  }
  return losses;
}

void ExpectLossesNear(const std::vector<double>& got, const std::vector<double>& want,
                      double tol, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << what << " step " << i;
}

TEST(MixedPrecisionTrainingTest, Float32MatchesKeras) {
  ASSERT_OK_AND_ASSIGN(std::vector<double> losses, Train("float32"));
  ExpectLossesNear(losses, kKerasFloat32, 1e-5, "float32");
}

TEST(MixedPrecisionTrainingTest, MixedBfloat16MatchesKerasAndFloat32) {
  ASSERT_OK_AND_ASSIGN(std::vector<double> losses, Train("mixed_bfloat16"));
  ExpectLossesNear(losses, kKerasMixedBfloat16, 1e-2, "mixed_bfloat16 vs tf-keras");
  ExpectLossesNear(losses, kKerasFloat32, 1e-2, "mixed_bfloat16 vs float32");
  // 16-bit compute is visible: not bit-equal to the float32 run.
  ASSERT_OK_AND_ASSIGN(std::vector<double> f32, Train("float32"));
  EXPECT_NE(losses, f32);
}

TEST(MixedPrecisionTrainingTest, MixedFloat16WithLossScalingMatchesKerasAndFloat32) {
  ASSERT_OK_AND_ASSIGN(std::vector<double> losses, Train("mixed_float16"));
  ExpectLossesNear(losses, kKerasMixedFloat16, 1e-2, "mixed_float16 vs tf-keras");
  ExpectLossesNear(losses, kKerasFloat32, 1e-2, "mixed_float16 vs float32");
}

}  // namespace
}  // namespace nn
}  // namespace tfd
