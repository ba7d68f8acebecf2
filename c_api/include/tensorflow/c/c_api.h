/* tfd's TensorFlow-compatible C API. Programs written against TensorFlow's
 * tensorflow/c/c_api.h for the functions declared here compile and run
 * unchanged against libtfd. tfd's own training API is in tfd/c_api.h.
 *
 * The SavedModel inference path (graph, operations, session) has
 * TensorFlow's types and signatures:
 *
 *   TF_Graph* graph = TF_NewGraph();
 *   TF_SessionOptions* opts = TF_NewSessionOptions();
 *   const char* tags[] = {"serve"};
 *   TF_Session* session = TF_LoadSessionFromSavedModel(opts, NULL, dir, tags, 1, graph,
 *                                                      NULL, status);
 *   TF_Output in = {TF_GraphOperationByName(graph, "serving_default_input_1"), 0};
 *   TF_Output out = {TF_GraphOperationByName(graph, "dense_1"), 0};
 *   TF_Tensor* result = NULL;
 *   TF_SessionRun(session, NULL, &in, &input, 1, &out, &result, 1, NULL, 0, NULL, status);
 *
 * SavedModels written by tfd name the signature's inputs
 * "serving_default_<input layer>" and its output after the model's last
 * layer; TensorFlow's own SavedModels load too when tfd has their ops.
 * Ownership as in TensorFlow: the caller deletes the graph after the
 * session that uses it, and every tensor TF_SessionRun returns. */
#ifndef TFD_C_API_TENSORFLOW_C_C_API_H_
#define TFD_C_API_TENSORFLOW_C_C_API_H_

#include <stddef.h>

#include "tensorflow/c/tf_buffer.h"
#include "tensorflow/c/tf_datatype.h"
#include "tensorflow/c/tf_status.h"
#include "tensorflow/c/tf_tensor.h"
#include "tensorflow/c/tf_tstring.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TF_Graph TF_Graph;
typedef struct TF_Operation TF_Operation;
typedef struct TF_SessionOptions TF_SessionOptions;
typedef struct TF_Session TF_Session;

/* One input of an operation, and one output (an operation's index-th). */
typedef struct TF_Input {
  TF_Operation* oper;
  int index;
} TF_Input;
typedef struct TF_Output {
  TF_Operation* oper;
  int index;
} TF_Output;

/* An empty graph; TF_DeleteGraph(NULL) is a no-op. */
TF_CAPI_EXPORT extern TF_Graph* TF_NewGraph(void);
TF_CAPI_EXPORT extern void TF_DeleteGraph(TF_Graph* graph);
/* The operation called `oper_name`, owned by the graph; NULL when there is
 * none (or either argument is NULL). */
TF_CAPI_EXPORT extern TF_Operation* TF_GraphOperationByName(TF_Graph* graph,
                                                           const char* oper_name);
/* The operation's name, owned by the graph; NULL for NULL. */
TF_CAPI_EXPORT extern const char* TF_OperationName(TF_Operation* oper);

/* Session options with TensorFlow's defaults. */
TF_CAPI_EXPORT extern TF_SessionOptions* TF_NewSessionOptions(void);
TF_CAPI_EXPORT extern void TF_DeleteSessionOptions(TF_SessionOptions* options);

/* The target of sessions made with `options` (a copy is kept): "" or
 * "local" for in-process, the only kind tfd has; another target makes
 * TF_LoadSessionFromSavedModel fail with TF_UNIMPLEMENTED. NULL options
 * are ignored (this function has no status, as in TensorFlow). */
TF_CAPI_EXPORT extern void TF_SetTarget(TF_SessionOptions* options, const char* target);

/* Sets the configuration from a serialized tensorflow.ConfigProto of
 * `proto_len` bytes (0: the defaults). Honoured: intra_op_parallelism_threads
 * (> 0: the session's ops run on a CPU device with that many threads; 0:
 * every core), device_count (tfd's sessions run on one CPU, which any
 * count allows, "CPU": 0 excepted), operation_timeout_in_ms (> 0: the
 * timeout of every TF_SessionRun, see there; 0 or less: none). Accepted
 * and ignored:
 * inter_op_parallelism_threads (tfd runs the ops of a step one at a time
 * on the calling thread), and the fields about placement, GPUs and graph
 * rewriting (allow_soft_placement, log_device_placement, gpu_options,
 * graph_options, ...), which tfd's CPU session has no counterpart for.
 * TF_INVALID_ARGUMENT for NULL options, NULL proto with proto_len > 0,
 * bytes that do not parse as a ConfigProto, negative thread counts or
 * device counts, "CPU": 0; TF_UNIMPLEMENTED for cluster_def. On error the
 * options are unchanged. */
TF_CAPI_EXPORT extern void TF_SetConfig(TF_SessionOptions* options, const void* proto,
                                        size_t proto_len, TF_Status* status);

/* Loads the MetaGraph tagged `tags` from the SavedModel in `export_dir`
 * into `graph` (which must be empty), restores its variables and returns a
 * session that runs it. run_options is ignored and may be NULL;
 * meta_graph_def, when not NULL, receives the serialized MetaGraphDef.
 * TF_INVALID_ARGUMENT for NULL options, directory, graph or tags;
 * TF_NOT_FOUND for a missing directory, tag set or op tfd does not have;
 * TF_DATA_LOSS for damaged files. */
TF_CAPI_EXPORT extern TF_Session* TF_LoadSessionFromSavedModel(
    const TF_SessionOptions* session_options, const TF_Buffer* run_options,
    const char* export_dir, const char* const* tags, int tags_len, TF_Graph* graph,
    TF_Buffer* meta_graph_def, TF_Status* status);

/* Runs the graph: feeds inputs[i] with input_values[i] (not taken over),
 * computes outputs into output_values (new tensors the caller deletes;
 * NULL on error) and runs the target operations. run_options is NULL or
 * a serialized tensorflow.RunOptions whose timeout_in_ms, when > 0,
 * replaces the session's operation_timeout_in_ms for this run (its other
 * fields are ignored); run_metadata is ignored.
 * Timeouts: the ops of a run execute one at a time on the calling thread,
 * and a run still going when its timeout has passed stops before its next
 * op with TF_DEADLINE_EXCEEDED; the op running then finishes first (ops
 * are not interrupted), and the effects of the ops already run (variable
 * assignments) remain. The session stays usable.
 * TF_INVALID_ARGUMENT for a NULL session, operations of another graph,
 * arrays shorter than their counts, or run_options that do not parse;
 * TF_FAILED_PRECONDITION after TF_CloseSession; the graph's own errors
 * (wrong feed shapes or dtypes name the node). Thread-safe. */
TF_CAPI_EXPORT extern void TF_SessionRun(TF_Session* session, const TF_Buffer* run_options,
                                         const TF_Output* inputs, TF_Tensor* const* input_values,
                                         int ninputs, const TF_Output* outputs,
                                         TF_Tensor** output_values, int noutputs,
                                         const TF_Operation* const* target_opers, int ntargets,
                                         TF_Buffer* run_metadata, TF_Status* status);

/* Closes the session (later runs fail); then delete it. Deleting a session
 * closes it first. NULL: TF_INVALID_ARGUMENT / a no-op. */
TF_CAPI_EXPORT extern void TF_CloseSession(TF_Session* session, TF_Status* status);
TF_CAPI_EXPORT extern void TF_DeleteSession(TF_Session* session, TF_Status* status);

/* The TensorFlow C API version this library implements, with tfd's own
 * version as semver build metadata: "2.21.0+tfd.0.6.0". */
TF_CAPI_EXPORT extern const char* TF_Version(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TENSORFLOW_C_C_API_H_ */
