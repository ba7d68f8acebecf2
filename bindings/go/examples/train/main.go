// Trains the Fashion-MNIST MLP under MirroredStrategy on a slice of the
// data, for at most a minute.
package main

import (
	"context"
	"fmt"
	"log"
	"time"

	"tfd"
)

func main() {
	const data = "/usr/share/datasets/fashion-mnist/"
	mirrored, err := tfd.NewMirroredStrategy(2)
	if err != nil {
		log.Fatal(err)
	}
	defer mirrored.Close()
	model, err := tfd.NewSequential(mirrored, "mlp")
	if err != nil {
		log.Fatal(err)
	}
	defer model.Close()
	err = model.Add(tfd.Input(tfd.Float, 28, 28), tfd.Flatten(),
		tfd.Dense(128, "relu", nil), tfd.Dense(10, "", nil))
	if err != nil {
		log.Fatal(err)
	}
	err = model.Compile("adam", nil, "sparse_categorical_crossentropy",
		tfd.Options{"from_logits": true}, "accuracy")
	if err != nil {
		log.Fatal(err)
	}

	train, err := tfd.NewDatasetFromIdx(data+"train-images-idx3-ubyte.gz",
		data+"train-labels-idx1-ubyte.gz", 1.0/255)
	if err != nil {
		log.Fatal(err)
	}
	defer train.Close()
	slice, err := train.Take(1024)
	if err != nil {
		log.Fatal(err)
	}
	defer slice.Close()
	batches, err := slice.Batch(64, false)
	if err != nil {
		log.Fatal(err)
	}
	defer batches.Close()

	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	history, err := model.Fit(ctx, batches, 2, nil)
	if err != nil {
		log.Fatal(err)
	}
	replicas, _ := mirrored.NumReplicas()
	fmt.Println("replicas:", replicas)
	fmt.Println("epochs:", len(history))
	fmt.Println("accuracy improved:", history[1]["accuracy"] > history[0]["accuracy"])
}
