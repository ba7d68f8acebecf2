// Package tfd is the Go binding of tfd, a distributed training runtime with
// a TensorFlow-compatible C API (libtfd.so).
//
// It is shaped like TensorFlow's Go package: NewTensor makes a tensor from
// a Go scalar or (nested) slice, Tensor.Value gives it back. Every value
// that owns native memory has an idempotent Close, with a finalizer as a
// safety net; errors are *Error values that keep the C API's status code.
//
// Building needs the C headers and the library, e.g.
//
//	CGO_CFLAGS=-I/path/to/tfd/c_api/include
//	CGO_LDFLAGS="-L/path/to/lib -Wl,-rpath,/path/to/lib"
package tfd

// #cgo LDFLAGS: -ltfd
// #include "tensorflow/c/c_api.h"
// #include "tfd/c_api.h"
import "C"

// Version is tfd's semantic version (TFD_Version), e.g. "0.1.0".
func Version() string {
	return C.GoString(C.TFD_Version())
}

// TensorFlowVersion is the TensorFlow C API version libtfd implements
// (TF_Version), e.g. "2.21.0+tfd.0.1.0".
func TensorFlowVersion() string {
	return C.GoString(C.TF_Version())
}
