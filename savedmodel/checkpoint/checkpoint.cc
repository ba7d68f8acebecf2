#include "savedmodel/checkpoint/checkpoint.h"

#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/framework/status.h"
#include "core/io/file.h"
#include "savedmodel/bundle/tensor_bundle.h"
#include "savedmodel/checkpoint/checkpoint_state.h"
#include "savedmodel/checkpoint/keras_object_graph.h"
#include "savedmodel/checkpoint/object_graph_match.h"

namespace tfd {
namespace savedmodel {
namespace {

std::string ShapeText(const TensorShape& shape) { return shape.DebugString(); }

// INVALID_ARGUMENT naming `key` unless `t` has the value's dtype and shape.
absl::Status CheckValue(const std::string& key, const SaveableValue& value, DataType dtype,
                        const TensorShape& shape, const char* where) {
  if (dtype != value.dtype || shape != value.shape) {
    return InvalidArgument("checkpoint key '", key, "' (", value.full_name, "): expected ",
                           DataTypeName(value.dtype), " ", ShapeText(value.shape), ", ", where,
                           " has ", DataTypeName(dtype), " ", ShapeText(shape));
  }
  return absl::OkStatus();
}

// Whether the saved optimizer was built: its node has the `_variables`
// list that Keras creates with the slots.
bool HasOptimizerSlots(const tensorflow::TrackableObjectGraph& saved) {
  if (saved.nodes_size() == 0) return false;
  for (const auto& root_child : saved.nodes(0).children()) {
    if (root_child.local_name() != "optimizer") continue;
    if (root_child.node_id() < 0 || root_child.node_id() >= saved.nodes_size()) return false;
    for (const auto& child : saved.nodes(root_child.node_id()).children()) {
      if (child.local_name() == "_variables") return true;
    }
  }
  return false;
}

}  // namespace

Checkpoint::Checkpoint(std::shared_ptr<nn::Model> model, std::shared_ptr<nn::Optimizer> optimizer)
    : model_(std::move(model)), optimizer_(std::move(optimizer)) {}

absl::Status Checkpoint::BuildGraph(ObjectGraph& graph) {
  if (model_ == nullptr) return InvalidArgument("Checkpoint: the model is null");
  if (!model_->built()) {
    return FailedPrecondition("Checkpoint: model '", model_->name(),
                              "' is not built; call it or Build it before saving or restoring");
  }
  graph.AddChild(ObjectGraph::kRoot, "model", AddKerasModel(graph, *model_));
  if (optimizer_ != nullptr) {
    TFD_ASSIGN_OR_RETURN(int optimizer, AddKerasOptimizer(graph, *optimizer_));
    graph.AddChild(ObjectGraph::kRoot, "optimizer", optimizer);
  }
  SaveableValue counter;
  counter.full_name = "save_counter";
  counter.dtype = DT_INT64;
  counter.read = [this]() -> absl::StatusOr<Tensor> {
    return Tensor::Scalar<int64_t>(save_counter_);
  };
  counter.assign = [this](const Tensor& t) -> absl::Status {
    TFD_ASSIGN_OR_RETURN(Tensor host, t.CopyTo(HostDevice()));
    save_counter_ = host.scalar<int64_t>();
    return absl::OkStatus();
  };
  counter.required = false;
  graph.AddChild(ObjectGraph::kRoot, "save_counter", graph.AddNode(std::move(counter)));
  return absl::OkStatus();
}

absl::StatusOr<std::string> Checkpoint::Save(const std::string& file_prefix) {
  const int64_t number = IncrementSaveCounter();
  const std::string prefix = absl::StrCat(file_prefix, "-", number);
  absl::Status written = Write(prefix);
  if (!written.ok()) {
    --save_counter_;  // The save did not happen.
    return written;
  }
  tensorflow::CheckpointState state;
  state.set_model_checkpoint_path(prefix);
  state.add_all_model_checkpoint_paths(prefix);
  TFD_RETURN_IF_ERROR(WriteCheckpointState(io::Dirname(prefix), state));
  return prefix;
}

absl::Status Checkpoint::Write(const std::string& prefix) {
  ObjectGraph graph;
  TFD_RETURN_IF_ERROR(BuildGraph(graph));
  const SerializedObjectGraph serialized = graph.Serialize();
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<BundleWriter> writer, BundleWriter::Create(prefix));
  for (const SerializedObjectGraph::Entry& entry : serialized.values) {
    TFD_ASSIGN_OR_RETURN(Tensor value, entry.value->read());
    TFD_RETURN_IF_ERROR(
        CheckValue(entry.key, *entry.value, value.dtype(), value.shape(), "the object"));
    TFD_RETURN_IF_ERROR(writer->Add(entry.key, value));
  }
  Tensor proto(DT_STRING, TensorShape());
  if (!serialized.proto.SerializeToString(proto.data<std::string>())) {
    return Internal("Checkpoint: could not serialize the object graph");
  }
  TFD_RETURN_IF_ERROR(writer->Add(kObjectGraphKey, proto));
  return writer->Finish();
}

absl::Status Checkpoint::Restore(const std::string& prefix) {
  TFD_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(prefix));
  if (!reader->Contains(kObjectGraphKey)) {
    return Unimplemented("checkpoint ", prefix, " has no ", kObjectGraphKey,
                         "; name-based (TF1) checkpoints are not restored");
  }
  TFD_ASSIGN_OR_RETURN(Tensor proto, reader->Lookup(kObjectGraphKey));
  tensorflow::TrackableObjectGraph saved;
  if (proto.dtype() != DT_STRING || proto.NumElements() != 1 ||
      !saved.ParseFromString(proto.data<std::string>()[0])) {
    return absl::DataLossError(
        absl::StrCat("checkpoint ", prefix, ": ", kObjectGraphKey,
                     " is not a serialized TrackableObjectGraph"));
  }
  // Keras creates an optimizer's slots when a checkpoint that has some
  // restores into it before its first step; so does tfd, for the model's
  // trainable variables.
  if (optimizer_ != nullptr && !optimizer_->built() && model_ != nullptr && model_->built() &&
      HasOptimizerSlots(saved)) {
    std::vector<nn::Weight> weights = model_->TrainableVariables();
    std::vector<distribute::DistributedVariable*> vars;
    for (const nn::Weight& w : weights) vars.push_back(w.get());
    TFD_RETURN_IF_ERROR(optimizer_->Build(vars));
  }
  ObjectGraph graph;
  TFD_RETURN_IF_ERROR(BuildGraph(graph));
  TFD_ASSIGN_OR_RETURN(std::vector<MatchedValue> matched, MatchObjectGraph(graph, saved));

  // Check and read everything before assigning anything.
  std::vector<Tensor> values;
  values.reserve(matched.size());
  for (const MatchedValue& m : matched) {
    absl::StatusOr<BundleReader::EntryInfo> info = reader->LookupInfo(m.key);
    if (absl::IsNotFound(info.status())) {
      return absl::DataLossError(absl::StrCat("checkpoint ", prefix, ": the object graph names key '",
                                              m.key, "' which the bundle does not hold"));
    }
    TFD_RETURN_IF_ERROR(info.status());
    TFD_RETURN_IF_ERROR(CheckValue(m.key, *m.value, info->dtype, info->shape, "the checkpoint"));
    TFD_ASSIGN_OR_RETURN(Tensor value, reader->Lookup(m.key));
    values.push_back(std::move(value));
  }
  for (size_t i = 0; i < matched.size(); ++i) {
    absl::Status assigned = matched[i].value->assign(values[i]);
    if (!assigned.ok()) {
      return absl::Status(assigned.code(), absl::StrCat("restoring checkpoint key '",
                                                        matched[i].key, "': ",
                                                        assigned.message()));
    }
  }
  return absl::OkStatus();
}

}  // namespace savedmodel
}  // namespace tfd
