// One training step of the Fashion-MNIST CNN (Conv2D 32 + relu, pool,
// Conv2D 64 + relu, pool, Flatten, Dense 64 + relu, Dense 10; sparse
// cross-entropy; SGD) on GPU:0 at batch 256, in float32 and under
// mixed_bfloat16 — the "CNN step time at batch 256" — with the
// batch already on the device. Each iteration ends with a device
// synchronization, so the time is the step's, launches and kernels.
//
//   tools/gpu_tests.sh, then on the GPU machine: ./run.sh --benchmarks fashion
#include <memory>
#include <string>
#include <vector>

#include "benchmark/benchmark.h"
#include "core/autodiff/gradient_tape.h"
#include "core/device/device_registry.h"
#include "core/distribute/one_device_strategy.h"
#include "core/nn/conv.h"
#include "core/nn/dense.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "core/nn/losses_utils.h"
#include "core/nn/pooling.h"
#include "core/nn/reshaping.h"
#include "core/nn/sequential.h"
#include "core/nn/sgd.h"
#include "core/nn/synthetic_images.h"

namespace tfd {
namespace nn {
namespace {

constexpr int64_t kBatch = 256;

// policy: 0 float32, 1 mixed_bfloat16.
void BM_FashionCnnTrainStep(benchmark::State& state) {
  if (DeviceCount(DeviceType::kGPU) == 0) return state.SkipWithError("no CUDA device");
  Device* gpu = *GetDevice(DeviceType::kGPU, 0);
  const DTypePolicy policy = *DTypePolicy::FromName(state.range(0) == 0 ? "float32"
                                                                        : "mixed_bfloat16");
  ScopedGlobalPolicy policy_scope(policy);
  auto strategy = *distribute::OneDeviceStrategy::Create(gpu);
  distribute::StrategyScope scope(strategy.get());
  ConvOptions relu = ConvOptions().Activation("relu");
  auto model = *Sequential::Make(
      {MakeInputLayer({kNone, 28, 28, 1}), std::make_shared<Conv2D>(32, std::vector<int64_t>{3}, relu),
       std::make_shared<MaxPooling2D>(), std::make_shared<Conv2D>(64, std::vector<int64_t>{3}, relu),
       std::make_shared<MaxPooling2D>(), std::make_shared<Flatten>(),
       std::make_shared<Dense>(64, DenseOptions().Activation("relu")),
       std::make_shared<Dense>(10, DenseOptions().Dtype(DT_FLOAT))});
  const Tensor x = *SyntheticImages(kBatch).CopyTo(gpu);
  const Tensor labels = *SyntheticLabels(kBatch).CopyTo(gpu);
  SGDOptions sgd;
  sgd.learning_rate = 0.01f;
  std::shared_ptr<Optimizer> opt = *WrapOptimizerForPolicy(
      std::shared_ptr<Optimizer>(*SGD::Create(sgd)), policy);
  SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  loss_options.reduction = Reduction::kNone;
  SparseCategoricalCrossentropy loss_fn(loss_options);
  const std::vector<const Variable*> sources = LocalVariables(model->TrainableVariables());
  DeviceScope on_gpu(gpu);
  for (auto _ : state) {
    absl::Status step = [&]() -> absl::Status {
      GradientTape tape;
      TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(x, /*training=*/true));
      TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_fn.Call(labels, logits));
      TFD_ASSIGN_OR_RETURN(Tensor loss, ComputeAverageLoss(per_example, kBatch));
      TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads,
                           ComputeScaledGradients(*opt, tape, loss, sources));
      TFD_RETURN_IF_ERROR(opt->ApplyGradients(grads, model->TrainableVariables()));
      return gpu->Synchronize();
    }();
    if (!step.ok()) return state.SkipWithError(std::string(step.message()).c_str());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_FashionCnnTrainStep)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace nn
}  // namespace tfd
