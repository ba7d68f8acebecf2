package tfd

// Signature is a SignatureDef of a SavedModel: its named inputs and
// outputs, as TensorFlow's Go package has it. Feed and fetch the tensors
// by TensorInfo.Name ("op:index"), e.g. through Graph.Output.
type Signature struct {
	Inputs     map[string]TensorInfo
	Outputs    map[string]TensorInfo
	MethodName string // e.g. "tensorflow/serving/predict"
}

// TensorInfo describes one input or output of a Signature.
type TensorInfo struct {
	Name  string   // "op:index" in the graph
	DType DataType // 0 when not recorded
	Shape []int64  // -1 for an unknown size; nil for an unknown rank, empty for a scalar
}

// Field numbers of the messages read here (TensorFlow's meta_graph.proto
// and tensor_shape.proto).
const (
	metaGraphSignatureDef = 5
	signatureInputs       = 1
	signatureOutputs      = 2
	signatureMethodName   = 3
	mapKey                = 1
	mapValue              = 2
	tensorInfoName        = 1
	tensorInfoDType       = 2
	tensorInfoShape       = 3
	shapeDim              = 2
	shapeUnknownRank      = 3
	shapeDimSize          = 1
)

// parseSignatures reads the signature_def map of a serialized MetaGraphDef.
func parseSignatures(metaGraphDef []byte) (map[string]Signature, error) {
	out := map[string]Signature{}
	err := forEachField(metaGraphDef, func(f protoField) error {
		if f.number != metaGraphSignatureDef {
			return nil
		}
		key, value, err := parseMapEntry(f.bytes)
		if err != nil {
			return err
		}
		sig, err := parseSignature(value)
		if err != nil {
			return err
		}
		out[key] = sig
		return nil
	})
	if err != nil {
		return nil, errorf(DataLoss, "MetaGraphDef: %v", err)
	}
	return out, nil
}

func parseSignature(b []byte) (Signature, error) {
	sig := Signature{Inputs: map[string]TensorInfo{}, Outputs: map[string]TensorInfo{}}
	err := forEachField(b, func(f protoField) error {
		switch f.number {
		case signatureInputs, signatureOutputs:
			key, value, err := parseMapEntry(f.bytes)
			if err != nil {
				return err
			}
			info, err := parseTensorInfo(value)
			if err != nil {
				return err
			}
			if f.number == signatureInputs {
				sig.Inputs[key] = info
			} else {
				sig.Outputs[key] = info
			}
		case signatureMethodName:
			sig.MethodName = string(f.bytes)
		}
		return nil
	})
	return sig, err
}

func parseTensorInfo(b []byte) (TensorInfo, error) {
	var info TensorInfo
	err := forEachField(b, func(f protoField) error {
		switch f.number {
		case tensorInfoName:
			info.Name = string(f.bytes)
		case tensorInfoDType:
			info.DType = DataType(f.varint)
		case tensorInfoShape:
			shape, err := parseShape(f.bytes)
			info.Shape = shape
			return err
		}
		return nil
	})
	return info, err
}

func parseShape(b []byte) ([]int64, error) {
	shape := []int64{}
	unknownRank := false
	err := forEachField(b, func(f protoField) error {
		switch f.number {
		case shapeDim:
			size := int64(0)
			err := forEachField(f.bytes, func(d protoField) error {
				if d.number == shapeDimSize {
					size = int64(d.varint)
				}
				return nil
			})
			shape = append(shape, size)
			return err
		case shapeUnknownRank:
			unknownRank = f.varint != 0
		}
		return nil
	})
	if unknownRank {
		return nil, err
	}
	return shape, err
}

// parseMapEntry reads a map<string, message> entry.
func parseMapEntry(b []byte) (key string, value []byte, err error) {
	err = forEachField(b, func(f protoField) error {
		switch f.number {
		case mapKey:
			key = string(f.bytes)
		case mapValue:
			value = f.bytes
		}
		return nil
	})
	return key, value, err
}
