/* Every exported function that takes a TF_Status, called with NULL
 * handles and arguments and a NULL status (see c_robustness.h): the error
 * has nowhere to go, so the function must return its error value (NULL,
 * 0, -1) without touching the status. */
#include <stdint.h>

#include "c_api/c_robustness.h"

static void Options(void) {
  TFD_OptionsSetInt(NULL, NULL, 0, NULL);
  TFD_OptionsSetDouble(NULL, NULL, 0.0, NULL);
  TFD_OptionsSetBool(NULL, NULL, 0, NULL);
  TFD_OptionsSetString(NULL, NULL, NULL, NULL);
  TFD_OptionsSetIntList(NULL, NULL, NULL, 1, NULL);
  TFD_OptionsSetDoubleList(NULL, NULL, NULL, 1, NULL);
}

static void Cluster(void) {
  EXPECT(TFD_NewStrategy(NULL, NULL, NULL) == NULL);
  EXPECT(TFD_StrategyNumReplicas(NULL, NULL) == 0);
  EXPECT(TFD_StrategyNumWorkers(NULL, NULL) == 0);
  EXPECT(TFD_StrategyWorkerRank(NULL, NULL) == -1);
  TFD_StrategyShutdown(NULL, NULL);
  EXPECT(TFD_StartParameterServer(NULL, NULL) == NULL); /* This process is no ps task. */
  EXPECT(TFD_ModelServeTrainSteps(NULL, NULL, NULL) == NULL);
  EXPECT(TFD_ModelServeTrainStepsFromFunction(NULL, NULL, NULL, NULL) == NULL);
  EXPECT(TFD_NewCoordinator(NULL, NULL) == NULL);
  EXPECT(TFD_CoordinatorScheduleTrainStep(NULL, NULL) == NULL);
  TFD_CoordinatorJoin(NULL, NULL);
  EXPECT(TFD_CoordinatorDone(NULL, NULL) == 0);
  EXPECT(TFD_RemoteValueFetch(NULL, NULL) == 0.0f);
  /* Succeeds without TF_CONFIG; the status is not needed for that either. */
  EXPECT(TFD_ClusterTaskType(NULL, NULL, NULL) != NULL);
}

static void Data(void) {
  EXPECT(TFD_NewDatasetFromTensors(NULL, 1, NULL) == NULL);
  EXPECT(TFD_NewDatasetFromIdx(NULL, NULL, 0.0, NULL) == NULL);
  EXPECT(TFD_NewDatasetFromTFRecord(NULL, 1, NULL, NULL, NULL, NULL, 1, NULL) == NULL);
  EXPECT(TFD_DatasetShuffle(NULL, 1, 0, 0, NULL) == NULL);
  EXPECT(TFD_DatasetBatch(NULL, 1, 0, NULL) == NULL);
  EXPECT(TFD_DatasetRepeat(NULL, 1, NULL) == NULL);
  EXPECT(TFD_DatasetTake(NULL, 1, NULL) == NULL);
  EXPECT(TFD_DatasetShard(NULL, 1, 0, NULL) == NULL);
  EXPECT(TFD_DatasetCardinality(NULL, NULL) == 0);
  EXPECT(TFD_NewDatasetIterator(NULL, NULL) == NULL);
  EXPECT(TFD_IteratorGetNext(NULL, NULL, 1, NULL) == 0);
}

static void Models(void) {
  EXPECT(TFD_NewModelFromKerasJson(NULL, NULL, NULL) == NULL);
  TFD_AddInput(NULL, NULL, 1, TF_FLOAT, NULL);
  TFD_AddDense(NULL, 1, NULL, NULL, NULL);
  TFD_AddConv2D(NULL, 1, NULL, 2, NULL, NULL, NULL);
  TFD_AddMaxPooling2D(NULL, NULL, 2, NULL, NULL);
  TFD_AddAveragePooling2D(NULL, NULL, 2, NULL, NULL);
  TFD_AddGlobalAveragePooling2D(NULL, NULL, NULL);
  TFD_AddFlatten(NULL, NULL, NULL);
  TFD_AddReshape(NULL, NULL, 1, NULL, NULL);
  TFD_AddDropout(NULL, 0.5, NULL, NULL);
  TFD_AddActivation(NULL, NULL, NULL, NULL);
  TFD_AddBatchNormalization(NULL, NULL, NULL);
  TFD_AddLayerFromKerasJson(NULL, NULL, NULL);
  EXPECT(TFD_ModelSummary(NULL, NULL) == NULL);
  TFD_ModelCompile(NULL, NULL, NULL, NULL, NULL, NULL, 1, NULL);
  EXPECT(TFD_ModelTrainStep(NULL, NULL, NULL, NULL) == 0.0f);
  EXPECT(TFD_ModelNumMetrics(NULL, NULL) == 0);
  EXPECT(TFD_ModelMetricName(NULL, 0, NULL) == NULL);
  EXPECT(TFD_ModelMetricValue(NULL, 0, NULL) == 0.0f);
  TFD_ModelResetMetrics(NULL, NULL);
  EXPECT(TFD_ModelLossScale(NULL, NULL) == 0.0f);
  EXPECT(TFD_ModelLossScaleGoodSteps(NULL, NULL) == 0);
  EXPECT(TFD_ModelDtypePolicy(NULL, NULL) == NULL);
  TFD_SetGlobalPolicy("bogus", NULL);
  TFD_ModelFit(NULL, NULL, 1, NULL, NULL, NULL);
  TFD_ModelFitWithOptions(NULL, NULL, NULL, NULL, NULL, NULL, NULL);
  EXPECT(TFD_ModelEvaluate(NULL, NULL, NULL, 1, NULL) == 0);
  EXPECT(TFD_ModelEvaluateWithOptions(NULL, NULL, NULL, NULL, 1, NULL) == 0);
  EXPECT(TFD_ModelPredict(NULL, NULL, 0, NULL) == NULL);
  EXPECT(TFD_ModelSaveCheckpoint(NULL, NULL, NULL) == NULL);
  TFD_ModelRestoreCheckpoint(NULL, NULL, NULL);
  TFD_ModelExportSavedModel(NULL, NULL, NULL);
  /* An error from a live model, too: the status is optional everywhere. */
  TFD_Model* m = TFD_NewSequential(NULL, NULL, NULL);
  EXPECT(m != NULL);
  TFD_AddDense(m, -3, NULL, NULL, NULL);
  EXPECT(TFD_ModelSummary(m, NULL) == NULL);
  TFD_DeleteModel(m);
}

static void Sessions(void) {
  EXPECT(TF_LoadSessionFromSavedModel(NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL) == NULL);
  TF_SessionRun(NULL, NULL, NULL, NULL, 0, NULL, NULL, 0, NULL, 0, NULL, NULL);
  TF_CloseSession(NULL, NULL);
  TF_DeleteSession(NULL, NULL);
  TF_SetConfig(NULL, NULL, 1, NULL);
}

int NullStatusCases(void) {
  Options();
  Cluster();
  Data();
  Models();
  Sessions();
  return failures;
}
