package tfd

// #include <stdlib.h>
// #include "tfd/c_api.h"
import "C"

import "unsafe"

// SetDefaultDevice makes `name` the process's default device, where ops
// run that no strategy replica or GPU input places (TFD_SetDefaultDevice;
// the TFD_DEFAULT_DEVICE environment variable says the same before the
// first op). "", "none" or "cpu" mean none (ops run on the host); "auto"
// means GPU:0 when the library was built with CUDA and the machine has a
// GPU, else none; otherwise a device name such as "/device:GPU:0" or
// "GPU:1". It is process-wide and applies to ops started after the call.
// Errors (the default is then unchanged): InvalidArgument naming `name`
// when it is not a device name or names a device this process lacks.
func SetDefaultDevice(name string) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	s := newStatus()
	defer s.delete()
	C.TFD_SetDefaultDevice(cname, s.c)
	return s.err()
}
