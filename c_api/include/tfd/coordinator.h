/* TFD_Coordinator: a custom training loop under ParameterServerStrategy,
 * driven by the chief as TensorFlow's
 * tf.distribute.coordinator.ClusterCoordinator drives one. The chief
 * schedules training steps; each runs on the next free worker, on the next
 * batch of that worker's own data, against the variables on the ps tasks,
 * and leaves a TFD_RemoteValue that the chief fetches when it wants the
 * step's loss. TensorFlow's loop and its C counterpart:
 *
 *   coordinator = ClusterCoordinator(strategy)  c = TFD_NewCoordinator(model, s)
 *   it = iter(coordinator                       (made by TFD_NewCoordinator: each
 *     .create_per_worker_dataset(fn))            worker's iterator over the data
 *                                                it serves, tfd/server.h)
 *   v = coordinator.schedule(step, args=(it,))  v = TFD_CoordinatorScheduleTrainStep(c, s)
 *   coordinator.join()                          TFD_CoordinatorJoin(c, s)
 *   v.fetch()                                   TFD_RemoteValueFetch(v, s)
 *   accuracy.result()                           TFD_ModelMetricValue(model, 0, s)
 *
 * The step. C cannot send a function to the workers, so the step is the
 * one the workers serve (TFD_ModelServeTrainSteps, each worker having
 * built and compiled the same model): on one batch of the worker's data,
 * the forward pass, the compiled loss averaged over the batch (TensorFlow's
 * compute_average_loss: under parameter servers a worker is one replica,
 * so its batch is the global batch of the step), its gradients sent to the
 * ps tasks, which apply them with the compiled optimizer (SGD or Adam) and
 * keep its slots. Steps run asynchronously: each reads the values current
 * when it starts, so results depend on timing, as in TensorFlow.
 *
 * Join is the loop's point of synchronization, as in TensorFlow: once
 * TFD_CoordinatorJoin returns, every scheduled step has run, the chief's
 * model holds the ps's values and optimizer state (so TFD_ModelEvaluate,
 * TFD_ModelSaveCheckpoint and TFD_ModelExportSavedModel see the trained
 * model), and the compiled metrics (TFD_ModelMetricValue) include every
 * joined step, until TFD_ModelResetMetrics. The next step scheduled after
 * a join first writes the model's values back to the ps tasks, so a
 * checkpoint restored between steps is where training goes on.
 *
 * Failures: a worker that is lost (killed, or silent past the strategy's
 * "step_timeout_seconds") is dropped and its step runs on another worker,
 * reading that worker's iterator: steps run at least once. When no worker
 * is left, the steps fail with TF_UNAVAILABLE. A step that fails fails its
 * TFD_RemoteValue and the join; the steps not started then are
 * TF_CANCELLED.
 *
 * Ownership: the caller owns coordinators and remote values; either may
 * be deleted in any order, and before or after the model. Thread safety:
 * one call at a time per coordinator, and no other training call on its
 * model meanwhile; a TFD_RemoteValue may be fetched from any thread.
 *
 *   TFD_Coordinator* c = TFD_NewCoordinator(model, s);
 *   for (int epoch = 0; epoch < 3; ++epoch) {
 *     TFD_ModelResetMetrics(model, s);
 *     for (int i = 0; i < 100; ++i) losses[i] = TFD_CoordinatorScheduleTrainStep(c, s);
 *     TFD_CoordinatorJoin(c, s);
 *     printf("loss %f accuracy %f\n", TFD_RemoteValueFetch(losses[99], s),
 *            TFD_ModelMetricValue(model, 0, s));
 *     for (int i = 0; i < 100; ++i) TFD_DeleteRemoteValue(losses[i]);
 *   }
 *   TFD_DeleteCoordinator(c);
 */
#ifndef TFD_C_API_TFD_COORDINATOR_H_
#define TFD_C_API_TFD_COORDINATOR_H_

#include "tensorflow/c/tf_status.h"
#include "tfd/model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFD_Coordinator TFD_Coordinator;
typedef struct TFD_RemoteValue TFD_RemoteValue;

/* A coordinator for the custom loop of `model`, on the chief of a
 * "parameter_server" job. Writes the model's values (and the optimizer's
 * state, once it has one) to the ps tasks and makes an iterator on every
 * worker over the data it serves, from its start. TF_INVALID_ARGUMENT for
 * NULL; TF_FAILED_PRECONDITION before TFD_ModelCompile, before the model
 * is built, under another strategy, or on a worker; TF_UNIMPLEMENTED for
 * an optimizer the ps tasks cannot apply; TF_NOT_FOUND when a worker
 * serves no data; a worker's dataset function's error; TF_UNAVAILABLE when
 * no worker or ps can be reached. */
TF_CAPI_EXPORT extern TFD_Coordinator* TFD_NewCoordinator(TFD_Model* model, TF_Status* status);

/* Waits for the coordinator's steps (each bounded by the step timeout),
 * ignoring their errors, releases the iterators it made on the workers (a
 * worker that cannot be reached keeps its own until it restarts), and
 * frees it; NULL is a no-op. */
TF_CAPI_EXPORT extern void TFD_DeleteCoordinator(TFD_Coordinator* coordinator);

/* Queues one training step for the next free worker and returns at once
 * with its TFD_RemoteValue (the caller deletes it). After a join, first
 * writes the model's values and optimizer state to the ps tasks. NULL
 * with TF_INVALID_ARGUMENT for NULL, or with the errors of writing to the
 * ps tasks. */
TF_CAPI_EXPORT extern TFD_RemoteValue* TFD_CoordinatorScheduleTrainStep(
    TFD_Coordinator* coordinator, TF_Status* status);

/* Waits until every step scheduled so far has finished, then reads the
 * ps's values and optimizer state into the model and adds the steps'
 * metrics to the model's (see above). The first step's error (its code:
 * TF_UNAVAILABLE when every worker was lost, a step's own error as the
 * worker reported it); TF_INVALID_ARGUMENT for NULL. */
TF_CAPI_EXPORT extern void TFD_CoordinatorJoin(TFD_Coordinator* coordinator, TF_Status* status);

/* 1 when every step of the coordinator has finished, 0 while some are
 * pending or running (coordinator.done(); does not wait). 0 with
 * TF_INVALID_ARGUMENT for NULL. */
TF_CAPI_EXPORT extern int TFD_CoordinatorDone(const TFD_Coordinator* coordinator,
                                              TF_Status* status);

/* Waits for the step and returns its loss: the mean over its batch (0
 * for an empty batch). May be called any number of times. 0 with the
 * step's error (TF_CANCELLED when an earlier step failed first), or
 * TF_INVALID_ARGUMENT for NULL. */
TF_CAPI_EXPORT extern float TFD_RemoteValueFetch(const TFD_RemoteValue* value,
                                                 TF_Status* status);

/* NULL is a no-op. Deleting a value does not cancel its step. */
TF_CAPI_EXPORT extern void TFD_DeleteRemoteValue(TFD_RemoteValue* value);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_COORDINATOR_H_ */
