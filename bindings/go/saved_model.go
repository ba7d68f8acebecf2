package tfd

// #include <stdlib.h>
// #include "tensorflow/c/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// SavedModel is a SavedModel loaded for inference, as TensorFlow's Go
// package has it: run it through Session, find nodes in Graph, and the
// input and output names in Signatures ("serving_default", ...).
type SavedModel struct {
	Session    *Session
	Graph      *Graph
	Signatures map[string]Signature
}

// LoadSavedModel loads the MetaGraphDef of exportDir tagged with tags
// (usually []string{"serve"}). options may be nil. Close the Session when
// done. Errors: NotFound for a missing directory or tag set, DataLoss
// for corrupt files, Unimplemented for options tfd does not have.
func LoadSavedModel(exportDir string, tags []string, options *SessionOptions) (*SavedModel, error) {
	if options != nil && (options.Target != "" || len(options.Config) != 0) {
		return nil, errorf(Unimplemented, "LoadSavedModel: session targets and configs are not supported; tfd runs in-process")
	}
	dir := C.CString(exportDir)
	defer C.free(unsafe.Pointer(dir))
	ctags := cStrings(tags)
	defer ctags.free()
	opts := C.TF_NewSessionOptions()
	defer C.TF_DeleteSessionOptions(opts)
	graph := C.TF_NewGraph()
	metaGraph := C.TF_NewBuffer()
	defer C.TF_DeleteBuffer(metaGraph)
	s := newStatus()
	defer s.delete()
	c := C.TF_LoadSessionFromSavedModel(opts, nil, dir, ctags.array, C.int(len(tags)), graph,
		metaGraph, s.c)
	if err := s.err(); err != nil {
		C.TF_DeleteGraph(graph)
		return nil, err
	}
	handles := &modelHandles{session: c, graph: graph}
	runtime.SetFinalizer(handles, (*modelHandles).close)
	signatures, err := parseSignatures(C.GoBytes(metaGraph.data, C.int(metaGraph.length)))
	if err != nil {
		handles.close()
		return nil, err
	}
	g := &Graph{handles: handles}
	return &SavedModel{Session: &Session{graph: g}, Graph: g, Signatures: signatures}, nil
}
