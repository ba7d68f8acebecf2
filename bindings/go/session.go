package tfd

// #include <stdlib.h>
// #include "tensorflow/c/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Session runs a loaded SavedModel's graph (a TF_Session). Safe for
// concurrent Run calls; Close it (or its SavedModel) when done.
type Session struct {
	graph *Graph
}

// SessionOptions configure LoadSavedModel. tfd runs in-process only:
// Target must be empty; Config (a serialized ConfigProto) must be empty too.
type SessionOptions struct {
	Target string
	Config []byte
}

// Run feeds the tensors of feeds, runs the graph up to fetches and
// targets, and returns one new tensor per fetch (the caller's to Close).
// Errors: InvalidArgument for outputs of another graph or nil tensors, and
// whatever the graph's ops report.
func (s *Session) Run(feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, error) {
	h := s.graph.handles
	if h.session == nil {
		return nil, errorf(FailedPrecondition, "Run: the session is closed")
	}
	n := len(feeds)
	inputs := make([]C.TF_Output, 0, n)
	// Arrays of pointers live in C memory: cgo forbids passing Go memory
	// that holds Go pointers, and TF_Tensor* values count as such here.
	inputValues := cArray(n)
	defer C.free(unsafe.Pointer(inputValues))
	values := unsafe.Slice((**C.TF_Tensor)(inputValues), n)
	for o, t := range feeds {
		if err := s.check(o); err != nil {
			return nil, err
		}
		if t == nil || t.c == nil {
			return nil, errorf(InvalidArgument, "Run: the tensor fed to %v is nil or closed", o)
		}
		values[len(inputs)] = t.c
		inputs = append(inputs, o.c())
	}
	outputs := make([]C.TF_Output, len(fetches))
	for i, o := range fetches {
		if err := s.check(o); err != nil {
			return nil, err
		}
		outputs[i] = o.c()
	}
	outputValues := cArray(len(fetches))
	defer C.free(unsafe.Pointer(outputValues))
	results := unsafe.Slice((**C.TF_Tensor)(outputValues), len(fetches))
	for i := range results {
		results[i] = nil
	}
	targetOps := cArray(len(targets))
	defer C.free(unsafe.Pointer(targetOps))
	ops := unsafe.Slice((**C.TF_Operation)(targetOps), len(targets))
	for i, op := range targets {
		if op == nil || op.graph != s.graph {
			return nil, errorf(InvalidArgument, "Run: target %d is nil or of another graph", i)
		}
		ops[i] = op.c
	}

	st := newStatus()
	defer st.delete()
	C.TF_SessionRun(h.session, nil, outputPtr(inputs), (**C.TF_Tensor)(inputValues), C.int(n),
		outputPtr(outputs), (**C.TF_Tensor)(outputValues), C.int(len(fetches)),
		(**C.TF_Operation)(targetOps), C.int(len(targets)), nil, st.c)
	runtime.KeepAlive(h)
	runtime.KeepAlive(feeds)
	if err := st.err(); err != nil {
		for _, r := range results {
			C.TF_DeleteTensor(r)
		}
		return nil, err
	}
	out := make([]*Tensor, len(fetches))
	for i, r := range results {
		out[i] = newTensorFromC(r)
	}
	return out, nil
}

// check refuses outputs of other graphs: their operations would be
// dangling pointers to the session.
func (s *Session) check(o Output) error {
	if o.Op == nil || o.Op.graph != s.graph {
		return errorf(InvalidArgument, "Run: output %v is not of this session's graph", o)
	}
	return nil
}

// Close closes and frees the session and its graph; idempotent.
func (s *Session) Close() error { return s.graph.handles.close() }

func outputPtr(outputs []C.TF_Output) *C.TF_Output {
	if len(outputs) == 0 {
		return nil
	}
	return &outputs[0]
}
