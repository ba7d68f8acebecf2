package tfd

import (
	"context"
	"math"
	"path/filepath"
	"testing"
)

const fashionMNIST = "/usr/share/datasets/fashion-mnist/"

// acceptanceImages are 32 deterministic images with pixels in [0, 1).
func acceptanceImages(t *testing.T) *Tensor {
	x := make([][][]float32, 32)
	state := uint64(12345)
	for i := range x {
		x[i] = make([][]float32, 28)
		for r := range x[i] {
			x[i][r] = make([]float32, 28)
			for c := range x[i][r] {
				state = state*6364136223846793005 + 1442695040888963407
				x[i][r][c] = float32(state>>40) / float32(1<<24)
			}
		}
	}
	return mustTensor(t, x)
}

// The binding end to end: the Fashion-MNIST MLP trains one epoch (on a
// slice of the data) under MirroredStrategy(2), is exported as a
// SavedModel, loaded back through LoadSavedModel, and serves the
// predictions the trained model makes, within 1e-6.
func TestFashionMNISTMirroredMLPServesTheTrainedModelsPredictions(t *testing.T) {
	exportDir := filepath.Join(t.TempDir(), "fashion_mnist_mlp", "1")
	mirrored, err := NewMirroredStrategy(2)
	if err != nil {
		t.Fatal(err)
	}
	defer mirrored.Close()
	model, err := NewSequential(mirrored, "fashion_mnist_mlp")
	if err != nil {
		t.Fatal(err)
	}
	defer model.Close()
	if err := model.Add(Input(Float, 28, 28), Flatten(), Dense(128, "relu", nil), Dense(10, "", nil)); err != nil {
		t.Fatal(err)
	}
	if err := model.Compile("adam", nil, "sparse_categorical_crossentropy",
		Options{"from_logits": true}, "accuracy"); err != nil {
		t.Fatal(err)
	}
	train, err := NewDatasetFromIdx(fashionMNIST+"train-images-idx3-ubyte.gz",
		fashionMNIST+"train-labels-idx1-ubyte.gz", 1.0/255)
	if err != nil {
		t.Fatal(err)
	}
	defer train.Close()
	slice, err := train.Take(1024)
	if err != nil {
		t.Fatal(err)
	}
	defer slice.Close()
	batches, err := slice.Batch(64, false)
	if err != nil {
		t.Fatal(err)
	}
	defer batches.Close()
	history, err := model.Fit(context.Background(), batches, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 1 || !(history[0]["accuracy"] > 0.3) {
		t.Fatalf("after one epoch: %v", history)
	}
	if err := model.ExportSavedModel(exportDir); err != nil {
		t.Fatal(err)
	}
	x := acceptanceImages(t)
	defer x.Close()
	logits, err := model.Predict(x, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer logits.Close()
	want := logits.Value().([][]float32)

	saved, err := LoadSavedModel(exportDir, []string{"serve"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer saved.Session.Close()
	serving, ok := saved.Signatures["serving_default"]
	if !ok || len(serving.Inputs) != 1 || len(serving.Outputs) != 1 {
		t.Fatalf("signatures: %+v", saved.Signatures)
	}
	var input, output Output
	for _, info := range serving.Inputs {
		if input, err = saved.Graph.Output(info.Name); err != nil {
			t.Fatal(err)
		}
	}
	for _, info := range serving.Outputs {
		if output, err = saved.Graph.Output(info.Name); err != nil {
			t.Fatal(err)
		}
	}
	results, err := saved.Session.Run(map[Output]*Tensor{input: x}, []Output{output}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer results[0].Close()
	got := results[0].Value().([][]float32)
	if len(got) != 32 || len(got[0]) != 10 {
		t.Fatalf("served shape %v", results[0].Shape())
	}
	maxDiff := 0.0
	for i := range want {
		for j := range want[i] {
			d := math.Abs(float64(got[i][j] - want[i][j]))
			if d > 1e-6 {
				t.Fatalf("example %d logit %d: served %v, trained model %v", i, j, got[i][j], want[i][j])
			}
			maxDiff = math.Max(maxDiff, d)
		}
	}
	t.Logf("served logits differ from the trained model's by at most %g", maxDiff)

	if _, err := saved.Graph.Output("no_such_op:0"); CodeOf(err) != NotFound {
		t.Errorf("missing operation: %v", err)
	}
	if _, err := LoadSavedModel(filepath.Join(exportDir, "missing"), []string{"serve"}, nil); CodeOf(err) != NotFound {
		t.Errorf("missing SavedModel: %v", err)
	}
	if err := saved.Session.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := saved.Session.Run(map[Output]*Tensor{input: x}, []Output{output}, nil); CodeOf(err) != FailedPrecondition {
		t.Errorf("Run after Close: %v", err)
	}
}
