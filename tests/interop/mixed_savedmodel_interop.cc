// The C++ half of mixed_savedmodel_test.py: SavedModels of models built
// under a mixed precision policy, for TensorFlow to load.
//
//   mixed_savedmodel_interop export POLICY HEAD DIR INPUTS N PREDICTIONS
//       Builds the MLP (Input(8), Dense(16, relu), Dense(4)) under POLICY
//       (mixed_float16, mixed_bfloat16), seeded; with HEAD "float32" a
//       last Activation("linear", dtype=float32) named "predictions", as
//       Keras's mixed precision guide ends a model; with "none" no such
//       layer. Writes its predictions for INPUTS (raw little-endian
//       float32, N x 8) to PREDICTIONS as raw values of the model's output
//       dtype, exports the SavedModel to DIR and prints that dtype's name.
// Exit status 1 with the error on stderr on any failure.
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "core/framework/status.h"
#include "core/io/file.h"
#include "core/kernels/random_seed.h"
#include "core/nn/activation_layer.h"
#include "core/nn/dense.h"
#include "core/nn/dtype_policy.h"
#include "core/nn/input_layer.h"
#include "core/nn/layer_names.h"
#include "core/nn/sequential.h"
#include "savedmodel/export/save_model.h"

namespace tfd {
namespace {

absl::StatusOr<std::shared_ptr<nn::Model>> MixedMlp(const std::string& policy,
                                                    const std::string& head) {
  if (head != "float32" && head != "none") {
    return InvalidArgument("HEAD is 'float32' or 'none', not '", head, "'");
  }
  nn::ClearSession();
  TFD_ASSIGN_OR_RETURN(nn::DTypePolicy mixed, nn::DTypePolicy::FromName(policy));
  nn::ScopedGlobalPolicy scope(mixed);
  std::vector<std::shared_ptr<nn::Layer>> layers = {
      nn::MakeInputLayer({nn::kNone, 8}),
      std::make_shared<nn::Dense>(16, nn::DenseOptions().Activation("relu")),
      std::make_shared<nn::Dense>(4)};
  if (head == "float32") {
    nn::LayerOptions options;
    options.name = "predictions";
    options.dtype = DT_FLOAT;
    layers.push_back(std::make_shared<nn::Activation>("linear", options));
  }
  TFD_ASSIGN_OR_RETURN(auto model, nn::Sequential::Make(layers));
  return std::shared_ptr<nn::Model>(model);
}

absl::StatusOr<Tensor> ReadInputs(const std::string& path, int64_t n) {
  TFD_ASSIGN_OR_RETURN(std::string bytes, io::ReadFileToString(path));
  Tensor x(DT_FLOAT, TensorShape({n, 8}));
  if (bytes.size() != x.TotalBytes()) {
    return InvalidArgument(path, " has ", bytes.size(), " bytes, ", n, " rows of 8 floats need ",
                           x.TotalBytes());
  }
  std::memcpy(x.raw_data(), bytes.data(), bytes.size());
  return x;
}

absl::Status Export(const std::vector<std::string>& args) {
  const std::string &policy = args[1], &head = args[2], &dir = args[3];
  SetRandomSeed(11);
  TFD_ASSIGN_OR_RETURN(auto model, MixedMlp(policy, head));
  TFD_ASSIGN_OR_RETURN(Tensor x, ReadInputs(args[4], std::atoll(args[5].c_str())));
  TFD_ASSIGN_OR_RETURN(Tensor y, model->Call(x, /*training=*/false));
  TFD_ASSIGN_OR_RETURN(Tensor host, y.CopyTo(HostDevice()));
  TFD_RETURN_IF_ERROR(io::WriteStringToFileAtomically(
      args[6], absl::string_view(static_cast<const char*>(host.raw_data()), host.TotalBytes())));
  TFD_RETURN_IF_ERROR(savedmodel::SaveModel(*model, dir));
  std::cout << DataTypeName(host.dtype()) << "\n";
  return absl::OkStatus();
}

int Main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  if (args.size() != 7 || args[0] != "export") {
    std::cerr << "usage: mixed_savedmodel_interop export POLICY HEAD DIR INPUTS N PREDICTIONS\n";
    return 2;
  }
  const absl::Status status = Export(args);
  if (!status.ok()) {
    std::cerr << status << "\n";
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) { return tfd::Main(argc, argv); }
