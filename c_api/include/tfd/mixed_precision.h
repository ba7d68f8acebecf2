/* Mixed precision through C: Keras's dtype policies
 * (tf.keras.mixed_precision) and the loss scale of a model compiled under
 * mixed_float16.
 *
 * A policy names the dtype a layer computes in and the dtype of its
 * variables: "float32" (the default), "mixed_float16" and "mixed_bfloat16"
 * (16-bit compute, float32 variables), or any floating dtype name
 * ("float16", "bfloat16", "float64") for both.
 *
 * Scope, as in Keras: the global policy is process-wide and is read when a
 * layer or model is constructed (TFD_NewSequential, TFD_NewModelFromKerasJson,
 * TFD_Add*). Layers that exist keep the policy they were made with; a
 * layer's "dtype" option (TFD_Options, a policy or dtype name) or the
 * "dtype" of its Keras JSON overrides the global one for that layer. The
 * model's own policy (the global one when the model was made) decides
 * what TFD_ModelCompile does: under mixed_float16 it wraps the optimizer in
 * a dynamic LossScaleOptimizer, as Keras's compile() does (scale 2^15 at
 * first, halved and the step skipped when a gradient is Inf or NaN,
 * doubled after 2000 finite steps), for TFD_ModelFit and
 * TFD_ModelTrainStep alike. Keras's advice holds: give the last layer
 * dtype "float32" so the loss is computed in float32.
 *
 * Thread safety: TFD_SetGlobalPolicy and TFD_GlobalPolicy may be called
 * from any thread; a model under construction on one thread while another
 * changes the policy gets one policy or the other for each layer. The
 * model functions follow tfd/model.h (one call at a time per model).
 *
 *   TFD_SetGlobalPolicy("mixed_bfloat16", s);
 *   TFD_Model* m = TFD_NewSequential(NULL, "mlp", s);
 *   TFD_AddInput(m, image, 2, TF_FLOAT, s);
 *   TFD_AddDense(m, 128, "relu", NULL, s);            // bfloat16 compute
 *   TFD_Options* o = TFD_NewOptions();
 *   TFD_OptionsSetString(o, "dtype", "float32", s);
 *   TFD_AddDense(m, 10, NULL, o, s);                   // float32 logits
 *   TFD_SetGlobalPolicy("float32", s);                 // later models: float32
 */
#ifndef TFD_C_API_TFD_MIXED_PRECISION_H_
#define TFD_C_API_TFD_MIXED_PRECISION_H_

#include <stdint.h>

#include "tensorflow/c/tf_status.h"
#include "tfd/model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* tf.keras.mixed_precision.set_global_policy(name). NULL means Keras's
 * None: back to "float32". Errors (the policy is then unchanged):
 * TF_INVALID_ARGUMENT for a name that is no policy (the message names the
 * valid ones: "mixed_float16", "mixed_bfloat16" and dtype names such as
 * "float32"), or for a policy that does not compute in floating point
 * ("int32"), with Keras's messages. */
TF_CAPI_EXPORT extern void TFD_SetGlobalPolicy(const char* name, TF_Status* status);

/* The global policy's name (tf.keras.mixed_precision.global_policy().name).
 * The string is static: valid for the life of the process, not freed. NULL
 * only when there was no memory to keep a name not seen before. */
TF_CAPI_EXPORT extern const char* TFD_GlobalPolicy(void);

/* The current loss scale of the model's LossScaleOptimizer (Keras's
 * optimizer.loss_scale), and the count of consecutive finite steps since
 * the scale last changed (optimizer.dynamic_counter; it doubles the scale
 * when it reaches 2000). TF_INVALID_ARGUMENT for NULL;
 * TF_FAILED_PRECONDITION before TFD_ModelCompile, or when the compiled
 * optimizer does no loss scaling (the model's policy is not
 * mixed_float16). 0 on error. */
TF_CAPI_EXPORT extern float TFD_ModelLossScale(const TFD_Model* model, TF_Status* status);
TF_CAPI_EXPORT extern int64_t TFD_ModelLossScaleGoodSteps(const TFD_Model* model,
                                                          TF_Status* status);

/* The model's own policy (Keras's model.dtype_policy.name), owned by the
 * model and valid while it lives. NULL with TF_INVALID_ARGUMENT for NULL. */
TF_CAPI_EXPORT extern const char* TFD_ModelDtypePolicy(const TFD_Model* model,
                                                       TF_Status* status);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_MIXED_PRECISION_H_ */
