package tfd

// #include <stdlib.h>
// #include "tfd/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Strategy is a tf.distribute strategy chosen by name: "default",
// "one_device", "mirrored" (option "num_replicas"), "central_storage";
// TensorFlow's class names are accepted too. Models made with it keep what
// they need, so it may be closed before them.
type Strategy struct {
	c *C.TFD_Strategy
}

// NewStrategy makes the strategy `name` with `options` (may be nil).
// Errors: InvalidArgument for an unknown name or bad option value,
// Unimplemented for unknown options and the multi-worker strategies.
func NewStrategy(name string, options Options) (*Strategy, error) {
	opts, err := options.toC()
	if err != nil {
		return nil, err
	}
	defer C.TFD_DeleteOptions(opts)
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	s := newStatus()
	defer s.delete()
	c := C.TFD_NewStrategy(cname, opts, s.c)
	if err := s.err(); err != nil {
		C.TFD_DeleteStrategy(c)
		return nil, err
	}
	st := &Strategy{c: c}
	runtime.SetFinalizer(st, (*Strategy).Close)
	return st, nil
}

// NewMirroredStrategy is MirroredStrategy over numReplicas CPU replicas.
func NewMirroredStrategy(numReplicas int) (*Strategy, error) {
	return NewStrategy("mirrored", Options{"num_replicas": numReplicas})
}

// NumReplicas is tf.distribute's num_replicas_in_sync.
func (st *Strategy) NumReplicas() (int, error) {
	if st.c == nil {
		return 0, errorf(FailedPrecondition, "NumReplicas: the strategy is closed")
	}
	s := newStatus()
	defer s.delete()
	n := int(C.TFD_StrategyNumReplicas(st.c, s.c))
	runtime.KeepAlive(st)
	return n, s.err()
}

// Close frees the native strategy; idempotent, always nil.
func (st *Strategy) Close() error {
	if st.c != nil {
		C.TFD_DeleteStrategy(st.c)
		st.c = nil
		runtime.SetFinalizer(st, nil)
	}
	return nil
}
