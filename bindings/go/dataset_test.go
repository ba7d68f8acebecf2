package tfd

import (
	"io"
	"reflect"
	"testing"
)

func TestShardKeepsEveryNthElement(t *testing.T) {
	labels := mustTensor(t, []int64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9})
	defer labels.Close()
	rows, err := NewDatasetFromTensors(labels)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	shard, err := rows.Shard(3, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer shard.Close()
	it, err := shard.Iterator()
	if err != nil {
		t.Fatal(err)
	}
	defer it.Close()
	var kept []int64
	for {
		element, err := it.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		kept = append(kept, element[0].Value().(int64))
		element[0].Close()
	}
	if want := []int64{1, 4, 7}; !reflect.DeepEqual(kept, want) {
		t.Errorf("shard 1 of 3 holds %v, want %v", kept, want)
	}

	for _, bad := range [][2]int64{{0, 0}, {3, 3}, {3, -1}} {
		if _, err := rows.Shard(bad[0], bad[1]); CodeOf(err) != InvalidArgument {
			t.Errorf("Shard(%d, %d): %v, want InvalidArgument", bad[0], bad[1], err)
		}
	}
	rows.Close()
	if _, err := rows.Shard(2, 0); CodeOf(err) != FailedPrecondition {
		t.Errorf("Shard of a closed dataset: %v", err)
	}
}
