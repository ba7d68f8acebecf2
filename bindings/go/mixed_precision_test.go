package tfd

import (
	"strings"
	"testing"
)

// mixedMLP is 4 -> Dense(16, relu) -> Dense(3) -> a float32 linear
// Activation (Keras's advice for mixed models), compiled with SGD, under
// the global policy.
func mixedMLP(t *testing.T) *Model {
	t.Helper()
	m, err := NewSequential(nil, "mixed")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(Input(Float, 4), Dense(16, "relu", nil), Dense(3, "", nil),
		ActivationWithOptions("linear", Options{"dtype": "float32"})); err != nil {
		t.Fatal(err)
	}
	if err := m.Compile("sgd", Options{"learning_rate": 0.1}, "sparse_categorical_crossentropy",
		Options{"from_logits": true}); err != nil {
		t.Fatal(err)
	}
	return m
}

func resetPolicy(t *testing.T) {
	if err := SetGlobalPolicy("float32"); err != nil {
		t.Error(err)
	}
}

func TestGlobalPolicyIsReadWhenTheModelIsMade(t *testing.T) {
	defer resetPolicy(t)
	if got := GlobalPolicy(); got != "float32" {
		t.Fatalf("GlobalPolicy() = %q at start, want float32", got)
	}
	if err := SetGlobalPolicy("mixed_bfloat16"); err != nil {
		t.Fatal(err)
	}
	m := mixedMLP(t)
	defer m.Close()
	resetPolicy(t)
	if policy, err := m.DtypePolicy(); err != nil || policy != "mixed_bfloat16" {
		t.Errorf("DtypePolicy() = %q, %v; want mixed_bfloat16", policy, err)
	}
	if _, _, err := m.LossScale(); CodeOf(err) != FailedPrecondition {
		t.Errorf("LossScale() under mixed_bfloat16: %v, want FailedPrecondition", err)
	}
	x, y := trainingData(t)
	defer x.Close()
	defer y.Close()
	// The float32 Activation's output.
	out, err := m.Predict(x, 0)
	if err != nil {
		t.Fatal(err)
	}
	if out.DataType() != Float {
		t.Errorf("Predict's dtype = %v, want Float (the last layer's float32)", out.DataType())
	}
	out.Close()
	first, err := m.TrainStep(x, y)
	if err != nil {
		t.Fatal(err)
	}
	last := first
	for step := 0; step < 40; step++ {
		if last, err = m.TrainStep(x, y); err != nil {
			t.Fatal(err)
		}
	}
	if !(last < first) {
		t.Errorf("loss %v -> %v, want it to fall", first, last)
	}
}

func TestUnknownPoliciesNameTheValidOnes(t *testing.T) {
	defer resetPolicy(t)
	err := SetGlobalPolicy("mixed_int8")
	if CodeOf(err) != InvalidArgument || !strings.Contains(err.Error(), "'mixed_bfloat16'") {
		t.Errorf("SetGlobalPolicy(mixed_int8) = %v, want InvalidArgument naming the valid ones", err)
	}
	if got := GlobalPolicy(); got != "float32" {
		t.Errorf("GlobalPolicy() = %q after a refused name, want float32", got)
	}
	if err := SetGlobalPolicy("int32"); CodeOf(err) != InvalidArgument {
		t.Errorf("SetGlobalPolicy(int32) = %v, want InvalidArgument", err)
	}
}

func TestMixedFloat16AddsDynamicLossScale(t *testing.T) {
	defer resetPolicy(t)
	if err := SetGlobalPolicy("mixed_float16"); err != nil {
		t.Fatal(err)
	}
	m := mixedMLP(t)
	defer m.Close()
	if scale, steps, err := m.LossScale(); err != nil || scale != 32768 || steps != 0 {
		t.Fatalf("LossScale() after Compile = %v, %v, %v; want 32768, 0", scale, steps, err)
	}
	x, y := trainingData(t)
	defer x.Close()
	defer y.Close()
	if _, err := m.TrainStep(x, y); err != nil {
		t.Fatal(err)
	}
	if scale, steps, err := m.LossScale(); err != nil || scale != 32768 || steps != 1 {
		t.Errorf("LossScale() after a finite step = %v, %v, %v; want 32768, 1", scale, steps, err)
	}
	// 1e6 is past float16's largest value: Inf activations, the step is skipped.
	huge := make([][]float32, numExamples)
	for i := range huge {
		huge[i] = []float32{1e6, 1e6, 1e6, 1e6}
	}
	overflow := mustTensor(t, huge)
	defer overflow.Close()
	if _, err := m.TrainStep(overflow, y); err != nil {
		t.Fatal(err)
	}
	if scale, steps, err := m.LossScale(); err != nil || scale != 16384 || steps != 0 {
		t.Errorf("LossScale() after an overflow = %v, %v, %v; want 16384, 0", scale, steps, err)
	}
}

func TestLayerDtypeOption(t *testing.T) {
	m, err := NewSequential(nil, "layer_policy")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if err := m.Add(Input(Float, 4), Dense(3, "", Options{"dtype": "mixed_bfloat16"})); err != nil {
		t.Fatal(err)
	}
	x, y := trainingData(t)
	defer x.Close()
	defer y.Close()
	out, err := m.Predict(x, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if out.DataType() != Bfloat16 {
		t.Errorf("Predict's dtype = %v, want Bfloat16", out.DataType())
	}
	if err := m.Add(Dense(3, "", Options{"dtype": "mixed_int8"})); CodeOf(err) != InvalidArgument {
		t.Errorf("dtype mixed_int8: %v, want InvalidArgument", err)
	}
}
