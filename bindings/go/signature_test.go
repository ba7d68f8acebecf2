package tfd

import (
	"encoding/hex"
	"reflect"
	"testing"
)

// A MetaGraphDef serialized by TensorFlow 2.21's Python protobuf classes:
// tags ["serve"], a one-node graph and two signatures, "serving_default"
// (x: float [-1, 784] -> probs: float [-1, 10]) and
// "__saved_model_init_op" (an output of unknown rank).
const metaGraphHex = "0a072205736572766512050a030a01782a3e0a155f5f73617665645f6d6f64656c5f696e" +
	"69745f6f70122512230a155f5f73617665645f6d6f64656c5f696e69745f6f70120a0a044e6f4f701a" +
	"0218012a9d010a0f73657276696e675f64656661756c741289010a300a0178122b0a1373657276696e" +
	"675f64656661756c745f783a3010011a12120b08ffffffffffffffffff01120308900612390a057072" +
	"6f627312300a19537461746566756c506172746974696f6e656443616c6c3a3010011a11120b08ffff" +
	"ffffffffffffff011202080a1a1a74656e736f72666c6f772f73657276696e672f70726564696374"

func TestParseSignaturesReadsTensorFlowsEncoding(t *testing.T) {
	b, err := hex.DecodeString(metaGraphHex)
	if err != nil {
		t.Fatal(err)
	}
	sigs, err := parseSignatures(b)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Signature{
		"serving_default": {
			Inputs:     map[string]TensorInfo{"x": {"serving_default_x:0", Float, []int64{-1, 784}}},
			Outputs:    map[string]TensorInfo{"probs": {"StatefulPartitionedCall:0", Float, []int64{-1, 10}}},
			MethodName: "tensorflow/serving/predict",
		},
		"__saved_model_init_op": {
			Inputs:  map[string]TensorInfo{},
			Outputs: map[string]TensorInfo{"__saved_model_init_op": {"NoOp", 0, nil}},
		},
	}
	if !reflect.DeepEqual(sigs, want) {
		t.Errorf("parseSignatures =\n%#v\nwant\n%#v", sigs, want)
	}
}

func TestParseSignaturesRejectsCorruptBytes(t *testing.T) {
	b, _ := hex.DecodeString(metaGraphHex)
	for _, bad := range [][]byte{
		b[:len(b)-3],       // truncated inside a signature
		{0x2a, 0x05, 0x0a}, // a length past the end
		{0x2b},             // a group (wire type 3)
		{0x2a, 0x80},       // a truncated varint
		{0x02, 0x01},       // field number 0
	} {
		if _, err := parseSignatures(bad); CodeOf(err) != DataLoss {
			t.Errorf("parseSignatures(%x) = %v, want DATA_LOSS", bad, err)
		}
	}
	if sigs, err := parseSignatures(nil); err != nil || len(sigs) != 0 {
		t.Errorf("empty MetaGraphDef: %v, %v", sigs, err)
	}
}
