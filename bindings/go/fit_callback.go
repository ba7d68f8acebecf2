package tfd

// #include <stdint.h>
import "C"

import (
	"runtime/cgo"
	"unsafe"
)

// tfdFitCallback is TFD_ModelFit's callback (see fit.go). It returns 1 to
// stop: when the context is done, the Go callback asks to, or it panicked
// (a panic must not unwind through C; Fit raises it again).
//
//export tfdFitCallback
func tfdFitCallback(userData unsafe.Pointer, epoch C.int, step C.int64_t, epochEnd C.int,
	names **C.char, values *C.double, numValues C.int) (stop C.int) {
	state := cgo.Handle(uintptr(userData)).Value().(*fitState)
	if state.didPanic || state.ctx.Err() != nil {
		return 1
	}
	defer func() {
		if r := recover(); r != nil {
			state.panicked, state.didPanic = r, true
			stop = 1
		}
	}()
	n := int(numValues)
	logs := make(map[string]float64, n)
	if n > 0 {
		nameList := unsafe.Slice(names, n)
		valueList := unsafe.Slice(values, n)
		for i := 0; i < n; i++ {
			logs[C.GoString(nameList[i])] = float64(valueList[i])
		}
	}
	if epochEnd != 0 {
		state.history = append(state.history, logs)
	}
	if state.callback != nil && state.callback(int(epoch), int64(step), epochEnd != 0, logs) {
		return 1
	}
	if state.ctx.Err() != nil {
		return 1
	}
	return 0
}
