/* TFD_Strategy: a tf.distribute strategy chosen by name.
 *
 * Names (TensorFlow's class names are accepted too):
 *   "default"          one replica on the calling thread (no strategy).
 *   "one_device"       OneDeviceStrategy; option "device" (string,
 *                      default "/device:CPU:0").
 *   "mirrored"         MirroredStrategy; options "num_replicas" (int, CPU
 *                      replicas that split the cores; default: one replica
 *                      on the host CPU), "cross_device_ops" (string,
 *                      "ShmAllReduce" or "ReductionToOneDevice").
 *   "central_storage"  CentralStorageStrategy; options as "mirrored"
 *                      without cross_device_ops.
 *   "multi_worker_mirrored", "parameter_server", "tpu": TF_UNIMPLEMENTED
 *                      (multi-worker strategies are not in the C API yet).
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
 * names) or bad option values, TF_UNIMPLEMENTED for multi-worker
 * strategies and unknown options. */
TF_CAPI_EXPORT extern TFD_Strategy* TFD_NewStrategy(const char* name, const TFD_Options* options,
                                                    TF_Status* status);
TF_CAPI_EXPORT extern void TFD_DeleteStrategy(TFD_Strategy* strategy);

/* tf.distribute's num_replicas_in_sync; 0 with TF_INVALID_ARGUMENT for
 * NULL. */
TF_CAPI_EXPORT extern int TFD_StrategyNumReplicas(const TFD_Strategy* strategy,
                                                  TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_STRATEGY_H_ */
