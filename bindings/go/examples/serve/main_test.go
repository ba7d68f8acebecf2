package main

import (
	"io"
	"os"
	"testing"
)

// Runs the example as a user would and checks what it prints.
func TestExampleServes(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	w.Close()
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := "served shape: [1 10]\nsame as the model: true\n"
	if string(got) != want {
		t.Errorf("the example printed\n%s\nwant\n%s", got, want)
	}
}
