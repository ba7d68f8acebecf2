/* TFD_Strategy: a tf.distribute strategy chosen by name.
 *
 * Names (TensorFlow's class names are accepted too):
 *   "default"          one replica on the calling thread (no strategy).
 *   "one_device"       OneDeviceStrategy; option "device" (string,
 *                      default "/device:CPU:0").
 *   "mirrored"         MirroredStrategy; options "num_replicas" (int, CPU
 *                      replicas that split the cores; default: one replica
 *                      on the host CPU), "cross_device_ops" (string,
 *                      "ShmAllReduce", "ReductionToOneDevice",
 *                      "HierarchicalCopyAllReduce" or, for GPUs,
 *                      "NcclAllReduce").
 *   "central_storage"  CentralStorageStrategy; options as "mirrored"
 *                      without cross_device_ops.
 *   "multi_worker_mirrored"
 *                      MultiWorkerMirroredStrategy: this process is one
 *                      worker of the job that TF_CONFIG describes (else
 *                      Open MPI's or SLURM's environment; with none of
 *                      them, a job of one). Creating it joins the job and
 *                      waits for every worker (see below). Option
 *                      "local_devices" (string): "cpu" (default: one
 *                      replica per worker, on the host CPU) or "gpu" (one
 *                      replica per GPU of this process, every worker with
 *                      as many; TF_FAILED_PRECONDITION when the process
 *                      has no GPU). Options, as TensorFlow's
 *                      CommunicationOptions:
 *                      "implementation" (string: "AUTO", "RING", "NCCL"),
 *                      "timeout_seconds" (double, each collective's longest
 *                      wait, default 300), "bytes_per_pack" (int, 0: 4 MiB);
 *                      and "startup_timeout_seconds" (double, 60),
 *                      "heartbeat_timeout_seconds" (double, 10),
 *                      "shutdown_timeout_seconds" (double, 60).
 *   "parameter_server" ParameterServerStrategy: this process is the chief
 *                      or a worker of the job TF_CONFIG describes (ps
 *                      tasks run TFD_StartParameterServer instead, see
 *                      tfd/server.h); it connects to every ps task. The
 *                      model's trainable variables live on the ps tasks;
 *                      workers serve training steps and the chief's
 *                      TFD_ModelFit (with "steps_per_epoch") or custom
 *                      loop (a TFD_Coordinator, tfd/coordinator.h)
 *                      schedules them. TFD_ModelTrainStep is
 *                      TF_UNIMPLEMENTED under it. Options:
 *                      "connect_timeout_seconds" (double,
 *                      30), "rpc_timeout_seconds" (double, 30),
 *                      "step_timeout_seconds" (double, 60).
 *   "tpu":             TF_UNIMPLEMENTED.
 * Both multi-process strategies take "tf_config" (string): the job's
 * TF_CONFIG, used instead of the environment variable.
 *
 * Multi-worker jobs run the same program in every worker: each builds the
 * model, compiles and fits it on the same global batches (each worker
 * trains on its share of every batch; variables start from the chief's
 * values), and they end with the same weights. A worker that does not
 * start within the start-up timeout fails the others with
 * TF_DEADLINE_EXCEEDED naming it; one that dies mid-training fails them
 * with TF_UNAVAILABLE naming it. TFD_StrategyShutdown leaves the job in
 * order; deleting the last handle of the strategy (models hold one) does
 * it too, ignoring errors.
 *
 * A model made with a strategy (TFD_NewSequential, TFD_NewModelFromKerasJson)
 * creates its variables under it (mirrored: one copy per replica) and
 * trains through it. Ownership: the caller owns the strategy; models made
 * with it keep what they need alive, so it may be deleted before them.
 * Not thread-safe: one training call at a time per strategy.
 *
 *   TFD_Options* o = TFD_NewOptions();
 *   TFD_OptionsSetInt(o, "num_replicas", 2, status);
 *   TFD_Strategy* mirrored = TFD_NewStrategy("mirrored", o, status);
 */
#ifndef TFD_C_API_TFD_STRATEGY_H_
#define TFD_C_API_TFD_STRATEGY_H_

#include "tensorflow/c/tf_status.h"
#include "tfd/options.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct TFD_Strategy TFD_Strategy;

/* The strategy `name` with `options` (may be NULL). NULL with
 * TF_INVALID_ARGUMENT for a NULL or unknown name (the message lists the
 * names), bad option values or a bad TF_CONFIG (or, for
 * "parameter_server", a ps task), TF_UNIMPLEMENTED for "tpu" and unknown
 * options, TF_FAILED_PRECONDITION for "local_devices" "gpu" in a process
 * without GPUs; for the multi-process strategies the errors of joining the job
 * (TF_DEADLINE_EXCEEDED naming the workers or ps tasks that did not
 * start, TF_UNAVAILABLE when the chief's port cannot be bound). */
TF_CAPI_EXPORT extern TFD_Strategy* TFD_NewStrategy(const char* name, const TFD_Options* options,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern void TFD_DeleteStrategy(TFD_Strategy* strategy);

/* tf.distribute's num_replicas_in_sync; 0 with TF_INVALID_ARGUMENT for
 * NULL. */
TF_CAPI_EXPORT extern int TFD_StrategyNumReplicas(const TFD_Strategy* strategy,
                                                  TF_Status* status);

/* The workers of the job (1 for single-process strategies) and this
 * process's rank among them (0 for the chief, which writes the real
 * checkpoints and SavedModels); 0 and -1 with TF_INVALID_ARGUMENT for
 * NULL. */
TF_CAPI_EXPORT extern int TFD_StrategyNumWorkers(const TFD_Strategy* strategy, TF_Status* status);
TF_CAPI_EXPORT extern int TFD_StrategyWorkerRank(const TFD_Strategy* strategy, TF_Status* status);

/* Leaves a multi-worker job in order: waits (up to the shutdown timeout)
 * until every worker has left, so the chief's coordination service
 * outlives them. TF_DEADLINE_EXCEEDED naming the workers still running;
 * the job's error when it already failed. Idempotent; a no-op for
 * single-process strategies. Call it after the last training call. */
TF_CAPI_EXPORT extern void TFD_StrategyShutdown(TFD_Strategy* strategy, TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_STRATEGY_H_ */
