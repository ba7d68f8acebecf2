// Op determinism: the process-wide switch TensorFlow calls
// tf.config.experimental.enable_op_determinism().
//
// With it on, every kernel either gives bit-identical outputs run to run
// for the same inputs on the same hardware and thread configuration, or
// fails with an UNIMPLEMENTED error saying it has no deterministic
// implementation. What changes (docs/GPU.md, "Determinism"): the cuDNN
// autotuner and its heuristic fallback take only algorithms cuDNN reports
// as CUDNN_DETERMINISTIC, and the GPU UnsortedSegmentSum of floating types
// sorts its rows by segment and adds each segment's rows in row order
// instead of adding with atomics. CPU kernels split work into parts fixed
// by the shape and the pool's thread count, never by thread timing, so
// they are deterministic either way.
//
// The switch starts from TF_DETERMINISTIC_OPS as TensorFlow 2.21 reads it:
// "1" or "true" (any case) turn it on, unset, "0" or "false" leave it off.
// TensorFlow aborts on any other value; here it is reported on stderr and
// leaves determinism off. The environment is read on the first query, so
// a later EnableOpDeterminism wins over it.
//
// Kernels read the switch once per call and use that value throughout
// the call. Thread safety: every function may be called from any thread.
//
//   tfd::EnableOpDeterminism(true);
//   if (tfd::OpDeterminismEnabled()) { ... the deterministic path ... }
#ifndef TFD_CORE_FRAMEWORK_DETERMINISM_H_
#define TFD_CORE_FRAMEWORK_DETERMINISM_H_

namespace tfd {

// Turns op determinism on or off for the whole process, from now on.
void EnableOpDeterminism(bool enabled = true);

// Whether op determinism is on: EnableOpDeterminism's last value, else
// TF_DETERMINISTIC_OPS.
bool OpDeterminismEnabled();

// TF_DETERMINISTIC_OPS's value as TensorFlow reads it (see above); `value`
// may be null (unset). An unrecognized value is reported on stderr.
bool ParseDeterministicOpsSwitch(const char* value);

}  // namespace tfd

#endif  // TFD_CORE_FRAMEWORK_DETERMINISM_H_
