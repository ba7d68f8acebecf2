// The C++ half of checkpoint_test.py: tfd's object-based checkpoints of the
// Fashion-MNIST CNN read by TensorFlow, and TensorFlow's read by tfd.
//
//   checkpoint_interop write DIR
//       Builds the CNN, trains it 2 steps with Adam on a fixed batch, saves
//       DIR/ckpt-1 with Checkpoint::Save, and writes what the live objects
//       hold, independently of the checkpoint, for the Python side to
//       compare with:
//         DIR/values.txt + values.bin   every variable: "name dtype dims
//                                       offset bytes" lines, raw bytes
//         DIR/input.bin, DIR/logits.bin a float32 [4,28,28,1] input and the
//                                       model's float32 [4,10] output
//   checkpoint_interop predict PREFIX INPUT N OUTPUT
//       Builds the CNN and a fresh Adam, restores PREFIX (written by Keras),
//       writes the logits for the N float32 28x28x1 images in INPUT to
//       OUTPUT and prints "iterations <n>".
// Exit status 1 with the error on stderr on any failure.
#include <iostream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/framework/status.h"
#include "core/io/file.h"
#include "core/kernels/random_seed.h"
#include "core/nn/adam.h"
#include "core/nn/layer_names.h"
#include "savedmodel/checkpoint/checkpoint.h"
#include "savedmodel/checkpoint/checkpoint_testutil.h"

namespace tfd {
namespace {

using savedmodel::test::MakeCnn;

absl::Status WriteRaw(const std::string& path, const Tensor& t) {
  TFD_ASSIGN_OR_RETURN(Tensor host, t.CopyTo(HostDevice()));
  return io::WriteStringToFileAtomically(
      path, absl::string_view(static_cast<const char*>(host.raw_data()), host.TotalBytes()));
}

absl::StatusOr<std::shared_ptr<nn::Optimizer>> NewAdam() {
  TFD_ASSIGN_OR_RETURN(auto adam, nn::Adam::Create(nn::AdamOptions()));
  return std::shared_ptr<nn::Optimizer>(std::move(adam));
}

// Appends one variable's line and bytes.
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

absl::Status Write(const std::string& dir) {
  nn::ClearSession();
  SetRandomSeed(42);
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Model> model, MakeCnn());
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Optimizer> adam, NewAdam());
  const savedmodel::test::Batch batch = savedmodel::test::MakeBatch({16, 28, 28, 1}, 10, 5);
  TFD_RETURN_IF_ERROR(savedmodel::test::Train(*model, *adam, batch, 2));
  savedmodel::Checkpoint checkpoint(model, adam);
  TFD_ASSIGN_OR_RETURN(std::string path, checkpoint.Save(dir + "/ckpt"));

  std::string lines, bytes;
  for (const nn::Weight& w : model->weights()) TFD_RETURN_IF_ERROR(DumpVariable(*w, &lines, &bytes));
  for (const auto& v : adam->variables()) TFD_RETURN_IF_ERROR(DumpVariable(*v, &lines, &bytes));
  TFD_RETURN_IF_ERROR(io::WriteStringToFileAtomically(dir + "/values.txt", lines));
  TFD_RETURN_IF_ERROR(io::WriteStringToFileAtomically(dir + "/values.bin", bytes));

  const savedmodel::test::Batch probe = savedmodel::test::MakeBatch({4, 28, 28, 1}, 10, 9);
  TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(probe.x, /*training=*/false));
  TFD_RETURN_IF_ERROR(WriteRaw(dir + "/input.bin", probe.x));
  TFD_RETURN_IF_ERROR(WriteRaw(dir + "/logits.bin", logits));
  std::cout << path << "\n";
  return absl::OkStatus();
}

absl::Status Predict(const std::string& prefix, const std::string& input, int64_t n,
                     const std::string& output) {
  nn::ClearSession();
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Model> model, MakeCnn());
  TFD_ASSIGN_OR_RETURN(std::shared_ptr<nn::Optimizer> adam, NewAdam());
  savedmodel::Checkpoint checkpoint(model, adam);
  TFD_RETURN_IF_ERROR(checkpoint.Restore(prefix));
  TFD_ASSIGN_OR_RETURN(std::string pixels, io::ReadFileToString(input));
  Tensor x(DT_FLOAT, {n, 28, 28, 1});
  if (pixels.size() != x.TotalBytes()) {
    return InvalidArgument(input, ": expected ", x.TotalBytes(), " bytes, got ", pixels.size());
  }
  std::copy(pixels.begin(), pixels.end(), static_cast<char*>(x.raw_data()));
  TFD_ASSIGN_OR_RETURN(Tensor logits, model->Call(x, /*training=*/false));
  TFD_RETURN_IF_ERROR(WriteRaw(output, logits));
  TFD_ASSIGN_OR_RETURN(int64_t iterations, adam->Iterations());
  std::cout << "iterations " << iterations << "\n";
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  absl::Status status;
  if (args.size() == 2 && args[0] == "write") {
    status = Write(args[1]);
  } else if (args.size() == 5 && args[0] == "predict") {
    status = Predict(args[1], args[2], std::stoll(args[3]), args[4]);
  } else {
    std::cerr << "usage: checkpoint_interop write DIR | predict PREFIX INPUT N OUTPUT\n";
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
