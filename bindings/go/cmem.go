package tfd

// #include <stdlib.h>
import "C"

import "unsafe"

// Arrays handed to C that hold pointers live in C memory: cgo forbids
// passing Go memory that holds Go pointers, and checks it at run time.

// cArray is zeroed C memory for n pointers (room for one at least, so it
// is never NULL); the caller frees it.
func cArray(n int) unsafe.Pointer {
	if n == 0 {
		n = 1
	}
	return C.calloc(C.size_t(n), C.size_t(unsafe.Sizeof(uintptr(0))))
}

// cStringArray is a C array of C strings, for `const char* const*`.
type cStringArray struct {
	array **C.char
	list  []*C.char
}

func cStrings(strings []string) cStringArray {
	array := (**C.char)(cArray(len(strings)))
	list := unsafe.Slice(array, len(strings))
	for i, s := range strings {
		list[i] = C.CString(s)
	}
	return cStringArray{array: array, list: list}
}

func (a cStringArray) free() {
	for _, p := range a.list {
		C.free(unsafe.Pointer(p))
	}
	C.free(unsafe.Pointer(a.array))
}
