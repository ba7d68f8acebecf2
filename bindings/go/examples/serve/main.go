// Exports a model as a SavedModel and serves it through a Session.
package main

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"reflect"

	"tfd"
)

func main() {
	tmp, err := os.MkdirTemp("", "tfd_example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "mlp", "1")

	model, err := tfd.NewSequential(nil, "mlp")
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	if err := model.Add(tfd.Input(tfd.Float, 784), tfd.Dense(10, "softmax", nil)); err != nil {
		log.Fatal(err)
	}
	if err := model.ExportSavedModel(dir); err != nil {
		log.Fatal(err)
	}

	image := make([]float32, 784)
	for i := range image {
		image[i] = 0.5
	}
	x, err := tfd.NewTensor([][]float32{image})
	if err != nil {
		log.Fatal(err)
	}
	defer x.Close()
	expected, err := model.Predict(x, 0)
	if err != nil {
		log.Fatal(err)
	}
	defer expected.Close()

	saved, err := tfd.LoadSavedModel(dir, []string{"serve"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer saved.Session.Close()
	serving := saved.Signatures["serving_default"]
	var input, output tfd.Output
	for _, info := range serving.Inputs {
		input, _ = saved.Graph.Output(info.Name)
	}
	for _, info := range serving.Outputs {
		output, _ = saved.Graph.Output(info.Name)
	}
	results, err := saved.Session.Run(map[tfd.Output]*tfd.Tensor{input: x}, []tfd.Output{output}, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer results[0].Close()
	fmt.Println("served shape:", results[0].Shape())
	fmt.Println("same as the model:", reflect.DeepEqual(results[0].Value(), expected.Value()))
}
