package tfd

import "testing"

func TestSessionArgumentsAreChecked(t *testing.T) {
	if _, err := LoadSavedModel(t.TempDir(), []string{"serve"}, &SessionOptions{Target: "grpc://host:8500"}); CodeOf(err) != Unimplemented {
		t.Errorf("session target: %v", err)
	}
	// An empty directory holds no SavedModel.
	if saved, err := LoadSavedModel(t.TempDir(), []string{"serve"}, nil); err == nil {
		saved.Session.Close()
		t.Errorf("LoadSavedModel of an empty directory succeeded")
	}

	closed := &Graph{handles: &modelHandles{}}
	if _, err := closed.Output("dense:x"); CodeOf(err) != InvalidArgument {
		t.Errorf("bad output index: %v", err)
	}
	if _, err := closed.Output("dense:0"); CodeOf(err) != NotFound {
		t.Errorf("operation of a closed graph: %v", err)
	}
	if op := closed.Operation("dense"); op != nil {
		t.Errorf("Operation on a closed graph = %v", op)
	}
	session := &Session{graph: closed}
	if _, err := session.Run(nil, nil, nil); CodeOf(err) != FailedPrecondition {
		t.Errorf("Run on a closed session: %v", err)
	}
	if err := session.Close(); err != nil {
		t.Errorf("Close of a closed session: %v", err)
	}
}
