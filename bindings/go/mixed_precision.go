package tfd

// #include <stdlib.h>
// #include "tfd/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// SetGlobalPolicy is Keras's tf.keras.mixed_precision.set_global_policy:
// the dtype policy layers and models take when they are made. "float32"
// (the default), "mixed_float16" or "mixed_bfloat16" (16-bit compute,
// float32 variables), or a floating dtype name. The policy is process-wide
// and safe to set from any goroutine; it is read when a layer or model is
// made, so set it before building the model. A layer's "dtype" option
// overrides it for that layer. Compiling a model whose policy is
// mixed_float16 adds Keras's dynamic loss scaling (Model.LossScale).
// Errors (the policy is then unchanged): InvalidArgument for a name that
// is no policy (the message names the valid ones) or a policy that does
// not compute in floating point.
func SetGlobalPolicy(name string) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	s := newStatus()
	defer s.delete()
	C.TFD_SetGlobalPolicy(cname, s.c)
	return s.err()
}

// GlobalPolicy is the global policy's name (Keras's global_policy().name);
// empty only when the library ran out of memory.
func GlobalPolicy() string { return C.GoString(C.TFD_GlobalPolicy()) }

// DtypePolicy is the model's own policy (Keras's model.dtype_policy.name):
// the global one when the model was made.
func (m *Model) DtypePolicy() (string, error) {
	c, err := m.open("DtypePolicy")
	if err != nil {
		return "", err
	}
	s := newStatus()
	defer s.delete()
	name := C.TFD_ModelDtypePolicy(c, s.c)
	if err := s.err(); err != nil {
		return "", err
	}
	policy := C.GoString(name)
	runtime.KeepAlive(m)
	return policy, nil
}

// LossScale is the current loss scale of a model compiled under
// mixed_float16 (Keras's optimizer.loss_scale) and the finite steps since
// it last changed (optimizer.dynamic_counter): 32768 after Compile, halved
// by a step with non-finite gradients (which is skipped), doubled after
// 2000 finite steps. FailedPrecondition before Compile, or when the
// optimizer does no loss scaling (the model's policy is not mixed_float16).
func (m *Model) LossScale() (scale float32, goodSteps int64, err error) {
	c, err := m.open("LossScale")
	if err != nil {
		return 0, 0, err
	}
	s := newStatus()
	defer s.delete()
	scale = float32(C.TFD_ModelLossScale(c, s.c))
	if err := s.err(); err != nil {
		return 0, 0, err
	}
	goodSteps = int64(C.TFD_ModelLossScaleGoodSteps(c, s.c))
	runtime.KeepAlive(m)
	if err := s.err(); err != nil {
		return 0, 0, err
	}
	return scale, goodSteps, nil
}
