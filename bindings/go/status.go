package tfd

// #include "tensorflow/c/tf_status.h"
import "C"

import (
	"errors"
	"fmt"
)

// Code is a status code of the C API (TF_Code), with TensorFlow's numbers.
type Code int

// The codes, as TF_Code numbers them.
const (
	OK                 Code = 0
	Cancelled          Code = 1
	Unknown            Code = 2
	InvalidArgument    Code = 3
	DeadlineExceeded   Code = 4
	NotFound           Code = 5
	AlreadyExists      Code = 6
	PermissionDenied   Code = 7
	ResourceExhausted  Code = 8
	FailedPrecondition Code = 9
	Aborted            Code = 10
	OutOfRange         Code = 11
	Unimplemented      Code = 12
	Internal           Code = 13
	Unavailable        Code = 14
	DataLoss           Code = 15
	Unauthenticated    Code = 16
)

var codeNames = [...]string{
	"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED",
	"NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED",
	"FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED",
	"INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED",
}

// String is the code's TensorFlow name, e.g. "INVALID_ARGUMENT".
func (c Code) String() string {
	if c >= 0 && int(c) < len(codeNames) {
		return codeNames[c]
	}
	return fmt.Sprintf("Code(%d)", int(c))
}

// Error is an error reported by tfd, with its status code.
type Error struct {
	code  Code
	msg   string
	cause error // what made a Go-side error, e.g. a context's Err()
}

// Error is "CODE: message".
func (e *Error) Error() string { return e.code.String() + ": " + e.msg }

// Code is the status code.
func (e *Error) Code() Code { return e.code }

// Message is the text without the code.
func (e *Error) Message() string { return e.msg }

// Unwrap is the Go error behind this one, if any, so that
// errors.Is(err, context.Canceled) holds for a cancelled Fit.
func (e *Error) Unwrap() error { return e.cause }

// CodeOf is the code of err: OK for nil, the code of the first *Error in
// err's chain, Unknown for any other error.
func CodeOf(err error) Code {
	if err == nil {
		return OK
	}
	var e *Error
	if errors.As(err, &e) {
		return e.code
	}
	return Unknown
}

func errorf(code Code, format string, args ...interface{}) error {
	return &Error{code: code, msg: fmt.Sprintf(format, args...)}
}

// status owns a TF_Status for one call into the C API.
type status struct{ c *C.TF_Status }

func newStatus() *status { return &status{c: C.TF_NewStatus()} }

func (s *status) delete() { C.TF_DeleteStatus(s.c) }

// err is nil for TF_OK, else an *Error with the status's code and message.
func (s *status) err() error {
	code := Code(C.TF_GetCode(s.c))
	if code == OK {
		return nil
	}
	return &Error{code: code, msg: C.GoString(C.TF_Message(s.c))}
}
