// One training step of ResNet-50 (core/nn/models/resnet50.h, 1000
// classes, channels_last): forward in training mode, sparse cross-entropy
// on the logits (in float32), gradients of all 214 trainable weights, one
// SGD update; the batch of random images is already on the device. Each
// iteration ends with a device synchronization, so the time is the whole
// step's. Reports images per second. Built in every build; on GPU:0 (the
// default) it needs --config=cuda and a GPU, else it reports "no CUDA
// device".
//
// Flags (besides Google Benchmark's):
//   --batch=N          images per step (default 256)
//   --policy=NAME      mixed_bfloat16 (default) or float32
//   --device=NAME      GPU:0 (default), or CPU:0 to try the step on the host
//   --image_size=N     height and width (default 224; at least 32)
//   --warmup=N         untimed steps first (default 2): the first steps pay
//                      for cuDNN's algorithm choice and fill the allocator's
//                      cache
//
//   tools/gpu_tests.sh, then on the GPU machine (tools/device_check.sh
//   runs it): bin/tools/bench/resnet50_benchmark --batch=256
//   bazel run //tools/bench:resnet50_benchmark -- --device=CPU:0 --batch=2 --image_size=64
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "benchmark/benchmark.h"
#include "core/autodiff/gradient_tape.h"
#include "core/device/device_registry.h"
#include "core/distribute/one_device_strategy.h"
#include "core/framework/execute.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "core/nn/losses_utils.h"
#include "core/nn/models/resnet50.h"
#include "core/nn/sgd.h"

namespace tfd {
namespace nn {
namespace {

struct Flags {
  int64_t batch = 256;
  std::string policy = "mixed_bfloat16";
  std::string device = "GPU:0";
  int64_t image_size = 224;
  int warmup = 2;
};

// Everything one step needs, on the benchmark's device.
struct Setup {
  std::shared_ptr<distribute::Strategy> strategy;
  std::shared_ptr<Functional> model;
  std::shared_ptr<Optimizer> optimizer;
  std::vector<const Variable*> sources;
  Tensor images, labels;
};

absl::StatusOr<Setup> MakeSetup(Device* device, const Flags& flags, const DTypePolicy& policy) {
  Setup s;
  TFD_ASSIGN_OR_RETURN(s.strategy, distribute::OneDeviceStrategy::Create(device));
  distribute::StrategyScope scope(s.strategy.get());
  ResNet50Options options;
  options.input_shape = Shape{flags.image_size, flags.image_size, 3};
  options.classifier_activation = "";  // Logits: the loss applies the softmax.
  TFD_ASSIGN_OR_RETURN(s.model, ResNet50(options));
  SGDOptions sgd;
  sgd.learning_rate = 0.01f;
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<SGD> plain, SGD::Create(sgd));
  std::shared_ptr<Optimizer> unwrapped = std::move(plain);
  TFD_ASSIGN_OR_RETURN(s.optimizer, WrapOptimizerForPolicy(unwrapped, policy));
  s.sources = LocalVariables(s.model->TrainableVariables());
  // Uniform [0, 1) images and labels 0..999 made on the device.
  TFD_ASSIGN_OR_RETURN(
      s.images,
      Execute1("RandomUniform", {*Tensor::FromVector(std::vector<int32_t>{
                                     static_cast<int32_t>(flags.batch),
                                     static_cast<int32_t>(flags.image_size),
                                     static_cast<int32_t>(flags.image_size), 3},
                                 {4})},
               AttrMap().Set("dtype", DT_FLOAT).Set("seed", int64_t{1}).Set("seed2", int64_t{2}),
               device));
  std::vector<int32_t> y(flags.batch);
  for (int64_t i = 0; i < flags.batch; ++i) y[i] = static_cast<int32_t>((i * 7) % 1000);
  TFD_ASSIGN_OR_RETURN(Tensor host_labels, Tensor::FromVector(y, {flags.batch}));
  TFD_ASSIGN_OR_RETURN(s.labels, host_labels.CopyTo(device));
  return s;
}

absl::Status Step(Setup& s, Device* device) {
  SparseCategoricalCrossentropy::Options loss_options;
  loss_options.from_logits = true;
  loss_options.reduction = Reduction::kNone;
  SparseCategoricalCrossentropy loss_fn(loss_options);
  GradientTape tape;
  TFD_ASSIGN_OR_RETURN(Tensor logits, s.model->Call(s.images, /*training=*/true));
  // The loss in float32, as PyTorch's autocast computes cross-entropy.
  TFD_ASSIGN_OR_RETURN(logits, Execute1("Cast", {logits}, AttrMap().Set("DstT", DT_FLOAT)));
  TFD_ASSIGN_OR_RETURN(Tensor per_example, loss_fn.Call(s.labels, logits));
  TFD_ASSIGN_OR_RETURN(Tensor loss, ComputeAverageLoss(per_example, s.images.dim(0)));
  TFD_ASSIGN_OR_RETURN(std::vector<Tensor> grads,
                       ComputeScaledGradients(*s.optimizer, tape, loss, s.sources));
  TFD_RETURN_IF_ERROR(s.optimizer->ApplyGradients(grads, s.model->TrainableVariables()));
  return device->Synchronize();
}

// The model and data with `flags.warmup` steps done, made once per
// process: Google Benchmark calls the benchmark function once per
// repetition and again while it picks the number of iterations.
absl::StatusOr<Setup>& SharedSetup(Device* device, const Flags& flags) {
  static absl::StatusOr<Setup>* const shared = [&] {
    auto* setup = new absl::StatusOr<Setup>(absl::UnknownError("unset"));
    *setup = [&]() -> absl::StatusOr<Setup> {
      TFD_ASSIGN_OR_RETURN(DTypePolicy policy, DTypePolicy::FromName(flags.policy));
      ScopedGlobalPolicy policy_scope(policy);
      TFD_ASSIGN_OR_RETURN(Setup s, MakeSetup(device, flags, policy));
      distribute::StrategyScope scope(s.strategy.get());
      DeviceScope on_device(device);
      for (int i = 0; i < flags.warmup; ++i) TFD_RETURN_IF_ERROR(Step(s, device));
      return s;
    }();
    return setup;
  }();
  return *shared;
}

void BM_ResNet50TrainStep(benchmark::State& state, const Flags& flags) {
  if (absl::StartsWithIgnoreCase(flags.device, "GPU") && DeviceCount(DeviceType::kGPU) == 0) {
    return state.SkipWithError("no CUDA device");
  }
  absl::StatusOr<Device*> device = FindDevice(flags.device);
  if (!device.ok()) return state.SkipWithError(std::string(device.status().message()).c_str());
  absl::StatusOr<Setup>& setup = SharedSetup(*device, flags);
  if (!setup.ok()) return state.SkipWithError(std::string(setup.status().message()).c_str());
  distribute::StrategyScope scope(setup->strategy.get());
  DeviceScope on_device(*device);
  for (auto _ : state) {
    absl::Status step = Step(*setup, *device);
    if (!step.ok()) return state.SkipWithError(std::string(step.message()).c_str());
  }
  state.SetItemsProcessed(state.iterations() * flags.batch);
  state.counters["images/s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * flags.batch), benchmark::Counter::kIsRate);
}

// Takes this binary's flags out of argv; false (with a message) for a
// malformed value.
bool ParseFlags(int* argc, char** argv, Flags* flags) {
  int kept = 1;
  for (int i = 1; i < *argc; ++i) {
    const absl::string_view arg = argv[i];
    bool ok = true;
    if (absl::StartsWith(arg, "--batch=")) {
      ok = absl::SimpleAtoi(arg.substr(8), &flags->batch) && flags->batch > 0;
    } else if (absl::StartsWith(arg, "--policy=")) {
      flags->policy = std::string(arg.substr(9));
    } else if (absl::StartsWith(arg, "--device=")) {
      flags->device = std::string(arg.substr(9));
    } else if (absl::StartsWith(arg, "--image_size=")) {
      ok = absl::SimpleAtoi(arg.substr(13), &flags->image_size) && flags->image_size > 0;
    } else if (absl::StartsWith(arg, "--warmup=")) {
      ok = absl::SimpleAtoi(arg.substr(9), &flags->warmup) && flags->warmup >= 0;
    } else {
      argv[kept++] = argv[i];
      continue;
    }
    if (!ok) {
      fprintf(stderr, "resnet50_benchmark: bad value in %s\n", argv[i]);
      return false;
    }
  }
  *argc = kept;
  return true;
}

}  // namespace
}  // namespace nn
}  // namespace tfd

int main(int argc, char** argv) {
  tfd::nn::Flags flags;
  if (!tfd::nn::ParseFlags(&argc, argv, &flags)) return 2;
  benchmark::RegisterBenchmark(
      absl::StrCat("BM_ResNet50TrainStep/batch:", flags.batch, "/", flags.policy, "/",
                   flags.image_size, "px")
          .c_str(),
      [flags](benchmark::State& state) { tfd::nn::BM_ResNet50TrainStep(state, flags); })
      ->Unit(benchmark::kMillisecond)
      ->UseRealTime();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
