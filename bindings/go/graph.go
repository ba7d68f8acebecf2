package tfd

// #include <stdlib.h>
// #include "tensorflow/c/c_api.h"
import "C"

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"unsafe"
)

// Graph is the graph of a loaded SavedModel (a TF_Graph). It belongs to
// the SavedModel: closing the Session frees it too.
type Graph struct {
	handles *modelHandles
}

// modelHandles own the native session and graph of one SavedModel. The
// Session, the Graph and every Operation reach them, so the finalizer runs
// only once none of those is reachable.
type modelHandles struct {
	session *C.TF_Session
	graph   *C.TF_Graph
}

// close closes and frees the session, then the graph; idempotent.
func (h *modelHandles) close() error {
	if h.session == nil {
		return nil
	}
	s := newStatus()
	defer s.delete()
	C.TF_CloseSession(h.session, s.c)
	err := s.err()
	C.TF_DeleteSession(h.session, s.c)
	if err == nil {
		err = s.err()
	}
	C.TF_DeleteGraph(h.graph)
	h.session, h.graph = nil, nil
	runtime.SetFinalizer(h, nil)
	return err
}

// Operation is a node of a Graph.
type Operation struct {
	c     *C.TF_Operation
	graph *Graph
}

// Output is the index-th output of an operation: what Session.Run feeds
// and fetches.
type Output struct {
	Op    *Operation
	Index int
}

// Operation is the node named name, or nil when the graph has none.
func (g *Graph) Operation(name string) *Operation {
	if g.handles.graph == nil {
		return nil
	}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	op := C.TF_GraphOperationByName(g.handles.graph, cname)
	runtime.KeepAlive(g.handles)
	if op == nil {
		return nil
	}
	return &Operation{c: op, graph: g}
}

// Output resolves a TensorInfo-style name, "op:index" or "op" (index 0).
// Errors: InvalidArgument for a bad index, NotFound for a missing op.
func (g *Graph) Output(name string) (Output, error) {
	op, index := name, 0
	if i := strings.LastIndexByte(name, ':'); i >= 0 {
		n, err := strconv.Atoi(name[i+1:])
		if err != nil || n < 0 {
			return Output{}, errorf(InvalidArgument, "output name %q: the index after ':' must be an int >= 0", name)
		}
		op, index = name[:i], n
	}
	o := g.Operation(op)
	if o == nil {
		return Output{}, errorf(NotFound, "the graph has no operation named %q", op)
	}
	return o.Output(index), nil
}

// Name is the operation's name in the graph; "" once the session is closed.
func (op *Operation) Name() string {
	if op.graph.handles.graph == nil {
		return ""
	}
	name := C.GoString(C.TF_OperationName(op.c))
	runtime.KeepAlive(op.graph.handles)
	return name
}

// Output is the operation's index-th output.
func (op *Operation) Output(index int) Output {
	return Output{Op: op, Index: index}
}

// String is "op:index".
func (o Output) String() string {
	if o.Op == nil {
		return fmt.Sprintf("<nil>:%d", o.Index)
	}
	return fmt.Sprintf("%s:%d", o.Op.Name(), o.Index)
}

func (o Output) c() C.TF_Output {
	return C.TF_Output{oper: o.Op.c, index: C.int(o.Index)}
}
