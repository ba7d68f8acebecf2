// The TensorFlow-compatible SavedModel inference path: TF_Graph,
// TF_Operation, TF_SessionOptions and TF_Session. Graphs are filled by
// TF_LoadSessionFromSavedModel, which answers TF_UNIMPLEMENTED until tfd
// has a SavedModel loader; argument checks and ownership are final.
#include <map>
#include <memory>
#include <new>
#include <string>

#include "c_api/internal/guard.h"
#include "tensorflow/c/c_api.h"

struct TF_Operation {
  std::string name;
};

struct TF_Graph {
  std::map<std::string, std::unique_ptr<TF_Operation>, std::less<>> operations;
};

struct TF_SessionOptions {
  std::string target;  // TensorFlow's default: "" (in-process).
};

struct TF_Session {
  TF_Graph* graph = nullptr;  // Not owned.
  bool closed = false;
};

extern "C" {

TF_Graph* TF_NewGraph(void) { return new (std::nothrow) TF_Graph(); }

void TF_DeleteGraph(TF_Graph* graph) { delete graph; }

TF_Operation* TF_GraphOperationByName(TF_Graph* graph, const char* oper_name) {
  if (graph == nullptr || oper_name == nullptr) return nullptr;
  auto it = graph->operations.find(oper_name);
  return it == graph->operations.end() ? nullptr : it->second.get();
}

const char* TF_OperationName(TF_Operation* oper) {
  return oper == nullptr ? nullptr : oper->name.c_str();
}

TF_SessionOptions* TF_NewSessionOptions(void) { return new (std::nothrow) TF_SessionOptions(); }

void TF_DeleteSessionOptions(TF_SessionOptions* options) { delete options; }

TF_Session* TF_LoadSessionFromSavedModel(const TF_SessionOptions* session_options,
                                         const TF_Buffer* run_options, const char* export_dir,
                                         const char* const* tags, int tags_len, TF_Graph* graph,
                                         TF_Buffer* meta_graph_def, TF_Status* status) {
  (void)run_options;
  (void)meta_graph_def;
  return tfd::capi::Guard<TF_Session*>(
      "TF_LoadSessionFromSavedModel", status, nullptr, [&]() -> absl::StatusOr<TF_Session*> {
        constexpr char kWhere[] = "TF_LoadSessionFromSavedModel";
        TFD_RETURN_IF_ERROR(tfd::capi::NotNull(kWhere, session_options, "session_options"));
        TFD_RETURN_IF_ERROR(tfd::capi::NotNull(kWhere, export_dir, "export_dir"));
        TFD_RETURN_IF_ERROR(tfd::capi::NotNull(kWhere, graph, "graph"));
        if (tags_len < 0 || (tags_len > 0 && tags == nullptr)) {
          return absl::InvalidArgumentError(
              absl::StrCat(kWhere, ": need tags_len >= 0 tags, got ", tags_len));
        }
        for (int i = 0; i < tags_len; ++i) {
          TFD_RETURN_IF_ERROR(tfd::capi::NotNull(kWhere, tags[i], absl::StrCat("tags[", i, "]")));
        }
        if (!graph->operations.empty()) {
          return absl::InvalidArgumentError(absl::StrCat(kWhere, ": the graph must be empty"));
        }
        return absl::UnimplementedError(absl::StrCat(
            kWhere, ": loading SavedModels is not in this build of tfd yet (", export_dir, ")"));
      });
}

void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options, const TF_Output* inputs,
                   TF_Tensor* const* input_values, int ninputs, const TF_Output* outputs,
                   TF_Tensor** output_values, int noutputs,
                   const TF_Operation* const* target_opers, int ntargets,
                   TF_Buffer* run_metadata, TF_Status* status) {
  (void)run_options;
  (void)run_metadata;
  tfd::capi::GuardVoid("TF_SessionRun", status, [&]() -> absl::Status {
    TFD_RETURN_IF_ERROR(tfd::capi::NotNull("TF_SessionRun", session, "session"));
    const bool bad_inputs = ninputs < 0 || (ninputs > 0 && (inputs == nullptr || input_values == nullptr));
    const bool bad_outputs =
        noutputs < 0 || (noutputs > 0 && (outputs == nullptr || output_values == nullptr));
    const bool bad_targets = ntargets < 0 || (ntargets > 0 && target_opers == nullptr);
    if (bad_inputs || bad_outputs || bad_targets) {
      return absl::InvalidArgumentError(
          "TF_SessionRun: inputs, outputs and targets must hold as many entries as their counts");
    }
    if (session->closed) {
      return absl::FailedPreconditionError("TF_SessionRun: the session has been closed");
    }
    return absl::UnimplementedError("TF_SessionRun: running loaded graphs is not in tfd yet");
  });
}

void TF_CloseSession(TF_Session* session, TF_Status* status) {
  tfd::capi::GuardVoid("TF_CloseSession", status, [&]() -> absl::Status {
    TFD_RETURN_IF_ERROR(tfd::capi::NotNull("TF_CloseSession", session, "session"));
    session->closed = true;
    return absl::OkStatus();
  });
}

void TF_DeleteSession(TF_Session* session, TF_Status* status) {
  tfd::capi::SetStatus(absl::OkStatus(), status);
  delete session;
}

}  // extern "C"
