package tfd

import (
	"reflect"
	"testing"
)

// exportSmall exports a Dense(3) model over 4 features to a new directory
// and loads it back.
func exportSmall(t *testing.T) (*SavedModel, Output, Output) {
	t.Helper()
	dir := t.TempDir()
	m, err := NewSequential(nil, "small")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Add(Input(Float, 4), Dense(3, "", nil)); err != nil {
		t.Fatal(err)
	}
	if err := m.ExportSavedModel(dir); err != nil {
		t.Fatal(err)
	}
	saved, err := LoadSavedModel(dir, []string{"serve"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	serving := saved.Signatures["serving_default"]
	var in, out Output
	for _, info := range serving.Inputs {
		in, err = saved.Graph.Output(info.Name)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, info := range serving.Outputs {
		out, err = saved.Graph.Output(info.Name)
	}
	if err != nil {
		t.Fatal(err)
	}
	return saved, in, out
}

func TestSessionRunsFeedsFetchesAndTargets(t *testing.T) {
	saved, in, out := exportSmall(t)
	defer saved.Session.Close()
	x := mustTensor(t, [][]float32{{1, 2, 3, 4}, {0, 0, 0, 0}})
	defer x.Close()
	results, err := saved.Session.Run(map[Output]*Tensor{in: x}, []Output{out, out}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer results[0].Close()
	defer results[1].Close()
	first := results[0].Value().([][]float32)
	if !reflect.DeepEqual(first[1], []float32{0, 0, 0}) {
		t.Errorf("a zero input gives %v, want the zero bias", first[1])
	}
	if !reflect.DeepEqual(first, results[1].Value()) {
		t.Errorf("two fetches of one output differ")
	}
	if op := in.Op.Name(); op == "" || saved.Graph.Operation(op) == nil {
		t.Errorf("operation %q is not found by its name", op)
	}
	if got, err := saved.Session.Run(map[Output]*Tensor{in: x}, nil, []*Operation{out.Op}); err != nil || len(got) != 0 {
		t.Errorf("a run with a target only: %v, %v", got, err)
	}
}

func TestBadRunsReturnErrors(t *testing.T) {
	saved, in, out := exportSmall(t)
	other, otherIn, _ := exportSmall(t)
	defer other.Session.Close()
	x := mustTensor(t, [][]float32{{1, 2, 3, 4}})
	defer x.Close()
	ints := mustTensor(t, [][]int32{{1, 2, 3, 4}})
	defer ints.Close()

	if _, err := saved.Session.Run(map[Output]*Tensor{otherIn: x}, []Output{out}, nil); CodeOf(err) != InvalidArgument {
		t.Errorf("an output of another graph: %v", err)
	}
	if _, err := saved.Session.Run(map[Output]*Tensor{in: ints}, []Output{out}, nil); CodeOf(err) != InvalidArgument {
		t.Errorf("an int32 feed for a float input: %v", err)
	}
	if _, err := saved.Session.Run(map[Output]*Tensor{in: nil}, []Output{out}, nil); CodeOf(err) != InvalidArgument {
		t.Errorf("a nil feed: %v", err)
	}
	if _, err := saved.Graph.Output("no_such_op:0"); CodeOf(err) != NotFound {
		t.Errorf("a missing operation: %v", err)
	}
	if _, err := saved.Graph.Output(in.Op.Name() + ":x"); CodeOf(err) != InvalidArgument {
		t.Errorf("a bad output index: %v", err)
	}
	if err := saved.Session.Close(); err != nil {
		t.Fatal(err)
	}
	if err := saved.Session.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := saved.Session.Run(map[Output]*Tensor{in: x}, []Output{out}, nil); CodeOf(err) != FailedPrecondition {
		t.Errorf("Run after Close: %v", err)
	}
	if saved.Graph.Operation(in.Op.Name()) != nil || in.Op.Name() != "" {
		t.Errorf("the graph outlived its session")
	}
}

func TestLoadSavedModelChecksItsArguments(t *testing.T) {
	if _, err := LoadSavedModel(t.TempDir(), []string{"serve"}, &SessionOptions{Target: "grpc://host:8500"}); CodeOf(err) != Unimplemented {
		t.Errorf("session target: %v", err)
	}
	if _, err := LoadSavedModel(t.TempDir(), []string{"serve"}, nil); CodeOf(err) != NotFound {
		t.Errorf("an empty directory: %v", err)
	}
}
