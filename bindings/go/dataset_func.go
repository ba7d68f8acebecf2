package tfd

// #include <stdint.h>
// #include <stdlib.h>
// #include "tfd/c_api.h"
import "C"

import (
	"fmt"
	"runtime"
	"runtime/cgo"
	"unsafe"
)

// InputContext is where a worker's input pipeline stands in the job, as
// tf.distribute.InputContext: NumInputPipelines is the number of workers
// and InputPipelineID this worker's index (TensorFlow's own DatasetCreator
// gets 1 and 0 under parameter servers; tfd tells the worker's place so
// that the function can shard by it).
type InputContext struct {
	NumInputPipelines int
	InputPipelineID   int
}

// DatasetFunc makes a worker's dataset of (x, y) batches, as the
// dataset_fn of TensorFlow's DatasetCreator. It returns a new Dataset,
// which the server takes over: the Dataset is closed for the caller once
// the function returns, so return a fresh one each call. Its error (an
// *Error keeps its code; any other error is Unknown) fails the chief's
// call that made the workers' iterators.
type DatasetFunc func(ctx InputContext) (*Dataset, error)

// tfdDatasetFunc is TFD_ModelServeTrainStepsFromFunction's dataset
// function (see server.go): it runs the DatasetFunc behind the handle on
// a thread of the server. A panic must not unwind through C, and no Go
// caller waits for this call, so a panic becomes an Internal error.
//
//export tfdDatasetFunc
func tfdDatasetFunc(handle C.uintptr_t, numInputPipelines, inputPipelineID C.int,
	status *C.TF_Status) (dataset *C.TFD_Dataset) {
	defer func() {
		if r := recover(); r != nil {
			setStatus(status, errorf(Internal, "the dataset function panicked: %v", r))
			dataset = nil
		}
	}()
	fn := cgo.Handle(handle).Value().(DatasetFunc)
	d, err := fn(InputContext{int(numInputPipelines), int(inputPipelineID)})
	if err != nil {
		setStatus(status, err)
		return nil
	}
	c, err := d.takeOver()
	if err != nil {
		setStatus(status, err)
		return nil
	}
	return c
}

// takeOver hands the native dataset to the caller, which then owns it,
// and leaves d closed.
func (d *Dataset) takeOver() (*C.TFD_Dataset, error) {
	if d == nil {
		return nil, errorf(InvalidArgument, "the dataset function returned a nil Dataset")
	}
	if d.c == nil {
		return nil, errorf(FailedPrecondition, "the dataset function returned a closed Dataset")
	}
	c := d.c
	d.c = nil
	runtime.SetFinalizer(d, nil)
	return c, nil
}

// setStatus writes err into a TF_Status that C handed to Go: an *Error's
// code and message, Unknown and the text of any other error.
func setStatus(status *C.TF_Status, err error) {
	message := err.Error()
	if e, ok := err.(*Error); ok {
		message = e.Message()
	} else if CodeOf(err) == Unknown {
		message = fmt.Sprintf("the dataset function failed: %v", err)
	}
	code := CodeOf(err)
	if code == OK {
		code = Unknown
	}
	text := C.CString(message)
	defer C.free(unsafe.Pointer(text))
	C.TF_SetStatus(status, C.TF_Code(code), text)
}
