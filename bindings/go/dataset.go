package tfd

// #include <stdlib.h>
// #include "tfd/c_api.h"
import "C"

import (
	"runtime"
	"unsafe"
)

// Dataset is an input pipeline (tf.data) of (features, labels) elements.
// It is immutable: Shuffle, Batch, Repeat and Take return a new Dataset
// that keeps its input alive, so the input may be closed first.
type Dataset struct {
	c *C.TFD_Dataset
}

func newDataset(c *C.TFD_Dataset, s *status) (*Dataset, error) {
	if err := s.err(); err != nil {
		C.TFD_DeleteDataset(c)
		return nil, err
	}
	d := &Dataset{c: c}
	runtime.SetFinalizer(d, (*Dataset).Close)
	return d, nil
}

// NewDatasetFromTensors is from_tensor_slices: element i is
// (tensors[0][i], tensors[1][i], ...). The tensors' contents are shared
// with the dataset, which stays valid after they are closed.
func NewDatasetFromTensors(tensors ...*Tensor) (*Dataset, error) {
	if len(tensors) == 0 {
		return nil, errorf(InvalidArgument, "NewDatasetFromTensors: no tensors")
	}
	array := (**C.TF_Tensor)(cArray(len(tensors)))
	defer C.free(unsafe.Pointer(array))
	list := unsafe.Slice(array, len(tensors))
	for i, t := range tensors {
		if t == nil || t.c == nil {
			return nil, errorf(InvalidArgument, "NewDatasetFromTensors: tensor %d is nil or closed", i)
		}
		list[i] = t.c
	}
	s := newStatus()
	defer s.delete()
	c := C.TFD_NewDatasetFromTensors(array, C.int(len(tensors)), s.c)
	runtime.KeepAlive(tensors)
	return newDataset(c, s)
}

// NewDatasetFromIdx reads (image, label) pairs from IDX files (MNIST,
// Fashion-MNIST; gzipped or not). With scale != 0 the images become Float
// times scale. Errors: NotFound for a missing file, DataLoss for a corrupt
// one.
func NewDatasetFromIdx(imagesPath, labelsPath string, scale float64) (*Dataset, error) {
	images := C.CString(imagesPath)
	defer C.free(unsafe.Pointer(images))
	labels := C.CString(labelsPath)
	defer C.free(unsafe.Pointer(labels))
	s := newStatus()
	defer s.delete()
	return newDataset(C.TFD_NewDatasetFromIdx(images, labels, C.double(scale), s.c), s)
}

// FixedLenFeature is a feature of NewDatasetFromTFRecord: Key of type
// DType (Float or Int64) and fixed Shape (empty for a scalar).
type FixedLenFeature struct {
	Key   string
	DType DataType
	Shape []int64
}

// NewDatasetFromTFRecord reads tf.train.Example records from TFRecord
// files and parses them as fixed-length features: each element holds the
// features in order. Missing files and corrupt records are reported while
// iterating (NotFound, DataLoss), as tf.data does.
func NewDatasetFromTFRecord(filenames []string, features []FixedLenFeature) (*Dataset, error) {
	files := cStrings(filenames)
	defer files.free()
	keys := make([]string, len(features))
	for i, f := range features {
		keys[i] = f.Key
	}
	ckeys := cStrings(keys)
	defer ckeys.free()
	n := len(features)
	// Every array lives in C memory: the shapes array holds pointers.
	types := (*C.TF_DataType)(C.calloc(C.size_t(n+1), C.size_t(unsafe.Sizeof(C.TF_DataType(0)))))
	defer C.free(unsafe.Pointer(types))
	ranks := (*C.int)(C.calloc(C.size_t(n+1), C.size_t(unsafe.Sizeof(C.int(0)))))
	defer C.free(unsafe.Pointer(ranks))
	shapes := (**C.int64_t)(cArray(n))
	defer C.free(unsafe.Pointer(shapes))
	typeList, rankList := unsafe.Slice(types, n), unsafe.Slice(ranks, n)
	shapeList := unsafe.Slice(shapes, n)
	for i, f := range features {
		typeList[i] = C.TF_DataType(f.DType)
		rankList[i] = C.int(len(f.Shape))
		if len(f.Shape) > 0 {
			dims := (*C.int64_t)(C.malloc(C.size_t(len(f.Shape)) * 8))
			defer C.free(unsafe.Pointer(dims))
			copy(unsafe.Slice((*int64)(unsafe.Pointer(dims)), len(f.Shape)), f.Shape)
			shapeList[i] = dims
		}
	}
	s := newStatus()
	defer s.delete()
	return newDataset(C.TFD_NewDatasetFromTFRecord(files.array, C.int(len(filenames)), ckeys.array,
		types, shapes, ranks, C.int(n), s.c), s)
}

// transform applies one C transform to an open dataset.
func (d *Dataset) transform(name string, f func(*C.TFD_Dataset, *C.TF_Status) *C.TFD_Dataset) (*Dataset, error) {
	if d.c == nil {
		return nil, errorf(FailedPrecondition, "%s: the dataset is closed", name)
	}
	s := newStatus()
	defer s.delete()
	c := f(d.c, s.c)
	runtime.KeepAlive(d)
	return newDataset(c, s)
}

// Shuffle keeps a buffer of bufferSize elements; deterministic for a
// nonzero seed; a new order each epoch when reshuffle is true.
func (d *Dataset) Shuffle(bufferSize int64, seed uint64, reshuffle bool) (*Dataset, error) {
	return d.transform("Shuffle", func(c *C.TFD_Dataset, s *C.TF_Status) *C.TFD_Dataset {
		return C.TFD_DatasetShuffle(c, C.int64_t(bufferSize), C.uint64_t(seed), cBool(reshuffle), s)
	})
}

// Batch groups batchSize elements; the last batch is short unless
// dropRemainder.
func (d *Dataset) Batch(batchSize int64, dropRemainder bool) (*Dataset, error) {
	return d.transform("Batch", func(c *C.TFD_Dataset, s *C.TF_Status) *C.TFD_Dataset {
		return C.TFD_DatasetBatch(c, C.int64_t(batchSize), cBool(dropRemainder), s)
	})
}

// Repeat makes count passes; -1 for ever.
func (d *Dataset) Repeat(count int64) (*Dataset, error) {
	return d.transform("Repeat", func(c *C.TFD_Dataset, s *C.TF_Status) *C.TFD_Dataset {
		return C.TFD_DatasetRepeat(c, C.int64_t(count), s)
	})
}

// Take keeps the first count elements; -1 for all.
func (d *Dataset) Take(count int64) (*Dataset, error) {
	return d.transform("Take", func(c *C.TFD_Dataset, s *C.TF_Status) *C.TFD_Dataset {
		return C.TFD_DatasetTake(c, C.int64_t(count), s)
	})
}

// Shard is tf.data's shard: every numShards-th element, starting with
// element index (0 <= index < numShards), e.g. a worker's part of the data
// in a DatasetFunc.
func (d *Dataset) Shard(numShards, index int64) (*Dataset, error) {
	return d.transform("Shard", func(c *C.TFD_Dataset, s *C.TF_Status) *C.TFD_Dataset {
		return C.TFD_DatasetShard(c, C.int64_t(numShards), C.int64_t(index), s)
	})
}

// Cardinality is the number of elements: -1 when infinite, -2 when
// unknown, as tf.data's.
func (d *Dataset) Cardinality() (int64, error) {
	if d.c == nil {
		return 0, errorf(FailedPrecondition, "Cardinality: the dataset is closed")
	}
	s := newStatus()
	defer s.delete()
	n := int64(C.TFD_DatasetCardinality(d.c, s.c))
	runtime.KeepAlive(d)
	return n, s.err()
}

// Close frees the native dataset; idempotent, always nil.
func (d *Dataset) Close() error {
	if d.c != nil {
		C.TFD_DeleteDataset(d.c)
		d.c = nil
		runtime.SetFinalizer(d, nil)
	}
	return nil
}

func cBool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}
