package tfd

// #include <stdlib.h>
// #include "tfd/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// SaveCheckpoint writes tf.train.Checkpoint(model=, optimizer=)'s files
// under "<filePrefix>-<n>" and records them in the directory's checkpoint
// state file; it returns the prefix written.
func (m *Model) SaveCheckpoint(filePrefix string) (string, error) {
	c, err := m.open("SaveCheckpoint")
	if err != nil {
		return "", err
	}
	prefix := C.CString(filePrefix)
	defer C.free(unsafe.Pointer(prefix))
	s := newStatus()
	defer s.delete()
	buf := C.TFD_ModelSaveCheckpoint(c, prefix, s.c)
	runtime.KeepAlive(m)
	defer C.TF_DeleteBuffer(buf)
	if err := s.err(); err != nil {
		return "", err
	}
	return C.GoStringN((*C.char)(buf.data), C.int(buf.length)), nil
}

// RestoreCheckpoint reads a checkpoint ("dir/ckpt-3", tfd's or
// TensorFlow's) into the model's variables, and the optimizer's once the
// model is compiled.
func (m *Model) RestoreCheckpoint(prefix string) error {
	c, err := m.open("RestoreCheckpoint")
	if err != nil {
		return err
	}
	p := C.CString(prefix)
	defer C.free(unsafe.Pointer(p))
	s := newStatus()
	defer s.delete()
	C.TFD_ModelRestoreCheckpoint(c, p, s.c)
	runtime.KeepAlive(m)
	return s.err()
}

// ExportSavedModel writes a SavedModel (tag "serve", signature
// "serving_default") that LoadSavedModel, TensorFlow and TF Serving load.
func (m *Model) ExportSavedModel(exportDir string) error {
	c, err := m.open("ExportSavedModel")
	if err != nil {
		return err
	}
	dir := C.CString(exportDir)
	defer C.free(unsafe.Pointer(dir))
	s := newStatus()
	defer s.delete()
	C.TFD_ModelExportSavedModel(c, dir, s.c)
	runtime.KeepAlive(m)
	return s.err()
}
