/* Robustness cases of the SavedModel inference path (tensorflow/c/c_api.h;
 * see c_robustness.h): NULLs and bad counts, then a live session of
 * c_api/testdata/string_model (run from the runfiles root) fed wrong
 * operations, wrong dtypes and bad run options, and used after closing. */
#include <stdint.h>

#include "c_api/c_robustness.h"

static const char kStringModel[] = "c_api/testdata/string_model";

static void Options(TF_SessionOptions* options, TF_Status* s) {
  COVERS(TF_NewSessionOptions); /* No arguments to get wrong. */
  EXPECT(options != NULL);
  COVERS(TF_SetConfig);
  TF_SetConfig(NULL, NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_SetConfig(options, NULL, 4, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  const unsigned char garbage[3] = {0xff, 0xff, 0xff};
  TF_SetConfig(options, garbage, sizeof(garbage), s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  const unsigned char one_thread[2] = {0x10, 0x01}; /* intra_op_parallelism_threads: 1 */
  TF_SetConfig(options, one_thread, sizeof(one_thread), s);
  EXPECT_OK(s);
  COVERS(TF_SetTarget); /* No status: NULLs are ignored. */
  TF_SetTarget(NULL, "local");
  TF_SetTarget(options, NULL);
}

static void Loading(TF_SessionOptions* options, TF_Graph* graph, TF_Status* s) {
  COVERS(TF_NewGraph); /* No arguments to get wrong. */
  EXPECT(graph != NULL);
  COVERS(TF_GraphOperationByName);
  EXPECT(TF_GraphOperationByName(NULL, "x") == NULL);
  EXPECT(TF_GraphOperationByName(graph, NULL) == NULL);
  EXPECT(TF_GraphOperationByName(graph, "no_such_op") == NULL);
  COVERS(TF_OperationName);
  EXPECT(TF_OperationName(NULL) == NULL);
  const char* tags[1] = {"serve"};
  const char* null_tag[1] = {NULL};
  COVERS(TF_LoadSessionFromSavedModel);
  EXPECT(TF_LoadSessionFromSavedModel(NULL, NULL, kStringModel, tags, 1, graph, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, NULL, tags, 1, graph, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, kStringModel, tags, 1, NULL, NULL, s) ==
         NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, kStringModel, NULL, 1, graph, NULL, s) ==
         NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, kStringModel, tags, -1, graph, NULL, s) ==
         NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, kStringModel, null_tag, 1, graph, NULL, s) ==
         NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, "/nonexistent", tags, 1, graph, NULL, s) ==
         NULL);
  EXPECT(TF_GetCode(s) != TF_OK);
  TF_SetStatus(s, TF_OK, "");
  TF_SetTarget(options, "grpc://nowhere:1");
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, kStringModel, tags, 1, graph, NULL, s) ==
         NULL);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  TF_SetTarget(options, "");
}

/* Runs `session` with one feed and one fetch: the checks below each break one thing. */
static void RunOne(TF_Session* session, const TF_Buffer* run_options, TF_Output feed,
                   TF_Tensor* value, TF_Output fetch, TF_Status* s) {
  TF_Tensor* result = (TF_Tensor*)&result; /* Not NULL: the run must clear it. */
  TF_SessionRun(session, run_options, &feed, &value, 1, &fetch, &result, 1, NULL, 0, NULL, s);
  EXPECT(result == NULL || TF_GetCode(s) == TF_OK);
  if (TF_GetCode(s) == TF_OK) TF_DeleteTensor(result);
}

static void Running(TF_Session* session, TF_Graph* graph, TF_Graph* other_graph, TF_Status* s) {
  COVERS(TF_SessionRun);
  TF_Output out = {NULL, 0};
  TF_Tensor* value = NULL;
  TF_SessionRun(NULL, NULL, NULL, NULL, 0, &out, &value, 1, NULL, 0, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(value == NULL);

  const int64_t one = 1;
  TF_Tensor* text = TF_AllocateTensor(TF_STRING, &one, 1, sizeof(TF_TString));
  TF_StringCopy((TF_TString*)TF_TensorData(text), "hi", 2);
  TF_Tensor* number = TF_AllocateTensor(TF_FLOAT, &one, 1, sizeof(float));
  *(float*)TF_TensorData(number) = 1.0f;
  TF_Output feed = {TF_GraphOperationByName(graph, "text"), 0};
  TF_Output fetch = {TF_GraphOperationByName(graph, "echo"), 0};
  EXPECT(feed.oper != NULL && fetch.oper != NULL);
  TF_Tensor* result = NULL;
  /* Arrays that do not hold their counts; negative counts. */
  TF_SessionRun(session, NULL, NULL, &text, 1, &fetch, &result, 1, NULL, 0, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_SessionRun(session, NULL, &feed, NULL, 1, &fetch, &result, 1, NULL, 0, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_SessionRun(session, NULL, &feed, &text, 1, &fetch, NULL, 1, NULL, 0, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_SessionRun(session, NULL, &feed, &text, -1, &fetch, &result, 1, NULL, 0, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_SessionRun(session, NULL, &feed, &text, 1, &fetch, &result, 1, NULL, 1, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  const TF_Operation* null_target[1] = {NULL};
  TF_SessionRun(session, NULL, &feed, &text, 1, &fetch, &result, 1, null_target, 1, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(result == NULL);
  /* Operations that are NULL, of another graph, or past their outputs. */
  TF_Output no_oper = {NULL, 0};
  TF_Output negative_index = {feed.oper, -1};
  TF_Output foreign = {TF_GraphOperationByName(other_graph, "text"), 0};
  EXPECT(foreign.oper != NULL);
  RunOne(session, NULL, no_oper, text, fetch, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  RunOne(session, NULL, negative_index, text, fetch, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  RunOne(session, NULL, foreign, text, fetch, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  RunOne(session, NULL, feed, text, no_oper, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_Output past_outputs = {fetch.oper, 7};
  RunOne(session, NULL, feed, text, past_outputs, s);
  EXPECT(TF_GetCode(s) != TF_OK);
  TF_SetStatus(s, TF_OK, "");
  /* A NULL value, and a float where the graph takes strings. */
  RunOne(session, NULL, feed, NULL, fetch, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  RunOne(session, NULL, feed, number, fetch, s);
  EXPECT(TF_GetCode(s) != TF_OK);
  TF_SetStatus(s, TF_OK, "");
  /* Run options that are not a RunOptions, or hold no data. */
  const unsigned char garbage[3] = {0xff, 0xff, 0xff};
  TF_Buffer* bad_options = TF_NewBufferFromString(garbage, sizeof(garbage));
  RunOne(session, bad_options, feed, text, fetch, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_Buffer no_data = {NULL, 8, NULL};
  RunOne(session, &no_data, feed, text, fetch, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_DeleteBuffer(bad_options);
  /* The same run is fine; after closing, it is refused. */
  RunOne(session, NULL, feed, text, fetch, s);
  EXPECT_OK(s);
  COVERS(TF_CloseSession);
  TF_CloseSession(NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_CloseSession(session, s);
  EXPECT_OK(s);
  RunOne(session, NULL, feed, text, fetch, s);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  TF_DeleteTensor(text);
  TF_DeleteTensor(number);
}

int SessionCases(void) {
  TF_Status* s = TF_NewStatus();
  TF_SessionOptions* options = TF_NewSessionOptions();
  TF_Graph* graph = TF_NewGraph();
  TF_Graph* other_graph = TF_NewGraph();
  Options(options, s);
  Loading(options, graph, s);
  const char* tags[1] = {"serve"};
  TF_Session* session =
      TF_LoadSessionFromSavedModel(options, NULL, kStringModel, tags, 1, graph, NULL, s);
  EXPECT_OK(s);
  TF_Session* other =
      TF_LoadSessionFromSavedModel(options, NULL, kStringModel, tags, 1, other_graph, NULL, s);
  EXPECT_OK(s);
  /* A graph holds one SavedModel. */
  EXPECT(TF_LoadSessionFromSavedModel(options, NULL, kStringModel, tags, 1, graph, NULL, s) ==
         NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  if (session != NULL && other != NULL) {
    Running(session, graph, other_graph, s);
  } else {
    fprintf(stderr, "%s: cannot load %s; the session cases did not run\n", __FILE__,
            kStringModel);
    ++failures;
  }
  COVERS(TF_DeleteSession);
  TF_DeleteSession(NULL, s);
  EXPECT_OK(s);
  TF_DeleteSession(session, s);
  TF_DeleteSession(other, NULL);
  COVERS(TF_DeleteSessionOptions);
  TF_DeleteSessionOptions(options);
  TF_DeleteSessionOptions(NULL);
  COVERS(TF_DeleteGraph);
  TF_DeleteGraph(graph);
  TF_DeleteGraph(other_graph);
  TF_DeleteGraph(NULL);
  TF_DeleteStatus(s);
  return failures;
}
