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

// Whether a saved optimizer was built: its node, at "optimizer" or
// "model/optimizer", has the `_variables` list that Keras creates with the
// slots.
bool HasOptimizerSlots(const tensorflow::TrackableObjectGraph& saved) {
  auto child = [&saved](int node, absl::string_view name) -> int {
    if (node < 0 || node >= saved.nodes_size()) return -1;
    for (const auto& ref : saved.nodes(node).children()) {
      if (ref.local_name() == name) return ref.node_id();
    }
    return -1;
  };
  for (int optimizer : {child(0, "optimizer"), child(child(0, "model"), "optimizer")}) {
    if (child(optimizer, "_variables") >= 0) return true;
  }
  return false;
}

}  // namespace

Checkpoint::Checkpoint(std::shared_ptr<nn::Model> model, std::shared_ptr<nn::Optimizer> optimizer)
    : model_(std::move(model)), optimizer_owner_(std::move(optimizer)),
      optimizer_(optimizer_owner_.get()) {}

Checkpoint::Checkpoint(std::shared_ptr<nn::Model> model, nn::Optimizer* optimizer)
    : model_(std::move(model)), optimizer_(optimizer) {}

std::vector<nn::Optimizer*> Checkpoint::Optimizers() const {
  std::vector<nn::Optimizer*> out;
  if (optimizer_ != nullptr) out.push_back(optimizer_);
  nn::Optimizer* compiled = model_ != nullptr ? model_->optimizer() : nullptr;
  if (compiled != nullptr && compiled != optimizer_) out.push_back(compiled);
  return out;
}

absl::Status Checkpoint::BuildGraph(ObjectGraph& graph) {
  if (model_ == nullptr) return InvalidArgument("Checkpoint: the model is null");
  if (!model_->built()) {
    return FailedPrecondition("Checkpoint: model '", model_->name(),
                              "' is not built; call it or Build it before saving or restoring");
  }
  KerasObjectGraphBuilder keras(graph);
  TFD_ASSIGN_OR_RETURN(const int model, keras.AddModel(*model_));
  graph.AddChild(ObjectGraph::kRoot, "model", model);
  if (optimizer_ != nullptr) {
    TFD_ASSIGN_OR_RETURN(const int optimizer, keras.AddOptimizer(*optimizer_));
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
  if (model_ != nullptr && model_->built() && HasOptimizerSlots(saved)) {
    std::vector<distribute::DistributedVariable*> vars;
    for (const nn::Weight& w : model_->TrainableVariables()) vars.push_back(w.get());
    for (nn::Optimizer* optimizer : Optimizers()) {
      if (!optimizer->built()) TFD_RETURN_IF_ERROR(optimizer->Build(vars));
    }
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
