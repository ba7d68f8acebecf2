// The C++ half of the SavedModel interop check with TensorFlow
// (savedmodel_interop_test.py). Images travel as raw little-endian float32
// files of N x 28 x 28 x 1 values; predictions as N x 10 float32 values.
//
//   savedmodel_interop export DIR IMAGES N PREDICTIONS
//       builds the Fashion-MNIST CNN (seeded), writes its predictions for
//       the images, and exports it as a SavedModel to DIR
//   savedmodel_interop run DIR IMAGES N PREDICTIONS
//       loads the SavedModel at DIR (any writer) with tfd's loader and
//       writes what its "serving_default" signature computes
// Exit status 1 with a message on stderr on any error.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "core/framework/status.h"
#include "core/io/file.h"
#include "savedmodel/export/fashion_cnn_testutil.h"
#include "savedmodel/export/save_model.h"
#include "savedmodel/loader/saved_model_session.h"

namespace tfd {
namespace {

absl::StatusOr<Tensor> ReadImages(const std::string& path, int64_t n) {
  TFD_ASSIGN_OR_RETURN(std::string bytes, io::ReadFileToString(path));
  Tensor images(DT_FLOAT, TensorShape({n, 28, 28, 1}));
  if (bytes.size() != images.TotalBytes()) {
    return InvalidArgument(path, " has ", bytes.size(), " bytes, ", n, " images need ",
                           images.TotalBytes());
  }
  std::memcpy(images.raw_data(), bytes.data(), bytes.size());
  return images;
}

absl::Status WriteTensor(const std::string& path, const Tensor& t) {
  return io::WriteStringToFileAtomically(
      path, absl::string_view(static_cast<const char*>(t.raw_data()), t.TotalBytes()));
}

absl::Status Export(const std::string& dir, const Tensor& images, const std::string& out) {
  TFD_ASSIGN_OR_RETURN(auto model, savedmodel::MakeFashionCnn(7));
  TFD_ASSIGN_OR_RETURN(Tensor predictions, model->Call(images, /*training=*/false));
  TFD_RETURN_IF_ERROR(WriteTensor(out, predictions));
  return savedmodel::SaveModel(*model, dir);
}

absl::Status Run(const std::string& dir, const Tensor& images, const std::string& out) {
  TFD_ASSIGN_OR_RETURN(auto session, savedmodel::SavedModelSession::Load(dir));
  const auto& sigs = session->meta_graph_def().signature_def();
  auto sig = sigs.find("serving_default");
  if (sig == sigs.end() || sig->second.inputs_size() != 1 || sig->second.outputs_size() != 1) {
    return InvalidArgument("expected a serving_default signature with one input and output");
  }
  TFD_ASSIGN_OR_RETURN(auto outputs,
                       session->RunSignature("serving_default",
                                             {{sig->second.inputs().begin()->first, images}}));
  return WriteTensor(out, outputs.begin()->second);
}

int Main(int argc, char** argv) {
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s export|run DIR IMAGES N PREDICTIONS\n", argv[0]);
    return 2;
  }
  const std::string cmd = argv[1];
  absl::StatusOr<Tensor> images = ReadImages(argv[3], std::atoll(argv[4]));
  absl::Status s = images.status();
  if (s.ok() && cmd == "export") {
    s = Export(argv[2], *images, argv[5]);
  } else if (s.ok() && cmd == "run") {
    s = Run(argv[2], *images, argv[5]);
  } else if (s.ok()) {
    s = InvalidArgument("unknown command '", cmd, "'");
  }
  if (!s.ok()) {
    std::fprintf(stderr, "savedmodel_interop %s: %s\n", cmd.c_str(), s.ToString().c_str());
    return 1;
  }
  return 0;
}

}  // namespace
}  // namespace tfd

int main(int argc, char** argv) { return tfd::Main(argc, argv); }
