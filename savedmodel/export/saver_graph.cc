#include "savedmodel/export/saver_graph.h"

#include "core/framework/status.h"
#include "core/graph/tensor_proto.h"

namespace tfd {
namespace savedmodel {
namespace {

using graph::Endpoint;
using graph::Graph;
using graph::Node;
using graph::NodeSpec;

void SetType(NodeSpec* spec, const std::string& attr, DataType t) {
  spec->attrs[attr].set_type(static_cast<tensorflow::DataType>(t));
}

void SetTypes(NodeSpec* spec, const std::string& attr, const std::vector<DataType>& types) {
  auto* list = spec->attrs[attr].mutable_list();
  for (DataType t : types) list->add_type(static_cast<tensorflow::DataType>(t));
}

absl::StatusOr<const Node*> StringConst(Graph* g, const std::string& name,
                                        const std::vector<std::string>& values, bool scalar) {
  Tensor t(DT_STRING, scalar ? TensorShape() : TensorShape({static_cast<int64_t>(values.size())}));
  for (size_t i = 0; i < values.size(); ++i) t.flat<std::string>()[i] = values[i];
  NodeSpec spec{name, "Const"};
  SetType(&spec, "dtype", DT_STRING);
  TFD_ASSIGN_OR_RETURN(*spec.attrs["value"].mutable_tensor(), graph::TensorToProto(t));
  spec.output_types = {DT_STRING};
  return g->AddNode(std::move(spec));
}

}  // namespace

absl::StatusOr<tensorflow::SaverDef> AddSaverSubgraph(const std::vector<SavedVariable>& variables,
                                                      Graph* g) {
  if (variables.empty()) return InvalidArgument("a saver needs at least one variable");
  std::vector<std::string> keys;
  std::vector<DataType> dtypes;
  for (const SavedVariable& v : variables) {
    keys.push_back(v.key);
    dtypes.push_back(v.dtype);
  }
  const std::vector<std::string> no_slices(keys.size(), "");

  TFD_ASSIGN_OR_RETURN(const Node* filename, StringConst(g, "save/filename", {"model"}, true));
  NodeSpec prefix_spec{"save/Const", "PlaceholderWithDefault"};
  prefix_spec.inputs = {{filename, 0}};
  SetType(&prefix_spec, "dtype", DT_STRING);
  *prefix_spec.attrs["shape"].mutable_shape() = graph::ShapeToProto({});
  prefix_spec.output_types = {DT_STRING};
  const Node* prefix = g->AddNode(std::move(prefix_spec));

  // Saving: SaveV2 over one fresh read of each variable.
  TFD_ASSIGN_OR_RETURN(const Node* save_names, StringConst(g, "save/SaveV2/tensor_names", keys, false));
  TFD_ASSIGN_OR_RETURN(const Node* save_slices,
                       StringConst(g, "save/SaveV2/shape_and_slices", no_slices, false));
  NodeSpec save{"save/SaveV2", "SaveV2"};
  save.inputs = {{prefix, 0}, {save_names, 0}, {save_slices, 0}};
  for (const SavedVariable& v : variables) {
    NodeSpec read{"save/ReadVariableOp", "ReadVariableOp"};
    read.inputs = {{v.handle, 0}};
    SetType(&read, "dtype", v.dtype);
    read.output_types = {v.dtype};
    save.inputs.push_back({g->AddNode(std::move(read)), 0});
  }
  SetTypes(&save, "dtypes", dtypes);
  const Node* save_node = g->AddNode(std::move(save));
  NodeSpec saved{"save/control_dependency", "Identity"};
  saved.inputs = {{prefix, 0}};
  saved.control_inputs = {save_node};
  SetType(&saved, "T", DT_STRING);
  saved.output_types = {DT_STRING};
  const Node* save_done = g->AddNode(std::move(saved));

  // Restoring: RestoreV2, then one assignment per variable.
  TFD_ASSIGN_OR_RETURN(const Node* restore_names,
                       StringConst(g, "save/RestoreV2/tensor_names", keys, false));
  TFD_ASSIGN_OR_RETURN(const Node* restore_slices,
                       StringConst(g, "save/RestoreV2/shape_and_slices", no_slices, false));
  NodeSpec restore{"save/RestoreV2", "RestoreV2"};
  restore.inputs = {{prefix, 0}, {restore_names, 0}, {restore_slices, 0}};
  SetTypes(&restore, "dtypes", dtypes);
  restore.output_types = dtypes;
  const Node* restore_node = g->AddNode(std::move(restore));
  NodeSpec restore_all{"save/restore_all", "NoOp"};
  for (size_t k = 0; k < variables.size(); ++k) {
    NodeSpec assign{"save/AssignVariableOp", "AssignVariableOp"};
    assign.inputs = {{variables[k].handle, 0}, {restore_node, static_cast<int>(k)}};
    SetType(&assign, "dtype", variables[k].dtype);
    restore_all.control_inputs.push_back(g->AddNode(std::move(assign)));
  }
  const Node* restore_all_node = g->AddNode(std::move(restore_all));

  tensorflow::SaverDef def;
  def.set_filename_tensor_name(Endpoint{prefix, 0}.TensorName());
  def.set_save_tensor_name(Endpoint{save_done, 0}.TensorName());
  def.set_restore_op_name(restore_all_node->name());
  def.set_max_to_keep(5);
  def.set_keep_checkpoint_every_n_hours(10000.f);
  def.set_version(tensorflow::SaverDef::V2);
  return def;
}

}  // namespace savedmodel
}  // namespace tfd
