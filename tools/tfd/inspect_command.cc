#include "tools/tfd/inspect_command.h"

#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_join.h"
#include "core/framework/status.h"
#include "core/framework/types.h"
#include "core/graph/tensor_proto.h"
#include "core/io/file.h"
#include "savedmodel/checkpoint/list_variables.h"
#include "savedmodel/loader/saved_model_session.h"

namespace tfd {
namespace cli {
namespace {

absl::Status PrintVariables(const std::string& checkpoint, const std::string& indent,
                            std::FILE* out) {
  TFD_ASSIGN_OR_RETURN(std::vector<savedmodel::CheckpointVariable> variables,
                       savedmodel::ListVariables(checkpoint));
  for (const auto& v : variables) {
    std::fprintf(out, "%s%s %s %s\n", indent.c_str(), v.name.c_str(),
                 DataTypeName(v.dtype).c_str(), v.shape.DebugString().c_str());
  }
  return absl::OkStatus();
}

std::string ShapeText(const tensorflow::TensorShapeProto& shape) {
  bool unknown_rank = false;
  std::vector<int64_t> dims = graph::PartialDimsFromProto(shape, &unknown_rank);
  if (unknown_rank) return "unknown rank";
  return "[" + absl::StrJoin(dims, ",") + "]";
}

void PrintTensorInfos(const char* kind,
                      const google::protobuf::Map<std::string, tensorflow::TensorInfo>& infos,
                      std::FILE* out) {
  // The map's order is unspecified; print by key.
  std::vector<std::string> keys;
  for (const auto& [key, info] : infos) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) {
    const tensorflow::TensorInfo& info = infos.at(key);
    std::fprintf(out, "    %s['%s']: dtype %s shape %s name %s\n", kind, key.c_str(),
                 DataTypeName(static_cast<DataType>(info.dtype())).c_str(),
                 ShapeText(info.tensor_shape()).c_str(), info.name().c_str());
  }
}

absl::Status InspectSavedModel(const std::string& dir, std::FILE* out) {
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<savedmodel::SavedModelSession> session,
                       savedmodel::SavedModelSession::Load(dir));
  const std::string variables = dir + "/variables/variables";
  if (io::FileExists(variables + ".index")) {
    std::fprintf(out, "variables (%s):\n", variables.c_str());
    TFD_RETURN_IF_ERROR(PrintVariables(variables, "  ", out));
  } else {
    std::fprintf(out, "variables: none\n");
  }
  const auto& signatures = session->meta_graph_def().signature_def();
  std::vector<std::string> keys;
  for (const auto& [key, signature] : signatures) keys.push_back(key);
  std::sort(keys.begin(), keys.end());
  for (const std::string& key : keys) {
    // The loader's own init signature is no API of the model.
    if (key == "__saved_model_init_op") continue;
    const tensorflow::SignatureDef& signature = signatures.at(key);
    std::fprintf(out, "signature_def['%s'] (%s):\n", key.c_str(),
                 signature.method_name().c_str());
    PrintTensorInfos("inputs", signature.inputs(), out);
    PrintTensorInfos("outputs", signature.outputs(), out);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status RunInspect(const std::string& path, std::FILE* out) {
  if (path.empty()) return InvalidArgument("inspect needs a path");
  if (io::FileExists(path + "/saved_model.pb") || io::FileExists(path + "/saved_model.pbtxt")) {
    return InspectSavedModel(path, out);
  }
  return PrintVariables(path, "", out);
}

}  // namespace cli
}  // namespace tfd
