package tfd

// #include "tfd/c_api.h"
import "C"

// EnableOpDeterminism turns op determinism on or off for the whole process
// (TFD_EnableOpDeterminism), as TensorFlow's
// tf.config.experimental.enable_op_determinism() does: with it on, every op
// either gives bit-identical results run to run for the same inputs on the
// same hardware, or fails with an Unimplemented error saying it has no
// deterministic implementation. The process starts with the
// TF_DETERMINISTIC_OPS environment variable ("1" or "true" turn it on).
// Safe to call from any goroutine; applies to ops started after the call.
func EnableOpDeterminism(enabled bool) {
	var v C.uchar
	if enabled {
		v = 1
	}
	C.TFD_EnableOpDeterminism(v)
}

// OpDeterminismEnabled reports whether op determinism is on
// (TFD_OpDeterminismEnabled).
func OpDeterminismEnabled() bool {
	return C.TFD_OpDeterminismEnabled() != 0
}
