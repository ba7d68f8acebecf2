// The C++ half of loss_scale_checkpoint_test.py: checkpoints of a model
// trained under mixed_float16, whose compiled optimizer is a
// LossScaleOptimizer around Adam, between tfd and tf-keras.
//
//   loss_scale_checkpoint_interop write DIR
//       Builds the MLP (Dense(16, relu) Dense(4) on 8 features) under
//       mixed_float16, compiles it with Adam, trains 2 steps, one step
//       whose float16 activations overflow (skipped, the scale halves) and
//       1 more step, and saves DIR/ckpt-1 as the C API does
//       (Checkpoint(model, adam), the wrapper at model/optimizer). Prints
//       the prefix.
//   loss_scale_checkpoint_interop restore PREFIX DIR
//       Builds and compiles the same model afresh and restores PREFIX
//       (written by Keras).
// Both then write what the live objects hold, independently of any
// checkpoint: DIR/values.txt + values.bin, one "name dtype dims offset
// bytes" line per variable and its raw bytes, in this order: the model's
// weights, Adam's variables (the step counter, then the slots in creation
// order), the loss scale, the good-steps count. `restore` also prints
// "iterations <n>".
// Exit status 1 with the error on stderr on any failure.
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/framework/status.h"
#include "core/io/file.h"
#include "core/kernels/random_seed.h"
#include "core/nn/adam.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/layer_names.h"
#include "core/nn/loss_scale_optimizer.h"
#include "core/nn/losses.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace {

namespace test = savedmodel::test;

struct Compiled {
  std::shared_ptr<nn::Model> model;
  std::shared_ptr<nn::Optimizer> adam;     // What the user compiled with.
  nn::LossScaleOptimizer* scaled = nullptr;  // model->optimizer().
};

// The MLP made under mixed_float16 and compiled with Adam, which Compile
// wraps in a LossScaleOptimizer as Keras's does.
absl::StatusOr<Compiled> MixedMlp() {
  nn::ClearSession();
  Compiled c;
  {
    TFD_ASSIGN_OR_RETURN(nn::DTypePolicy mixed, nn::DTypePolicy::FromName("mixed_float16"));
    nn::ScopedGlobalPolicy scope(mixed);
    TFD_ASSIGN_OR_RETURN(c.model, test::MakeMlp());
  }
  TFD_ASSIGN_OR_RETURN(auto adam, nn::Adam::Create(nn::AdamOptions()));
  c.adam = std::move(adam);
  nn::SparseCategoricalCrossentropy::Options loss;
  loss.from_logits = true;
  nn::CompileOptions compile;
  compile.optimizer = c.adam;
  compile.loss = std::make_shared<nn::SparseCategoricalCrossentropy>(loss);
  TFD_RETURN_IF_ERROR(c.model->Compile(compile));
  c.scaled = dynamic_cast<nn::LossScaleOptimizer*>(c.model->optimizer());
  if (c.scaled == nullptr) return Internal("mixed_float16 Compile made no LossScaleOptimizer");
  return c;
}

absl::Status DumpVariable(const distribute::DistributedVariable& var, std::string* lines,
                          std::string* bytes) {
  TFD_ASSIGN_OR_RETURN(Tensor value, var.Value());
  TFD_ASSIGN_OR_RETURN(Tensor host, value.CopyTo(HostDevice()));
  absl::StrAppend(lines, var.name(), " ", DataTypeName(host.dtype()), " ",
                  absl::StrJoin(host.shape().dims(), ","), " ", bytes->size(), " ",
                  host.TotalBytes(), "\n");
  bytes->append(static_cast<const char*>(host.raw_data()), host.TotalBytes());
  return absl::OkStatus();
}

absl::Status Dump(const Compiled& c, const std::string& dir) {
  std::string lines, bytes;
  for (const nn::Weight& w : c.model->weights()) {
    TFD_RETURN_IF_ERROR(DumpVariable(*w, &lines, &bytes));
  }
  for (const auto& v : c.adam->variables()) TFD_RETURN_IF_ERROR(DumpVariable(*v, &lines, &bytes));
  TFD_RETURN_IF_ERROR(DumpVariable(*c.scaled->current_loss_scale(), &lines, &bytes));
  TFD_RETURN_IF_ERROR(DumpVariable(*c.scaled->good_steps(), &lines, &bytes));
  TFD_RETURN_IF_ERROR(io::WriteStringToFileAtomically(dir + "/values.txt", lines));
  return io::WriteStringToFileAtomically(dir + "/values.bin", bytes);
}

absl::Status Write(const std::string& dir) {
  SetRandomSeed(42);
  TFD_ASSIGN_OR_RETURN(Compiled c, MixedMlp());
  const test::Batch batch = test::MakeBatch({16, 8}, 4, 5);
  TFD_RETURN_IF_ERROR(test::Train(*c.model, *c.scaled, batch, 2));
  // 1e6 is past float16's largest value: Inf activations, NaN gradients.
  test::Batch overflow = batch;
  overflow.x = Tensor(DT_FLOAT, batch.x.shape());
  for (int64_t i = 0; i < overflow.x.NumElements(); ++i) overflow.x.data<float>()[i] = 1e6f;
  TFD_RETURN_IF_ERROR(test::Train(*c.model, *c.scaled, overflow, 1));
  TFD_RETURN_IF_ERROR(test::Train(*c.model, *c.scaled, batch, 1));
  savedmodel::Checkpoint checkpoint(c.model, c.adam);
  TFD_ASSIGN_OR_RETURN(std::string path, checkpoint.Save(dir + "/ckpt"));
  TFD_RETURN_IF_ERROR(Dump(c, dir));
  std::cout << path << "\n";
  return absl::OkStatus();
}

absl::Status Restore(const std::string& prefix, const std::string& dir) {
  TFD_ASSIGN_OR_RETURN(Compiled c, MixedMlp());
  savedmodel::Checkpoint checkpoint(c.model, c.adam);
  TFD_RETURN_IF_ERROR(checkpoint.Restore(prefix));
  TFD_RETURN_IF_ERROR(Dump(c, dir));
  TFD_ASSIGN_OR_RETURN(int64_t iterations, c.adam->Iterations());
  std::cout << "iterations " << iterations << "\n";
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::Status status;
  if (args.size() == 2 && args[0] == "write") {
    status = Write(args[1]);
  } else if (args.size() == 3 && args[0] == "restore") {
    status = Restore(args[1], args[2]);
  } else {
    std::cerr << "usage: loss_scale_checkpoint_interop write DIR | restore PREFIX DIR\n";
    return 2;
  }
  if (!status.ok()) {
    std::cerr << status << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) { return tfd::Main(argc, argv); }
