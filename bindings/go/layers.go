package tfd

// #include <stdlib.h>
// #include "tfd/c_api.h"
import "C"

import "unsafe"

// Layer is a Keras layer for Model.Add, made by Input, Dense, Conv2D, ...
// Only a description: adding it creates the layer and its weights inside
// the model. Arguments not in a function's signature go in Options with
// Keras's names ("use_bias", "kernel_initializer", "strides", "padding",
// "name", ...); an activation is a Keras name ("relu", ...) or "" for
// linear.
type Layer struct {
	name  string
	addTo func(m *C.TFD_Model, s *status) error
}

// String is the layer's Keras class name, e.g. "Dense".
func (l Layer) String() string { return l.name }

// withOptions runs add with native options made from o.
func withOptions(o Options, add func(*C.TFD_Options)) error {
	opts, err := o.toC()
	if err != nil {
		return err
	}
	defer C.TFD_DeleteOptions(opts)
	add(opts)
	return nil
}

// cString is NULL for "", so that "" means "not given" (linear activation,
// default name).
func cString(s string) *C.char {
	if s == "" {
		return nil
	}
	return C.CString(s)
}

func int64Ptr(v []int64) *C.int64_t {
	if len(v) == 0 {
		return nil
	}
	return (*C.int64_t)(unsafe.Pointer(&v[0]))
}

// Input declares the input of one example (no batch dimension); it comes first.
func Input(dtype DataType, shape ...int64) Layer {
	dims := append([]int64(nil), shape...)
	return Layer{"Input", func(m *C.TFD_Model, s *status) error {
		C.TFD_AddInput(m, int64Ptr(dims), C.int(len(dims)), C.TF_DataType(dtype), s.c)
		return s.err()
	}}
}

// Dense is a fully connected layer.
func Dense(units int64, activation string, options Options) Layer {
	return Layer{"Dense", func(m *C.TFD_Model, s *status) error {
		act := cString(activation)
		defer C.free(unsafe.Pointer(act))
		if err := withOptions(options, func(o *C.TFD_Options) {
			C.TFD_AddDense(m, C.int64_t(units), act, o, s.c)
		}); err != nil {
			return err
		}
		return s.err()
	}}
}

// Conv2D is a 2-D convolution over NHWC inputs; kernelSize has 1 or 2 values.
func Conv2D(filters int64, kernelSize []int64, activation string, options Options) Layer {
	kernel := append([]int64(nil), kernelSize...)
	return Layer{"Conv2D", func(m *C.TFD_Model, s *status) error {
		act := cString(activation)
		defer C.free(unsafe.Pointer(act))
		if err := withOptions(options, func(o *C.TFD_Options) {
			C.TFD_AddConv2D(m, C.int64_t(filters), int64Ptr(kernel), C.int(len(kernel)), act, o, s.c)
		}); err != nil {
			return err
		}
		return s.err()
	}}
}

// MaxPooling2D pools poolSize windows (nil: 2x2).
func MaxPooling2D(poolSize []int64, options Options) Layer {
	pool := append([]int64(nil), poolSize...)
	return Layer{"MaxPooling2D", func(m *C.TFD_Model, s *status) error {
		if err := withOptions(options, func(o *C.TFD_Options) {
			C.TFD_AddMaxPooling2D(m, int64Ptr(pool), C.int(len(pool)), o, s.c)
		}); err != nil {
			return err
		}
		return s.err()
	}}
}

// AveragePooling2D pools poolSize windows (nil: 2x2).
func AveragePooling2D(poolSize []int64, options Options) Layer {
	pool := append([]int64(nil), poolSize...)
	return Layer{"AveragePooling2D", func(m *C.TFD_Model, s *status) error {
		if err := withOptions(options, func(o *C.TFD_Options) {
			C.TFD_AddAveragePooling2D(m, int64Ptr(pool), C.int(len(pool)), o, s.c)
		}); err != nil {
			return err
		}
		return s.err()
	}}
}

// GlobalAveragePooling2D averages over height and width.
func GlobalAveragePooling2D() Layer {
	return Layer{"GlobalAveragePooling2D", func(m *C.TFD_Model, s *status) error {
		C.TFD_AddGlobalAveragePooling2D(m, nil, s.c)
		return s.err()
	}}
}

// Flatten folds every dimension but the batch one into one.
func Flatten() Layer {
	return Layer{"Flatten", func(m *C.TFD_Model, s *status) error {
		C.TFD_AddFlatten(m, nil, s.c)
		return s.err()
	}}
}

// Reshape gives each example the shape targetShape.
func Reshape(targetShape ...int64) Layer {
	dims := append([]int64(nil), targetShape...)
	return Layer{"Reshape", func(m *C.TFD_Model, s *status) error {
		C.TFD_AddReshape(m, int64Ptr(dims), C.int(len(dims)), nil, s.c)
		return s.err()
	}}
}

// Dropout drops inputs at rate (in [0, 1)) while training.
func Dropout(rate float64, options Options) Layer {
	return Layer{"Dropout", func(m *C.TFD_Model, s *status) error {
		if err := withOptions(options, func(o *C.TFD_Options) {
			C.TFD_AddDropout(m, C.double(rate), o, s.c)
		}); err != nil {
			return err
		}
		return s.err()
	}}
}

// Activation applies a Keras activation by name.
func Activation(activation string) Layer { return ActivationWithOptions(activation, nil) }

// ActivationWithOptions is Activation with Keras's other arguments ("name",
// "dtype"): mixed-precision models end in
// ActivationWithOptions("softmax", Options{"dtype": "float32"}), as Keras
// advises.
func ActivationWithOptions(activation string, options Options) Layer {
	return Layer{"Activation", func(m *C.TFD_Model, s *status) error {
		act := C.CString(activation)
		defer C.free(unsafe.Pointer(act))
		if err := withOptions(options, func(o *C.TFD_Options) {
			C.TFD_AddActivation(m, act, o, s.c)
		}); err != nil {
			return err
		}
		return s.err()
	}}
}

// BatchNormalization normalizes with batch statistics while training;
// options: axis, momentum, epsilon, center, scale, synchronized.
func BatchNormalization(options Options) Layer {
	return Layer{"BatchNormalization", func(m *C.TFD_Model, s *status) error {
		if err := withOptions(options, func(o *C.TFD_Options) {
			C.TFD_AddBatchNormalization(m, o, s.c)
		}); err != nil {
			return err
		}
		return s.err()
	}}
}

// LayerFromKerasJSON is any layer tfd has, from its Keras JSON
// ({"class_name": "Conv1D", "config": {...}}).
func LayerFromKerasJSON(layerJSON string) Layer {
	return Layer{"LayerFromKerasJSON", func(m *C.TFD_Model, s *status) error {
		j := C.CString(layerJSON)
		defer C.free(unsafe.Pointer(j))
		C.TFD_AddLayerFromKerasJson(m, j, s.c)
		return s.err()
	}}
}
