#include "savedmodel/loader/checkpoint_ops.h"

#include "core/framework/status.h"
#include "savedmodel/bundle/tensor_bundle.h"

namespace tfd {
namespace savedmodel {
namespace {

// The prefix and the names of a RestoreV2/SaveV2 call, checked.
struct CheckpointArgs {
  std::string prefix;
  std::vector<std::string> names;
};

absl::StatusOr<CheckpointArgs> ParseArgs(const graph::HostOpContext& ctx) {
  for (int i = 0; i < 3; ++i) {
    if (ctx.resources[i] != nullptr || ctx.inputs[i].dtype() != DT_STRING) {
      return InvalidArgument("input ", i, " must be a string tensor");
    }
  }
  const Tensor& prefix = ctx.inputs[0];
  const Tensor& names = ctx.inputs[1];
  const Tensor& slices = ctx.inputs[2];
  if (prefix.NumElements() != 1) {
    return InvalidArgument("prefix must be a single string, got shape ", prefix.shape().DebugString());
  }
  if (names.rank() != 1 || slices.rank() != 1 || names.NumElements() != slices.NumElements()) {
    return InvalidArgument("tensor_names ", names.shape().DebugString(), " and shape_and_slices ",
                           slices.shape().DebugString(), " must be vectors of one length");
  }
  for (const std::string& s : slices.flat<std::string>()) {
    if (!s.empty()) return Unimplemented("partitioned variables (slice '", s, "') are not supported");
  }
  CheckpointArgs args;
  args.prefix = prefix.flat<std::string>()[0];
  for (const std::string& n : names.flat<std::string>()) args.names.push_back(n);
  return args;
}

absl::StatusOr<std::vector<DataType>> Dtypes(const graph::Node& node) {
  const tensorflow::AttrValue* v = node.FindAttr("dtypes");
  if (v == nullptr) return InvalidArgument("attr 'dtypes' is missing");
  std::vector<DataType> types;
  for (int t : v->list().type()) types.push_back(static_cast<DataType>(t));
  return types;
}

absl::StatusOr<std::vector<Tensor>> RestoreV2(const graph::HostOpContext& ctx) {
  TFD_ASSIGN_OR_RETURN(CheckpointArgs args, ParseArgs(ctx));
  TFD_ASSIGN_OR_RETURN(std::vector<DataType> dtypes, Dtypes(ctx.node));
  if (dtypes.size() != args.names.size()) {
    return InvalidArgument(args.names.size(), " tensor names for ", dtypes.size(), " dtypes");
  }
  TFD_ASSIGN_OR_RETURN(auto reader, BundleReader::Open(args.prefix));
  std::vector<Tensor> out;
  for (size_t i = 0; i < args.names.size(); ++i) {
    TFD_ASSIGN_OR_RETURN(Tensor t, reader->Lookup(args.names[i]));
    if (t.dtype() != dtypes[i]) {
      return InvalidArgument("checkpoint key '", args.names[i], "' holds ",
                             DataTypeName(t.dtype()), "; the graph expects ",
                             DataTypeName(dtypes[i]));
    }
    out.push_back(std::move(t));
  }
  return out;
}

absl::StatusOr<std::vector<Tensor>> SaveV2(const graph::HostOpContext& ctx) {
  TFD_ASSIGN_OR_RETURN(CheckpointArgs args, ParseArgs(ctx));
  const size_t n = ctx.inputs.size() - 3;
  if (n != args.names.size()) {
    return InvalidArgument(args.names.size(), " tensor names for ", n, " tensors");
  }
  TFD_ASSIGN_OR_RETURN(auto writer, BundleWriter::Create(args.prefix));
  for (size_t i = 0; i < n; ++i) {
    if (ctx.resources[3 + i] != nullptr) return InvalidArgument("tensor ", i, " is a resource");
    TFD_RETURN_IF_ERROR(writer->Add(args.names[i], ctx.inputs[3 + i]));
  }
  TFD_RETURN_IF_ERROR(writer->Finish());
  return std::vector<Tensor>{};
}

}  // namespace

std::map<std::string, graph::HostOp> CheckpointHostOps() {
  return {{"RestoreV2", RestoreV2}, {"SaveV2", SaveV2}};
}

}  // namespace savedmodel
}  // namespace tfd
