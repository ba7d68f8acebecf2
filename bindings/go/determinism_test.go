package tfd

import (
	"os"
	"strings"
	"testing"
)

func TestOpDeterminismStartsFromTheEnvironment(t *testing.T) {
	// The first query in this process reads TF_DETERMINISTIC_OPS; no other
	// test of the package touches the switch.
	env := strings.ToLower(os.Getenv("TF_DETERMINISTIC_OPS"))
	want := env == "1" || env == "true"
	if got := OpDeterminismEnabled(); got != want {
		t.Errorf("OpDeterminismEnabled() = %v with TF_DETERMINISTIC_OPS=%q, want %v", got, env, want)
	}
}

func TestEnableOpDeterminismTurnsItOnAndOff(t *testing.T) {
	defer EnableOpDeterminism(false)
	EnableOpDeterminism(true)
	if !OpDeterminismEnabled() {
		t.Error("OpDeterminismEnabled() = false after EnableOpDeterminism(true)")
	}
	EnableOpDeterminism(false)
	if OpDeterminismEnabled() {
		t.Error("OpDeterminismEnabled() = true after EnableOpDeterminism(false)")
	}
}
