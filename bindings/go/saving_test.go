package tfd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func smallMLP(t *testing.T) *Model {
	t.Helper()
	m, err := NewSequential(nil, "mlp")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(Input(Float, 4), Dense(8, "relu", nil), Dense(3, "", nil)); err != nil {
		t.Fatal(err)
	}
	if err := m.Compile("adam", nil, "sparse_categorical_crossentropy", Options{"from_logits": true}); err != nil {
		t.Fatal(err)
	}
	return m
}

func predictValue(t *testing.T, m *Model, x *Tensor) [][]float32 {
	t.Helper()
	y, err := m.Predict(x, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer y.Close()
	return y.Value().([][]float32)
}

// What one model saves, another restores.
func TestARestoredModelPredictsAsTheSavedOne(t *testing.T) {
	dir := t.TempDir()
	trained, fresh := smallMLP(t), smallMLP(t)
	defer trained.Close()
	defer fresh.Close()
	x := mustTensor(t, [][]float32{{1, 2, 3, 4}, {0, 1, 0, 1}, {-1, 0, 2, 1}, {3, 3, 0, 0}})
	defer x.Close()
	y := mustTensor(t, []int32{0, 1, 2, 0})
	defer y.Close()
	if _, err := trained.TrainStep(x, y); err != nil {
		t.Fatal(err)
	}
	prefix, err := trained.SaveCheckpoint(filepath.Join(dir, "ckpt"))
	if err != nil || !strings.HasSuffix(prefix, "ckpt-1") {
		t.Fatalf("SaveCheckpoint = %q, %v", prefix, err)
	}
	if _, err := os.Stat(prefix + ".index"); err != nil {
		t.Error(err)
	}
	want := predictValue(t, trained, x)
	if reflect.DeepEqual(want, predictValue(t, fresh, x)) {
		t.Fatal("two fresh initializations agree")
	}
	if err := fresh.RestoreCheckpoint(prefix); err != nil {
		t.Fatal(err)
	}
	if got := predictValue(t, fresh, x); !reflect.DeepEqual(got, want) {
		t.Errorf("restored model predicts %v, the saved one %v", got, want)
	}
	if err := fresh.RestoreCheckpoint(filepath.Join(dir, "no_such_ckpt-1")); CodeOf(err) != NotFound {
		t.Errorf("missing checkpoint: %v", err)
	}
}
