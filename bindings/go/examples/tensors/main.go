// Makes a tensor from a Go slice and reads it back.
package main

import (
	"fmt"
	"log"

	"tfd"
)

func main() {
	t, err := tfd.NewTensor([][]float32{{1, 2, 3}, {4, 5, 6}})
	if err != nil {
		log.Fatal(err)
	}
	defer t.Close()
	fmt.Println("shape:", t.Shape(), "type:", t.DataType() == tfd.Float)
	fmt.Println("value:", t.Value().([][]float32))

	if _, err := tfd.NewTensor([][]float32{{1, 2}, {3}}); err != nil {
		fmt.Println("code:", tfd.CodeOf(err))
	}
}
