// Training on a GPU, end to end: the small CNN of core/nn/model_training_test (Conv2D + relu,
// MaxPooling2D, Flatten, Dense; sparse cross-entropy from logits; SGD),
// built under a OneDeviceStrategy on GPU:0 with the same initial weights as
// a host run, follows the host run's losses step for step (float32 within
// 1e-4); under mixed_bfloat16 and mixed_float16 (with loss scaling) it
// stays within 1e-2 of them. Every op of the forward pass, the gradients
// and the update runs on the GPU kernels. Needs a GPU; skips, saying so,
// without one.
#include <memory>
#include <vector>

#include "core/autodiff/gradient_tape.h"
#include "core/device/device_registry.h"
#include "core/distribute/one_device_strategy.h"
#include "core/kernels/random_seed.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/layer_testutil.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "core/nn/losses_utils.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

// Losses of `steps` SGD steps of the CNN on `device` under `policy`.
absl::StatusOr<std::vector<double>> Train(Device* device, const char* policy_name, int steps) {
  TFD_ASSIGN_OR_RETURN(DTypePolicy policy, DTypePolicy::FromName(policy_name));
  ScopedGlobalPolicy policy_scope(policy);
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<distribute::OneDeviceStrategy> strategy,
                       distribute::OneDeviceStrategy::Create(device));
  distribute::StrategyScope scope(strategy.get());
  ClearSession();
  SetRandomSeed(3);  // the same initial weights on every device
  LayerOptions float32;
  float32.dtype = DT_FLOAT;
  TFD_ASSIGN_OR_RETURN(
      std::shared_ptr<Sequential> model,
      Sequential::Make({MakeInputLayer({kNone, 6, 6, 1}),
                        std::make_shared<Conv2D>(4, std::vector<int64_t>{3},
                                                 ConvOptions().Activation("relu")),
                        std::make_shared<MaxPooling2D>(), std::make_shared<Flatten>(),
                        std::make_shared<Dense>(2, Dense::Options().Dtype(DT_FLOAT))}));
  ClearRandomSeed();
  const Tensor x = test::RandomTensor(DT_FLOAT, {32, 6, 6, 1}, 11, 0.0, 1.0);
  std::vector<int32_t> labels;
  for (int i = 0; i < 32; ++i) labels.push_back(i % 2);
  TFD_ASSIGN_OR_RETURN(Tensor y, Tensor::FromVector(labels, {32}));
  SGDOptions sgd;
  sgd.learning_rate = 0.5f;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<SGD> plain, SGD::Create(sgd));
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<Optimizer> opt,
                       WrapOptimizerForPolicy(std::shared_ptr<Optimizer>(std::move(plain)), policy));
  SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  // A custom loop under a strategy states its reduction, as TensorFlow asks.
  loss_options.reduction = Reduction::kNone;
  SparseCategoricalCrossentropy loss_fn(loss_options);
  std::vector<double> losses;
  DeviceScope on_device(device);
  for (int step = 0; step < steps; ++step) {
    GradientTape tape;
    TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(x, /*training=*/true));
    if (logits.device() != device) return absl::InternalError("logits left the device");
    TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_fn.Call(y, logits));
    TFD_ASSIGN_OR_RETURN(Tensor loss, ComputeAverageLoss(per_example, 32));
    losses.push_back(test::Values(loss)[0]);
    TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads,
                         ComputeScaledGradients(*opt, tape, loss,
                                                LocalVariables(model->TrainableVariables())));
    TFD_RETURN_IF_ERROR(opt->ApplyGradients(grads, model->TrainableVariables()));
  }
  return losses;
}

class ModelGpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (DeviceCount(DeviceType::kGPU) == 0) GTEST_SKIP() << "no CUDA device";
    absl::StatusOr<Device*> gpu = GetDevice(DeviceType::kGPU, 0);
    ASSERT_TRUE(gpu.ok()) << gpu.status();
    gpu_ = *gpu;
    absl::StatusOr<std::vector<double>> host = Train(HostDevice(), "float32", kSteps);
    ASSERT_TRUE(host.ok()) << host.status();
    host_ = *host;
  }

  void ExpectNear(const std::vector<double>& got, double tol) {
    ASSERT_EQ(got.size(), host_.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], host_[i], tol) << "step " << i;
  }

  static constexpr int kSteps = 8;
  Device* gpu_ = nullptr;
  std::vector<double> host_;
};

TEST_F(ModelGpuTest, Float32FollowsTheHost) {
  absl::StatusOr<std::vector<double>> losses = Train(gpu_, "float32", kSteps);
  ASSERT_TRUE(losses.ok()) << losses.status();
  ExpectNear(*losses, 1e-4);
  EXPECT_LT(losses->back(), losses->front());
}

TEST_F(ModelGpuTest, MixedBfloat16StaysWithinOnePercent) {
  absl::StatusOr<std::vector<double>> losses = Train(gpu_, "mixed_bfloat16", kSteps);
  ASSERT_TRUE(losses.ok()) << losses.status();
  ExpectNear(*losses, 1e-2);
}

TEST_F(ModelGpuTest, MixedFloat16WithLossScalingStaysWithinOnePercent) {
  absl::StatusOr<std::vector<double>> losses = Train(gpu_, "mixed_float16", kSteps);
  ASSERT_TRUE(losses.ok()) << losses.status();
  ExpectNear(*losses, 1e-2);
}

}  // namespace
}  // namespace nn
}  // namespace tfd
