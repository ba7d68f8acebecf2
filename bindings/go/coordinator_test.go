package tfd

import (
	"context"
	"errors"
	"math"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"
)

// A custom training loop under ParameterServerStrategy with every task in
// this process, as in server_test.go: one ps, two workers serving the
// shards a DatasetFunc makes, and the chief scheduling steps through a
// Coordinator and fetching their losses; then the bad calls' errors.

// The rows every worker of the job shards.
const sharedRows = 32

// newRows is sharedRows toy rows of 4 features labelled by the largest of
// the first three, one element per row. It runs in dataset functions too,
// off the test's goroutine, so it returns errors rather than failing t.
func newRows() (*Dataset, error) {
	features := make([][]float32, sharedRows)
	labels := make([]int32, sharedRows)
	for i := range features {
		f := make([]float32, 4)
		for j := range f {
			f[j] = float32(math.Sin(6.5 + 1.7*float64(i) + 0.9*float64(j) + 0.3*float64(i*j)))
		}
		features[i] = f
		switch {
		case f[0] >= f[1] && f[0] >= f[2]:
			labels[i] = 0
		case f[1] >= f[2]:
			labels[i] = 1
		default:
			labels[i] = 2
		}
	}
	x, err := NewTensor(features)
	if err != nil {
		return nil, err
	}
	defer x.Close()
	y, err := NewTensor(labels)
	if err != nil {
		return nil, err
	}
	defer y.Close()
	return NewDatasetFromTensors(x, y)
}

// How shardedRows fails when told to.
const (
	succeed = iota
	failWithDataLoss
	failWithPlainError
	panicInside
	returnNil
	returnClosed
)

// shardedRows is the workers' DatasetFunc: the worker's shard of the
// shared rows as one batch, served again and again. It records the input
// contexts it was given.
type shardedRows struct {
	mu       sync.Mutex
	contexts []InputContext
	failure  int
}

func (r *shardedRows) make(ctx InputContext) (*Dataset, error) {
	r.mu.Lock()
	r.contexts = append(r.contexts, ctx)
	failure := r.failure
	r.mu.Unlock()
	switch failure {
	case failWithDataLoss:
		return nil, errorf(DataLoss, "the worker's files are corrupt")
	case failWithPlainError:
		return nil, errors.New("no route to the files")
	case panicInside:
		panic("the worker's function broke")
	case returnNil:
		return nil, nil
	}
	rows, err := newRows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	shard, err := rows.Shard(int64(ctx.NumInputPipelines), int64(ctx.InputPipelineID))
	if err != nil {
		return nil, err
	}
	defer shard.Close()
	repeated, err := shard.Repeat(-1)
	if err != nil {
		return nil, err
	}
	defer repeated.Close()
	batches, err := repeated.Batch(int64(sharedRows/ctx.NumInputPipelines), true)
	if failure == returnClosed && err == nil {
		batches.Close()
	}
	return batches, err
}

// shardLoss is model's loss on shard index of two of the shared rows.
func shardLoss(t *testing.T, model *Model, index int64) float64 {
	t.Helper()
	rows, err := newRows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	shard, err := rows.Shard(2, index)
	if err != nil {
		t.Fatal(err)
	}
	defer shard.Close()
	batch, err := shard.Batch(sharedRows/2, false)
	if err != nil {
		t.Fatal(err)
	}
	defer batch.Close()
	results, err := model.Evaluate(batch)
	if err != nil {
		t.Fatal(err)
	}
	return results["loss"]
}

func TestCustomLoopSchedulesStepsOnTheWorkersShards(t *testing.T) {
	ports := freePorts(t, 4)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ps, err := StartParameterServer(ctx, taskOptions(ports, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	rows := &shardedRows{}
	var workerModels []*Model
	for w := 0; w < 2; w++ {
		options := taskOptions(ports, "worker", w)
		options["connect_timeout_seconds"] = 10
		strategy, err := NewStrategy("parameter_server", options)
		if err != nil {
			t.Fatal(err)
		}
		defer strategy.Close()
		m := namedMLP(t, strategy, "accuracy")
		defer m.Close()
		workerModels = append(workerModels, m)
		worker, err := m.ServeTrainStepsFromFunction(ctx, rows.make)
		if err != nil {
			t.Fatal(err)
		}
		defer worker.Close()
	}

	chief, err := NewStrategy("parameter_server", taskOptions(ports, "chief", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer chief.Close()
	m := namedMLP(t, chief, "accuracy")
	defer m.Close()
	initial := shardLoss(t, m, 0)
	coordinator, err := NewCoordinator(m)
	if err != nil {
		t.Fatal(err)
	}
	defer coordinator.Close()
	// Each worker made its dataset for its own place among two.
	rows.mu.Lock()
	contexts := append([]InputContext(nil), rows.contexts...)
	rows.mu.Unlock()
	sort.Slice(contexts, func(i, j int) bool { return contexts[i].InputPipelineID < contexts[j].InputPipelineID })
	if want := []InputContext{{2, 0}, {2, 1}}; !reflect.DeepEqual(contexts, want) {
		t.Errorf("the dataset function was called with %v, want %v", contexts, want)
	}

	// Three "epochs" of 20 steps, each ended by a join, as TensorFlow's loop.
	wait, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var epochLosses []float64
	for epoch := 0; epoch < 3; epoch++ {
		if err := m.ResetMetrics(); err != nil {
			t.Fatal(err)
		}
		var losses []*RemoteValue
		for step := 0; step < 20; step++ {
			loss, err := coordinator.Schedule()
			if err != nil {
				t.Fatal(err)
			}
			losses = append(losses, loss)
		}
		if err := coordinator.Join(wait); err != nil {
			t.Fatal(err)
		}
		if done, err := coordinator.Done(); !done || err != nil {
			t.Errorf("Done() after Join = %v, %v; want true", done, err)
		}
		sum := 0.0
		for _, loss := range losses {
			value, err := loss.Fetch(wait)
			if err != nil || !(value > 0) {
				t.Errorf("Fetch = %v, %v; want a positive loss", value, err)
			}
			sum += float64(value)
			loss.Close()
		}
		epochLosses = append(epochLosses, sum/float64(len(losses)))
		// The metric counts every joined step of the epoch.
		metrics, err := m.Metrics()
		if err != nil || len(metrics) != 1 || !(metrics[0].Value > 0 && metrics[0].Value <= 1) {
			t.Errorf("Metrics() after Join = %v, %v; want an accuracy in (0, 1]", metrics, err)
		}
	}
	if !(epochLosses[2] < 0.8*epochLosses[0]) {
		t.Errorf("epoch losses %v: want the last 20%% below the first", epochLosses)
	}
	// After a join the chief's model holds the ps's values.
	if trained := shardLoss(t, m, 0); !(trained < 0.8*initial) {
		t.Errorf("shard 0's loss went from %v to %v; want 20%% down", initial, trained)
	}

	// A value fetched before the join waits for its step; a closed one is
	// refused.
	first, err := coordinator.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	if loss, err := first.Fetch(wait); err != nil || !(loss > 0) {
		t.Errorf("Fetch before Join = %v, %v", loss, err)
	}
	first.Close()
	first.Close() // Idempotent.
	if _, err := first.Fetch(wait); CodeOf(err) != FailedPrecondition {
		t.Errorf("Fetch of a closed value: %v", err)
	}

	// A done context ends the waits, not the steps: the next calls wait
	// for the join that goes on.
	pending, err := coordinator.Schedule()
	if err != nil {
		t.Fatal(err)
	}
	defer pending.Close()
	for step := 0; step < 10; step++ {
		value, err := coordinator.Schedule()
		if err != nil {
			t.Fatal(err)
		}
		value.Close() // Closing a value does not cancel its step.
	}
	cancelled, cancelNow := context.WithCancel(context.Background())
	cancelNow()
	if _, err := pending.Fetch(cancelled); CodeOf(err) != Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("Fetch with a cancelled context: %v", err)
	}
	if err := coordinator.Join(cancelled); CodeOf(err) != Cancelled || !errors.Is(err, context.Canceled) {
		t.Errorf("Join with a cancelled context: %v", err)
	}
	if err := coordinator.Join(wait); err != nil {
		t.Errorf("Join after a cancelled Join: %v", err)
	}
	if done, err := coordinator.Done(); !done || err != nil {
		t.Errorf("Done() = %v, %v; want true", done, err)
	}
	if loss, err := pending.Fetch(wait); err != nil || !(loss > 0) {
		t.Errorf("Fetch after Join = %v, %v", loss, err)
	}

	// Bad calls.
	if err := coordinator.Join(nil); CodeOf(err) != InvalidArgument {
		t.Errorf("Join(nil): %v", err)
	}
	if _, err := NewCoordinator(nil); CodeOf(err) != InvalidArgument {
		t.Errorf("NewCoordinator(nil): %v", err)
	}
	if _, err := NewCoordinator(workerModels[0]); CodeOf(err) != FailedPrecondition {
		t.Errorf("NewCoordinator on a worker: %v", err) // Workers do not coordinate.
	}
	raw, err := NewSequential(chief, "raw")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewCoordinator(raw); CodeOf(err) != FailedPrecondition {
		t.Errorf("NewCoordinator before Compile: %v", err)
	}
	raw.Close()
	if _, err := NewCoordinator(raw); CodeOf(err) != FailedPrecondition {
		t.Errorf("NewCoordinator of a closed model: %v", err)
	}
	if _, err := workerModels[0].ServeTrainStepsFromFunction(ctx, nil); CodeOf(err) != InvalidArgument {
		t.Errorf("ServeTrainStepsFromFunction(nil): %v", err)
	}
	if err := coordinator.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := coordinator.Schedule(); CodeOf(err) != FailedPrecondition {
		t.Errorf("Schedule on a closed coordinator: %v", err)
	}
	if err := coordinator.Join(wait); CodeOf(err) != FailedPrecondition {
		t.Errorf("Join on a closed coordinator: %v", err)
	}

	// A dataset function's failure fails the chief's NewCoordinator, with
	// its code, naming the worker's input pipeline.
	for _, c := range []struct {
		failure int
		code    Code
		text    string
	}{
		{failWithDataLoss, DataLoss, "the worker's files are corrupt"},
		{failWithPlainError, Unknown, "no route to the files"},
		{panicInside, Internal, "the worker's function broke"},
		{returnNil, InvalidArgument, "nil Dataset"},
		{returnClosed, FailedPrecondition, "closed Dataset"},
	} {
		rows.mu.Lock()
		rows.failure = c.failure
		rows.mu.Unlock()
		_, err := NewCoordinator(m)
		if CodeOf(err) != c.code || !strings.Contains(err.Error(), c.text) ||
			!strings.Contains(err.Error(), "input pipeline id") {
			t.Errorf("NewCoordinator with failure %d: %v; want %v naming %q and the input pipeline",
				c.failure, err, c.code, c.text)
		}
	}
}

// heldByFunc is a DatasetFunc that holds an object, and a channel closed
// once the garbage collector frees that object.
func heldByFunc() (DatasetFunc, <-chan struct{}) {
	held := new([64]byte)
	finalized := make(chan struct{})
	runtime.SetFinalizer(held, func(*[64]byte) { close(finalized) })
	return func(InputContext) (*Dataset, error) {
		held[0]++
		return nil, errorf(Unimplemented, "not called")
	}, finalized
}

// collected runs the garbage collector until finalized is closed, for at
// most a few seconds.
func collected(finalized <-chan struct{}) bool {
	for i := 0; i < 50; i++ {
		runtime.GC()
		select {
		case <-finalized:
			return true
		case <-time.After(20 * time.Millisecond):
		}
	}
	return false
}

func TestAServerHoldsItsDatasetFuncUntilClosed(t *testing.T) {
	ports := freePorts(t, 4)
	ctx := context.Background()
	ps, err := StartParameterServer(ctx, taskOptions(ports, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	defer ps.Close()
	options := taskOptions(ports, "worker", 0)
	options["connect_timeout_seconds"] = 10
	strategy, err := NewStrategy("parameter_server", options)
	if err != nil {
		t.Fatal(err)
	}
	defer strategy.Close()
	m := namedMLP(t, strategy)
	defer m.Close()
	fn, finalized := heldByFunc()
	worker, err := m.ServeTrainStepsFromFunction(ctx, fn)
	if err != nil {
		t.Fatal(err)
	}
	if collected(finalized) {
		t.Fatal("the function was collected while its server serves")
	}
	worker.Close()
	if !collected(finalized) {
		t.Error("the function was not collected after its server was closed")
	}
}

func TestClusterTaskTypeReadsTheTask(t *testing.T) {
	ports := []int{1, 2, 3, 4}
	for _, want := range []struct {
		taskType string
		index    int
	}{{"chief", 0}, {"worker", 1}, {"ps", 0}} {
		taskType, index, err := ClusterTaskType(taskOptions(ports, want.taskType, want.index))
		if err != nil || taskType != want.taskType || index != want.index {
			t.Errorf("ClusterTaskType = %q, %d, %v; want %q, %d", taskType, index, err,
				want.taskType, want.index)
		}
	}
	if _, _, err := ClusterTaskType(taskOptions(ports, "worker", 5)); CodeOf(err) != InvalidArgument {
		t.Errorf("worker 5 of 2: %v", err)
	}
	options := taskOptions(ports, "worker", 0)
	options["num_replicas"] = 2
	if _, _, err := ClusterTaskType(options); CodeOf(err) != Unimplemented {
		t.Errorf("an unknown option: %v", err)
	}
}
