/* Robustness cases of building, compiling, training, evaluating and
 * saving models (tfd/model.h, tfd/saving.h; see c_robustness.h). */
#include <stdint.h>
#include <string.h>

#include "c_api/c_robustness.h"

static int StopAtOnce(void* user_data, int epoch, int64_t step, int epoch_end,
                      const char* const* names, const double* values, int num_values) {
  (void)user_data, (void)epoch, (void)step, (void)epoch_end, (void)names, (void)values;
  (void)num_values;
  return 1;
}

static void Building(TF_Status* s) {
  int64_t shape[1] = {4};
  int64_t kernel[2] = {3, 3};
  COVERS(TFD_NewModelFromKerasJson);
  EXPECT(TFD_NewModelFromKerasJson(NULL, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewModelFromKerasJson(NULL, "not json", s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewModelFromKerasJson(NULL, "{\"class_name\": \"LSTMModel\", \"config\": {}}", s) ==
         NULL);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  COVERS(TFD_AddInput);
  TFD_AddInput(NULL, shape, 1, TF_FLOAT, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddDense);
  TFD_AddDense(NULL, 3, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddConv2D);
  TFD_AddConv2D(NULL, 3, kernel, 2, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddMaxPooling2D);
  TFD_AddMaxPooling2D(NULL, NULL, 0, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddAveragePooling2D);
  TFD_AddAveragePooling2D(NULL, NULL, 0, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddGlobalAveragePooling2D);
  TFD_AddGlobalAveragePooling2D(NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddFlatten);
  TFD_AddFlatten(NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddReshape);
  TFD_AddReshape(NULL, shape, 1, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddDropout);
  TFD_AddDropout(NULL, 0.5, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddActivation);
  TFD_AddActivation(NULL, "relu", NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddBatchNormalization);
  TFD_AddBatchNormalization(NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_AddLayerFromKerasJson);
  TFD_AddLayerFromKerasJson(NULL, "{}", s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelSummary);
  EXPECT(TFD_ModelSummary(NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);

  COVERS(TFD_NewSequential);
  TFD_Model* m = TFD_NewSequential(NULL, NULL, s);
  EXPECT_OK(s);
  EXPECT(TFD_ModelSummary(m, s) == NULL); /* Not built yet. */
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  TFD_AddInput(m, NULL, 1, TF_FLOAT, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  int64_t negative[1] = {-4};
  TFD_AddInput(m, negative, 1, TF_FLOAT, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddInput(m, shape, 1, (TF_DataType)12345, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddInput(m, shape, 1, TF_FLOAT, s);
  EXPECT_OK(s);
  TFD_AddDense(m, -3, NULL, NULL, s);
  EXPECT(TF_GetCode(s) != TF_OK);
  TF_SetStatus(s, TF_OK, "");
  TFD_AddConv2D(m, 3, NULL, 2, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddConv2D(m, 3, kernel, 3, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddConv2D(m, 3, kernel, 2, NULL, NULL, s); /* Needs rank-4 input. */
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddMaxPooling2D(m, NULL, 5, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddAveragePooling2D(m, kernel, 2, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddGlobalAveragePooling2D(m, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  int64_t wrong_size[2] = {3, 3};
  TFD_AddReshape(m, wrong_size, 2, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddDropout(m, 1.5, NULL, s);
  EXPECT(TF_GetCode(s) != TF_OK);
  TF_SetStatus(s, TF_OK, "");
  TFD_AddActivation(m, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddActivation(m, "no_such_activation", NULL, s);
  EXPECT(TF_GetCode(s) != TF_OK);
  TF_SetStatus(s, TF_OK, "");
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetDouble(o, "momentum", 0.5, s);
  TFD_OptionsSetString(o, "not_an_option", "x", s);
  TFD_AddBatchNormalization(m, o, s);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  TFD_DeleteOptions(o);
  TFD_AddLayerFromKerasJson(m, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddLayerFromKerasJson(m, "{\"class_name\": \"GRU\", \"config\": {}}", s);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  TFD_AddLayerFromKerasJson(m, "[1, 2", s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_AddDense(m, 3, "softmax", NULL, s);
  EXPECT_OK(s);
  COVERS(TFD_DeleteModel);
  TFD_DeleteModel(m);
  TFD_DeleteModel(NULL);
}

static void Training(TF_Status* s) {
  TFD_Model* m = TFD_NewSequential(NULL, "robust", s);
  int64_t shape[1] = {4};
  TFD_AddInput(m, shape, 1, TF_FLOAT, s);
  TFD_AddDense(m, 3, NULL, NULL, s);
  EXPECT_OK(s);
  int64_t xdims[2] = {2, 4};
  int64_t two = 2;
  TF_Tensor* x = TF_AllocateTensor(TF_FLOAT, xdims, 2, 8 * sizeof(float));
  memset(TF_TensorData(x), 0, 8 * sizeof(float));
  TF_Tensor* y = TF_AllocateTensor(TF_INT64, &two, 1, 2 * sizeof(int64_t));
  memset(TF_TensorData(y), 0, 2 * sizeof(int64_t));
  TF_Tensor* int_x = TF_AllocateTensor(TF_INT32, xdims, 2, 8 * sizeof(int32_t));
  memset(TF_TensorData(int_x), 0, 8 * sizeof(int32_t));
  TF_Tensor* bad_labels = TF_AllocateTensor(TF_INT64, &two, 1, 2 * sizeof(int64_t));
  ((int64_t*)TF_TensorData(bad_labels))[0] = 7; /* Out of [0, 3). */
  ((int64_t*)TF_TensorData(bad_labels))[1] = 0;
  TF_Tensor* scalar = TF_AllocateTensor(TF_FLOAT, NULL, 0, 4);

  COVERS(TFD_ModelCompile);
  TFD_ModelCompile(NULL, "sgd", NULL, "mse", NULL, NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelCompile(m, NULL, NULL, "mse", NULL, NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelCompile(m, "sgd", NULL, NULL, NULL, NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelCompile(m, "sgd", NULL, "hinge_squared", NULL, NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelCompile(m, "sgd", NULL, "mse", NULL, NULL, 2, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  const char* null_metric[1] = {NULL};
  TFD_ModelCompile(m, "sgd", NULL, "mse", NULL, null_metric, 1, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetString(o, "learning_rate", "fast", s);
  TFD_ModelCompile(m, "adam", o, "mse", NULL, NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteOptions(o);
  o = TFD_NewOptions();
  TFD_OptionsSetDouble(o, "clipnorm", -1.0, s);
  TFD_ModelCompile(m, "rmsprop", o, "mse", NULL, NULL, 0, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteOptions(o);

  /* Before compiling. */
  COVERS(TFD_ModelTrainStep);
  EXPECT(TFD_ModelTrainStep(m, x, y, s) == 0.0f);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  COVERS(TFD_ModelFit);
  TFD_ModelFit(m, NULL, 1, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);

  const char* metrics[1] = {"accuracy"};
  o = TFD_NewOptions();
  TFD_OptionsSetBool(o, "from_logits", 1, s);
  TFD_ModelCompile(m, "adagrad", NULL, "sparse_categorical_crossentropy", o, metrics, 1, s);
  TFD_DeleteOptions(o);
  EXPECT_OK(s);

  /* A coordinator needs a "parameter_server" strategy. */
  EXPECT(TFD_NewCoordinator(m, s) == NULL);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);

  EXPECT(TFD_ModelTrainStep(NULL, x, y, s) == 0.0f);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelTrainStep(m, NULL, y, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelTrainStep(m, x, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelTrainStep(m, int_x, y, s); /* Wrong dtype for a float model. */
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelTrainStep(m, scalar, y, s); /* Wrong rank. */
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelTrainStep(m, x, scalar, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelTrainStep(m, x, bad_labels, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelTrainStep(m, x, y, s);
  EXPECT_OK(s);

  COVERS(TFD_ModelNumMetrics);
  EXPECT(TFD_ModelNumMetrics(NULL, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelNumMetrics(m, s) == 1);
  COVERS(TFD_ModelMetricName);
  EXPECT(TFD_ModelMetricName(NULL, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelMetricName(m, -1, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelMetricValue);
  EXPECT(TFD_ModelMetricValue(NULL, 0, s) == 0.0f);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelMetricValue(m, 3, s) == 0.0f);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelResetMetrics);
  TFD_ModelResetMetrics(NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelResetMetrics(m, s);
  EXPECT_OK(s);

  /* Fit and evaluate over datasets whose elements are not (x, y). */
  TFD_Dataset* only_x = TFD_NewDatasetFromTensors(&x, 1, s);
  TFD_Dataset* batched = TFD_DatasetBatch(only_x, 2, 0, s);
  EXPECT_OK(s);
  /* A compiled model under the default strategy neither serves steps nor
   * has a coordinator: both need "parameter_server". */
  EXPECT(TFD_ModelServeTrainSteps(m, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelServeTrainSteps(m, batched, s) == NULL);
  EXPECT_ERROR(s, TF_FAILED_PRECONDITION);
  EXPECT(TFD_ModelServeTrainStepsFromFunction(m, NULL, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelFit(NULL, batched, 1, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelFit(m, batched, 1, StopAtOnce, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelFit(m, batched, -1, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelFitWithOptions);
  TFD_ModelFitWithOptions(NULL, batched, NULL, NULL, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelFitWithOptions(m, NULL, NULL, NULL, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelFitWithOptions(m, batched, batched, NULL, StopAtOnce, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  o = TFD_NewOptions();
  TFD_OptionsSetString(o, "epochs", "ten", s);
  TFD_ModelFitWithOptions(m, batched, NULL, o, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetInt(o, "shuffle", 1, s);
  COVERS(TFD_ModelEvaluateWithOptions);
  EXPECT(TFD_ModelEvaluateWithOptions(m, batched, o, NULL, 0, s) == 0);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  TFD_DeleteOptions(o);
  double results[2];
  EXPECT(TFD_ModelEvaluateWithOptions(NULL, batched, NULL, results, 2, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelEvaluateWithOptions(m, batched, NULL, results, -1, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelEvaluate);
  EXPECT(TFD_ModelEvaluate(NULL, batched, results, 2, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelEvaluate(m, NULL, results, 2, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelEvaluate(m, batched, NULL, 2, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelEvaluate(m, batched, results, 2, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  /* An empty dataset. */
  TFD_Dataset* none = TFD_DatasetTake(batched, 0, s);
  TFD_ModelFit(m, none, 1, NULL, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteDataset(none);
  TFD_DeleteDataset(batched);
  TFD_DeleteDataset(only_x);

  COVERS(TFD_ModelPredict);
  EXPECT(TFD_ModelPredict(NULL, x, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelPredict(m, NULL, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelPredict(m, scalar, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelPredict(m, int_x, 0, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TF_Tensor* out = TFD_ModelPredict(m, x, 1, s);
  EXPECT_OK(s);
  EXPECT(out != NULL && TF_Dim(out, 0) == 2 && TF_Dim(out, 1) == 3);
  TF_DeleteTensor(out);

  TF_DeleteTensor(x);
  TF_DeleteTensor(y);
  TF_DeleteTensor(int_x);
  TF_DeleteTensor(bad_labels);
  TF_DeleteTensor(scalar);
  TFD_DeleteModel(m);
}

static void Saving(TF_Status* s) {
  TFD_Model* m = TFD_NewSequential(NULL, NULL, s);
  COVERS(TFD_ModelSaveCheckpoint);
  EXPECT(TFD_ModelSaveCheckpoint(NULL, "/tmp/x", s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_ModelSaveCheckpoint(m, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelRestoreCheckpoint);
  TFD_ModelRestoreCheckpoint(NULL, "/tmp/x", s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelRestoreCheckpoint(m, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelExportSavedModel);
  TFD_ModelExportSavedModel(NULL, "/tmp/x", s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_ModelExportSavedModel(m, NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteModel(m);
}

int ModelCases(void) {
  TF_Status* s = TF_NewStatus();
  Building(s);
  Training(s);
  Saving(s);
  TF_DeleteStatus(s);
  return failures;
}
