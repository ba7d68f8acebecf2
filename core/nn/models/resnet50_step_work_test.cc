// A Fit step of ResNet-50 (channels-last, mixed_bfloat16, as the GPU
// benchmark trains it; 32x32 images and a batch of 2 keep it fast on a CPU,
// the ops are the same) does no avoidable device work once warmed up: no
// host wait but the read of the logs Keras makes at the end of the step, no
// copy to the device, no device allocation after the second step, no
// Transpose, one Cast of each variable the layers read in bfloat16 (and
// the Cast its gradient takes back), on a GPU nothing that falls back to
// the host, and one optimizer op for all the variables where the device
// has the multi-tensor kernels (a real GPU). The step runs on
// the default device: the host in a plain build, the fake GPU under
// --config=fake_gpu_suite, a GPU under --config=cuda_core_suite.
#include <memory>

#include "core/data/dataset.h"
#include "core/data/transforms.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/kernel.h"
#include "core/framework/placement.h"
#include "core/kernels/random_seed.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/losses.h"
#include "core/nn/models/resnet50.h"
#include "core/nn/sgd.h"
#include "core/nn/step_work_testutil.h"
#include "gtest/gtest.h"

namespace tfd {
namespace nn {
namespace {

constexpr int64_t kBatch = 2;
constexpr int64_t kImageSize = 32;
constexpr int64_t kSteps = 4;
constexpr int64_t kWarmSteps = 2;
// Casts besides the weights': the images' autocast to bfloat16 and the
// loss's and the accuracy's casts of labels, logits and results to
// float32 (measured; tf-keras's compiled loss and metrics cast the same).
constexpr int64_t kOtherCasts = 8;

// (images, labels) batches: a ramp of pixels and labels 0..9.
absl::StatusOr<data::DatasetPtr> Images() {
  const int64_t n = kBatch * kSteps;
  Tensor x(DT_FLOAT, {n, kImageSize, kImageSize, 3});
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = (i % 97) / 97.0f;
  Tensor y(DT_INT32, {n});
  for (int64_t i = 0; i < n; ++i) y.data<int32_t>()[i] = static_cast<int32_t>(i % 10);
  TFD_ASSIGN_OR_RETURN(data::DatasetPtr ds, data::FromTensorSlices({x, y}));
  return data::Batch(ds, kBatch, /*drop_remainder=*/true);
}

TEST(ResNet50StepWorkTest, MixedBfloat16ChannelsLast) {
  absl::StatusOr<Device*> device = DefaultDevice();
  ASSERT_TRUE(device.ok()) << device.status();
  if (*device == nullptr) *device = HostDevice();  // No default device set.
  const bool on_gpu = !(*device)->host_memory();
  const bool grouped_updates =
      on_gpu && LookupKernel("TfdMultiTensorApplyKerasMomentum", (*device)->type(), DT_FLOAT).ok();
  auto strategy = distribute::OneDeviceStrategy::Create(*device);
  ASSERT_TRUE(strategy.ok()) << strategy.status();
  SetRandomSeed(5);
  std::shared_ptr<Functional> model;
  CompileOptions compile;
  {
    ScopedGlobalPolicy policy(*DTypePolicy::FromName("mixed_bfloat16"));
    distribute::StrategyScope scope(strategy->get());
    ResNet50Options options;
    options.input_shape = Shape{kImageSize, kImageSize, 3};
    options.classes = 10;
    options.classifier_activation = "";
    auto made = ResNet50(options);
    ASSERT_TRUE(made.ok()) << made.status();
    model = *made;
    SGDOptions sgd;
    sgd.learning_rate = 0.01f;
    auto optimizer = SGD::Create(sgd);
    ASSERT_TRUE(optimizer.ok()) << optimizer.status();
    compile.optimizer = std::shared_ptr<Optimizer>(std::move(*optimizer));
  }
  SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  compile.loss = std::make_shared<SparseCategoricalCrossentropy>(loss);
  compile.metrics = {"accuracy"};
  ASSERT_TRUE(model->Compile(compile).ok());
  auto dataset = Images();
  ASSERT_TRUE(dataset.ok()) << dataset.status();

  auto steps = FitCountingStepWork(*model, *dataset);
  ASSERT_TRUE(steps.ok()) << steps.status();
  ASSERT_EQ(steps->size(), kSteps);
  // Every trainable variable is float32; the layers read each in bfloat16
  // but for BatchNormalization's gamma and beta, which the fused batch norm
  // takes in float32, as Keras's does.
  int64_t variables = 0;
  int64_t cast_variables = 0;
  for (const auto& w : model->TrainableVariables()) {
    ++variables;
    if (w->name().find("_bn/") == std::string::npos) ++cast_variables;
  }
  for (const StepWork& s : *steps) {
    if (s.step < kWarmSteps) continue;
    SCOPED_TRACE(s.DebugString());
    EXPECT_EQ(s.device.synchronizations, 0);
    EXPECT_EQ(s.device.copies_to_host, on_gpu ? 1 : 0);
    EXPECT_EQ(s.device.copies_to_device, 0);
    EXPECT_EQ(s.device.device_allocations, 0);
    EXPECT_EQ(s.ops.Of("Transpose"), 0);
    EXPECT_EQ(s.ops.Of("Cast"), 2 * cast_variables + kOtherCasts);
    if (grouped_updates) {
      EXPECT_EQ(CountOpsWithPrefix(s.ops, "TfdMultiTensorApply"), 1);
      EXPECT_EQ(CountOpsWithPrefix(s.ops, "ResourceApply"), 0);
    } else {
      // The host, and the fake GPU without multi-tensor kernels.
      EXPECT_EQ(CountOpsWithPrefix(s.ops, "ResourceApply"), variables);
    }
    if (on_gpu) {
      EXPECT_TRUE(s.ops.on_host.empty());
    }
  }
}

}  // namespace
}  // namespace nn
}  // namespace tfd
