#include "savedmodel/export/saved_model_writer.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <set>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/graph/graph_def.h"
#include "core/graph/tensor_proto.h"
#include "core/io/file.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/export/saver_graph.h"

namespace tfd {
namespace savedmodel {
namespace {

absl::Status Errno(const std::string& what, const std::string& path) {
  return absl::Status(errno == ENOENT ? absl::StatusCode::kNotFound
                                      : absl::StatusCode::kInternal,
                      absl::StrCat(what, " ", path, ": ", std::strerror(errno)));
}

// True for a directory holding nothing but "." and "..".
bool IsEmptyDir(const std::string& path) {
  DIR* d = opendir(path.c_str());
  if (d == nullptr) return false;
  bool empty = true;
  while (dirent* e = readdir(d)) {
    if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) empty = false;
  }
  closedir(d);
  return empty;
}

// Removes a directory tree that this writer made (a failed export's
// temporary directory).
void RemoveTree(const std::string& path) {
  if (DIR* d = opendir(path.c_str())) {
    while (dirent* e = readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      const std::string child = path + "/" + e->d_name;
      struct stat st;
      if (lstat(child.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        RemoveTree(child);
      } else {
        unlink(child.c_str());
      }
    }
    closedir(d);
  }
  rmdir(path.c_str());
}

tensorflow::TensorInfo MakeTensorInfo(const graph::Endpoint& e, absl::Span<const int64_t> shape) {
  tensorflow::TensorInfo info;
  info.set_name(e.TensorName());
  info.set_dtype(static_cast<tensorflow::DataType>(e.node->output_type(e.index)));
  *info.mutable_tensor_shape() = graph::ShapeToProto(shape);
  return info;
}

absl::Status WriteFiles(const BuiltSavedModel& built, const std::string& dir) {
  TFD_RETURN_IF_ERROR(io::CreateDirs(dir + "/variables"));
  TFD_ASSIGN_OR_RETURN(auto writer, BundleWriter::Create(dir + "/variables/variables"));
  for (const auto& [key, value] : built.variables) TFD_RETURN_IF_ERROR(writer->Add(key, value));
  TFD_RETURN_IF_ERROR(writer->Finish());
  std::string bytes;
  if (!built.proto.SerializeToString(&bytes)) {
    return Internal("the SavedModel proto does not serialize (over 2 GiB?)");
  }
  return io::WriteStringToFileAtomically(dir + "/saved_model.pb", bytes);
}

}  // namespace

absl::StatusOr<BuiltSavedModel> BuildSavedModel(ExportSpec spec) {
  graph::TracedGraph& traced = spec.traced;
  if (traced.graph == nullptr) return InvalidArgument("export: no graph");
  if (spec.input_keys.size() != traced.placeholders.size()) {
    return InvalidArgument("export: ", spec.input_keys.size(), " input keys for ",
                           traced.placeholders.size(), " inputs");
  }
  if (spec.outputs.size() != traced.outputs.size()) {
    return InvalidArgument("export: ", spec.outputs.size(), " output keys for ",
                           traced.outputs.size(), " outputs");
  }
  BuiltSavedModel built;
  std::vector<SavedVariable> saved;
  std::set<std::string> names;
  for (const graph::TracedVariable& v : traced.variables) {
    if (!names.insert(v.variable->name()).second) {
      return InvalidArgument("export: two variables are named '", v.variable->name(),
                             "'; checkpoint keys must be unique");
    }
    saved.push_back({v.variable->name(), v.variable->dtype(), v.handle});
    built.variables.emplace_back(v.variable->name(), v.variable->Peek());
  }

  tensorflow::MetaGraphDef* meta = built.proto.add_meta_graphs();
  built.proto.set_saved_model_schema_version(1);
  meta->mutable_meta_info_def()->add_tags(kServeTag);
  // Attrs equal to their op's default are left out (tracer.h).
  meta->mutable_meta_info_def()->set_stripped_default_attrs(true);

  tensorflow::SignatureDef& sig = (*meta->mutable_signature_def())[kDefaultServingSignature];
  sig.set_method_name(kPredictMethod);
  std::set<std::string> keys;
  for (size_t i = 0; i < spec.input_keys.size(); ++i) {
    const graph::Node* p = traced.placeholders[i];
    if (!keys.insert(spec.input_keys[i]).second) {
      return InvalidArgument("export: signature key '", spec.input_keys[i], "' is used twice");
    }
    bool unknown_rank = false;
    std::vector<int64_t> dims =
        graph::PartialDimsFromProto(p->FindAttr("shape")->shape(), &unknown_rank);
    (*sig.mutable_inputs())[spec.input_keys[i]] = MakeTensorInfo({p, 0}, dims);
  }
  for (size_t i = 0; i < spec.outputs.size(); ++i) {
    const SignatureOutput& out = spec.outputs[i];
    if (!keys.insert(out.key).second) {
      return InvalidArgument("export: signature key '", out.key, "' is used twice");
    }
    // An Identity per output gives it a stable, readable tensor name.
    const graph::Endpoint& e = traced.outputs[i];
    graph::NodeSpec id{out.key, "Identity"};
    id.inputs = {e};
    id.attrs["T"].set_type(static_cast<tensorflow::DataType>(e.node->output_type(e.index)));
    id.output_types = {e.node->output_type(e.index)};
    const graph::Node* node = traced.graph->AddNode(std::move(id));
    (*sig.mutable_outputs())[out.key] = MakeTensorInfo({node, 0}, out.shape);
  }
  if (!saved.empty()) {
    TFD_ASSIGN_OR_RETURN(*meta->mutable_saver_def(), AddSaverSubgraph(saved, traced.graph.get()));
  }
  *meta->mutable_graph_def() = graph::ToGraphDef(*traced.graph);
  return built;
}

absl::Status WriteSavedModel(ExportSpec spec, const std::string& export_dir) {
  if (export_dir.empty()) return InvalidArgument("export: empty export directory");
  std::string dir = export_dir;
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  struct stat st;
  const bool exists = stat(dir.c_str(), &st) == 0;
  if (exists && !(S_ISDIR(st.st_mode) && IsEmptyDir(dir))) {
    return absl::AlreadyExistsError(
        absl::StrCat("export: ", dir, " exists and is not an empty directory"));
  }
  TFD_ASSIGN_OR_RETURN(BuiltSavedModel built, BuildSavedModel(std::move(spec)));
  const std::string parent = io::Dirname(dir);
  if (!parent.empty()) TFD_RETURN_IF_ERROR(io::CreateDirs(parent));
  const std::string tmp = absl::StrCat(dir, ".tmp-", getpid());
  RemoveTree(tmp);  // A leftover of a crashed export by a process with our pid.
  absl::Status s = WriteFiles(built, tmp);
  if (s.ok() && exists && rmdir(dir.c_str()) != 0) s = Errno("export: cannot replace", dir);
  if (s.ok() && rename(tmp.c_str(), dir.c_str()) != 0) s = Errno("export: cannot rename onto", dir);
  if (!s.ok()) RemoveTree(tmp);
  return s;
}

}  // namespace savedmodel
}  // namespace tfd
