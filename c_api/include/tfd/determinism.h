/* Op determinism from C: TensorFlow's
 * tf.config.experimental.enable_op_determinism() and the
 * TF_DETERMINISTIC_OPS environment variable.
 *
 * With op determinism on, every op either gives bit-identical results run
 * to run for the same inputs on the same hardware (and the same number of
 * threads per CPU device), or fails with TF_UNIMPLEMENTED saying it has no
 * deterministic implementation. On the GPU this picks only deterministic
 * cuDNN convolution algorithms and sorts UnsortedSegmentSum (the gradient
 * of embeddings) instead of adding with atomics; results may be slower to
 * get. Seeds are still the caller's business: a model trained twice gives
 * the same weights only from the same seeds and the same data order.
 *
 * The process starts with TF_DETERMINISTIC_OPS: "1" or "true" (any case)
 * turn determinism on; unset, "0" or "false" leave it off; any other value
 * is reported on stderr and leaves it off.
 *
 * Thread safety: process-wide; a change applies to ops started after the
 * call, on every thread. Neither call can fail.
 *
 *   TFD_EnableOpDeterminism(1);
 *   ... build, train ...
 *   if (TFD_OpDeterminismEnabled()) puts("deterministic");
 */
#ifndef TFD_C_API_TFD_DETERMINISM_H_
#define TFD_C_API_TFD_DETERMINISM_H_

#ifndef TF_CAPI_EXPORT
#define TF_CAPI_EXPORT __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* Turns op determinism on (`enabled` nonzero) or off (0) for the whole
 * process, replacing what TF_DETERMINISTIC_OPS or an earlier call said. */
TF_CAPI_EXPORT extern void TFD_EnableOpDeterminism(unsigned char enabled);

/* 1 when op determinism is on, else 0. */
TF_CAPI_EXPORT extern unsigned char TFD_OpDeterminismEnabled(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* TFD_C_API_TFD_DETERMINISM_H_ */
