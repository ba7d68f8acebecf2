/* Robustness cases of strategies, parameter servers, workers' serving and
 * the coordinator (tfd/strategy.h, tfd/server.h, tfd/coordinator.h; see
 * c_robustness.h). No case here starts a server: every one fails first. */
#include <string.h>

#include "c_api/c_robustness.h"

static void Strategies(TF_Status* s) {
  COVERS(TFD_NewStrategy);
  EXPECT(TFD_NewStrategy(NULL, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewStrategy("no_such_strategy", NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_NewStrategy("TPUStrategy", NULL, s) == NULL);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  /* No cluster, so no ps tasks. */
  EXPECT(TFD_NewStrategy("ParameterServerStrategy", NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_Options* bad_config = TFD_NewOptions();
  TFD_OptionsSetString(bad_config, "tf_config", "{not json", s);
  EXPECT(TFD_NewStrategy("parameter_server", bad_config, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteOptions(bad_config);
  TFD_Options* o = TFD_NewOptions();
  TFD_OptionsSetString(o, "implementation", "carrier_pigeon", s);
  EXPECT(TFD_NewStrategy("multi_worker_mirrored", o, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetInt(o, "timeout_seconds", 0, s);
  EXPECT(TFD_NewStrategy("multi_worker_mirrored", o, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteOptions(o);
  o = TFD_NewOptions();
  TFD_OptionsSetString(o, "num_replicas", "two", s);
  EXPECT(TFD_NewStrategy("mirrored", o, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_OptionsSetInt(o, "num_replicas", 2, s);
  TFD_OptionsSetString(o, "cross_device_ops", "NoSuchAllReduce", s);
  EXPECT(TFD_NewStrategy("mirrored", o, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteOptions(o);
  o = TFD_NewOptions();
  TFD_OptionsSetString(o, "device", "/device:TPU:0", s);
  EXPECT(TFD_NewStrategy("one_device", o, s) == NULL);
  EXPECT(TF_GetCode(s) != TF_OK);
  TF_SetStatus(s, TF_OK, "");
  TFD_OptionsSetString(o, "device", "not a device", s);
  EXPECT(TFD_NewStrategy("one_device", o, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteOptions(o);
  o = TFD_NewOptions();
  TFD_OptionsSetBool(o, "unknown_option", 1, s);
  EXPECT(TFD_NewStrategy("central_storage", o, s) == NULL);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  TFD_DeleteOptions(o);
  COVERS(TFD_StrategyNumReplicas);
  EXPECT(TFD_StrategyNumReplicas(NULL, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_StrategyNumWorkers);
  EXPECT(TFD_StrategyNumWorkers(NULL, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_StrategyWorkerRank);
  EXPECT(TFD_StrategyWorkerRank(NULL, s) == -1);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_StrategyShutdown);
  TFD_StrategyShutdown(NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_DeleteStrategy);
  TFD_DeleteStrategy(NULL);
}

static void Servers(TF_Status* s) {
  TFD_Options* bad_config = TFD_NewOptions();
  TFD_OptionsSetString(bad_config, "tf_config", "{not json", s);
  COVERS(TFD_StartParameterServer);
  EXPECT(TFD_StartParameterServer(bad_config, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  EXPECT(TFD_StartParameterServer(NULL, s) == NULL); /* This process is no ps task. */
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  /* With a live model, in c_robustness_model.c: not compiled, not under
   * "parameter_server". */
  COVERS(TFD_ModelServeTrainSteps);
  EXPECT(TFD_ModelServeTrainSteps(NULL, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ModelServeTrainStepsFromFunction);
  EXPECT(TFD_ModelServeTrainStepsFromFunction(NULL, NULL, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_ServerJoin);
  TFD_ServerJoin(NULL); /* Returns at once. */
  COVERS(TFD_DeleteServer);
  TFD_DeleteServer(NULL);
  /* No TF_CONFIG: the one worker of a job of one. */
  COVERS(TFD_ClusterTaskType);
  int task_index = -1;
  const char* task_type = TFD_ClusterTaskType(NULL, &task_index, s);
  EXPECT_OK(s);
  EXPECT(task_type != NULL && strcmp(task_type, "worker") == 0 && task_index == 0);
  EXPECT(TFD_ClusterTaskType(bad_config, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  TFD_DeleteOptions(bad_config);
  TFD_Options* unknown = TFD_NewOptions();
  TFD_OptionsSetInt(unknown, "no_such_option", 1, s);
  EXPECT(TFD_ClusterTaskType(unknown, NULL, s) == NULL);
  EXPECT_ERROR(s, TF_UNIMPLEMENTED);
  TFD_DeleteOptions(unknown);
}

/* With a live model that is not under "parameter_server": c_robustness_model.c. */
static void Coordinators(TF_Status* s) {
  COVERS(TFD_NewCoordinator);
  EXPECT(TFD_NewCoordinator(NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_CoordinatorScheduleTrainStep);
  EXPECT(TFD_CoordinatorScheduleTrainStep(NULL, s) == NULL);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_CoordinatorJoin);
  TFD_CoordinatorJoin(NULL, s);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_CoordinatorDone);
  EXPECT(TFD_CoordinatorDone(NULL, s) == 0);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_RemoteValueFetch);
  EXPECT(TFD_RemoteValueFetch(NULL, s) == 0.0f);
  EXPECT_ERROR(s, TF_INVALID_ARGUMENT);
  COVERS(TFD_DeleteCoordinator);
  TFD_DeleteCoordinator(NULL);
  COVERS(TFD_DeleteRemoteValue);
  TFD_DeleteRemoteValue(NULL);
}

int ClusterCases(void) {
  TF_Status* s = TF_NewStatus();
  Strategies(s);
  Servers(s);
  Coordinators(s);
  TF_DeleteStatus(s);
  return failures;
}
