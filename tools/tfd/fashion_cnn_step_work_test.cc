// The Fashion-MNIST CNN of `tfd train` (fashion_models.h), compiled as
// `tfd train` compiles it (Adam, sparse cross-entropy on logits,
// accuracy), does no avoidable device work in a Fit step once warmed up:
// no host wait but the read of the logs Keras makes at the end of the step,
// no copy to the device, no device allocation after the second step, no
// Transpose, only the casts the dtype policy asks for, on a GPU nothing
// that falls back to the host, and one optimizer op for all the variables
// where the device has the multi-tensor kernels (a real GPU). The step runs on the default device: the host in a plain build,
// the fake GPU under --config=fake_gpu_suite, a GPU under
// --config=cuda_core_suite with TFD_DEFAULT_DEVICE set.
#include <memory>

#include "core/distribute/one_device_strategy.h"
#include "core/framework/kernel.h"
#include "core/framework/placement.h"
#include "core/kernels/random_seed.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/step_work_testutil.h"
#include "core/nn/synthetic_images.h"
#include "gtest/gtest.h"
#include "tools/tfd/fashion_models.h"
#include "tools/tfd/training_run.h"

namespace tfd {
namespace cli {
namespace {

constexpr int64_t kBatch = 32;
constexpr int64_t kSteps = 5;
// Steps 0 and 1 fill caches (the allocator's, oneDNN's, the optimizer's
// slots); from here on every step is alike.
constexpr int64_t kWarmSteps = 2;
// The CNN's trainable variables: kernel and bias of two Conv2D and two Dense.
constexpr int kVariables = 8;

struct StepRun {
  bool on_gpu = false;
  // Whether the device has the one-op update of all variables.
  bool grouped_updates = false;
  std::vector<nn::StepWork> steps;
};

StepRun TrainFashionCnn(const std::string& policy_name) {
  StepRun run;
  absl::StatusOr<Device*> device = DefaultDevice();
  EXPECT_TRUE(device.ok()) << device.status();
  if (!device.ok()) return run;
  if (*device == nullptr) *device = HostDevice();  // No default device set.
  run.on_gpu = !(*device)->host_memory();
  run.grouped_updates =
      run.on_gpu && LookupKernel("TfdMultiTensorApplyAdam", (*device)->type(), DT_FLOAT).ok();
  auto strategy = distribute::OneDeviceStrategy::Create(*device);
  EXPECT_TRUE(strategy.ok()) << strategy.status();
  if (!strategy.ok()) return run;
  SetRandomSeed(3);
  std::shared_ptr<nn::Model> model;
  {
    nn::ScopedGlobalPolicy policy(*nn::DTypePolicy::FromName(policy_name));
    distribute::StrategyScope scope(strategy->get());
    auto made = MakeFashionModel("fashion_cnn");
    EXPECT_TRUE(made.ok()) << made.status();
    if (!made.ok()) return run;
    model = *made;
  }
  absl::Status compiled = CompileForFit(*model, **strategy);
  EXPECT_TRUE(compiled.ok()) << compiled;
  auto dataset = nn::SyntheticImageBatches(kBatch * kSteps, kBatch);
  EXPECT_TRUE(dataset.ok()) << dataset.status();
  if (!compiled.ok() || !dataset.ok()) return run;
  auto steps = nn::FitCountingStepWork(*model, *dataset);
  EXPECT_TRUE(steps.ok()) << steps.status();
  if (steps.ok()) run.steps = *steps;
  EXPECT_EQ(run.steps.size(), kSteps);
  return run;
}

void ExpectNoAvoidableWork(const StepRun& run, int64_t casts_per_step) {
  for (const nn::StepWork& s : run.steps) {
    if (s.step < kWarmSteps) continue;
    SCOPED_TRACE(s.DebugString());
    EXPECT_EQ(s.device.synchronizations, 0);
    // Keras reads the logs (loss, accuracy) once, at the end of the step;
    // on the host there is nothing to copy.
    EXPECT_EQ(s.device.copies_to_host, run.on_gpu ? 1 : 0);
    EXPECT_EQ(s.device.copies_to_device, 0);
    EXPECT_EQ(s.device.device_allocations, 0);
    EXPECT_EQ(s.ops.Of("Transpose"), 0);
    EXPECT_EQ(s.ops.Of("Cast"), casts_per_step);
    if (run.grouped_updates) {
      EXPECT_EQ(nn::CountOpsWithPrefix(s.ops, "TfdMultiTensorApply"), 1);
      EXPECT_EQ(nn::CountOpsWithPrefix(s.ops, "ResourceApply"), 0);
    } else {
      // Host variables, and the fake GPU, which has no multi-tensor kernels
      // (fake_gpu_kernels.h), take one op per variable (optimizer.h).
      EXPECT_EQ(nn::CountOpsWithPrefix(s.ops, "ResourceApply"), kVariables);
    }
    if (run.on_gpu) {
      EXPECT_TRUE(s.ops.on_host.empty());
    }
  }
}

// The casts of the loss and the accuracy (labels and matches to float32),
// as tf-keras's metrics make them.
constexpr int64_t kMetricCasts = 4;

TEST(FashionCnnStepWorkTest, Float32) {
  const StepRun run = TrainFashionCnn("float32");
  ExpectNoAvoidableWork(run, kMetricCasts);
}

TEST(FashionCnnStepWorkTest, MixedBfloat16) {
  const StepRun run = TrainFashionCnn("mixed_bfloat16");
  // Each of the 6 hidden-layer variables read in bfloat16 once, and its
  // gradient cast back; the images cast to bfloat16; the float32 logits
  // layer's input cast to float32, and its gradient cast back.
  ExpectNoAvoidableWork(run, kMetricCasts + 2 * 6 + 3);
}

}  // namespace
}  // namespace cli
}  // namespace tfd
