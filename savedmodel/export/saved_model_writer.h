// Writes a TF1-style SavedModel (tf_formats.md §3, §4) from a traced
// graph: the directory TensorFlow's loaders, saved_model_cli and TF
// Serving read.
//
//   export_dir/saved_model.pb             SavedModel{schema 1, one MetaGraphDef}
//   export_dir/variables/variables.index  TensorBundle, one entry per variable
//   export_dir/variables/variables.data-00000-of-00001
//
// The MetaGraphDef has the tag "serve", the graph (the traced nodes, one
// Identity per signature output, the saver subgraph of saver_graph.h), the
// SaverDef, and the signature "serving_default" with method
// "tensorflow/serving/predict". Variables are stored under their names.
//
// Everything is written into a temporary directory next to export_dir,
// which is then renamed onto it: a reader sees no SavedModel or a complete
// one. export_dir must not exist or be an empty directory.
#ifndef TFD_SAVEDMODEL_EXPORT_SAVED_MODEL_WRITER_H_
#define TFD_SAVEDMODEL_EXPORT_SAVED_MODEL_WRITER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/graph/tracer.h"
#include "core/protobuf/saved_model.pb.h"

namespace tfd {
namespace savedmodel {

inline constexpr char kServeTag[] = "serve";
inline constexpr char kDefaultServingSignature[] = "serving_default";
inline constexpr char kPredictMethod[] = "tensorflow/serving/predict";

// A signature output: its key, and its shape with -1 for unknown dims.
struct SignatureOutput {
  std::string key;
  std::vector<int64_t> shape;
};

// What to export: a traced function (its placeholders are the signature's
// inputs, keyed by `input_keys`) and its outputs.
struct ExportSpec {
  graph::TracedGraph traced;
  std::vector<std::string> input_keys;
  std::vector<SignatureOutput> outputs;
};

// The SavedModel proto for `spec` (the graph is moved out of it), plus the
// variables to store, in the order of the saver's keys.
struct BuiltSavedModel {
  tensorflow::SavedModel proto;
  std::vector<std::pair<std::string, Tensor>> variables;
};
absl::StatusOr<BuiltSavedModel> BuildSavedModel(ExportSpec spec);

// BuildSavedModel, then writes the directory. INVALID_ARGUMENT for a bad
// spec (key counts, duplicate variable names); ALREADY_EXISTS when
// export_dir is a non-empty directory or a file; file system errors.
absl::Status WriteSavedModel(ExportSpec spec, const std::string& export_dir);

}  // namespace savedmodel
}  // namespace tfd

#endif  // TFD_SAVEDMODEL_EXPORT_SAVED_MODEL_WRITER_H_
