package tfd

import (
	"context"
	"fmt"
	"math"
	"net"
	"testing"
	"time"
)

// A parameter-server job with every task in this process, over real gRPC
// on 127.0.0.1, each task told its place by the "tf_config" option: one ps
// (StartParameterServer), two workers serving the model's steps
// (ServeTrainSteps) and the chief's FitWithOptions, whose loss goes down;
// then the roles' errors and the servers' Join and Close.

// freePorts are n distinct ports that were free on 127.0.0.1 a moment ago.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports
}

// taskOptions place this task as type:index in a job of one chief, two
// workers and one ps on ports, in that order.
func taskOptions(ports []int, taskType string, index int) Options {
	return Options{"tf_config": fmt.Sprintf(`{"cluster": {"chief": ["127.0.0.1:%d"], `+
		`"worker": ["127.0.0.1:%d", "127.0.0.1:%d"], "ps": ["127.0.0.1:%d"]}, `+
		`"task": {"type": %q, "index": %d}}`,
		ports[0], ports[1], ports[2], ports[3], taskType, index)}
}

// namedMLP is the same model in every task; its layers are named so that
// the tasks of this one process agree on the variables' names.
func namedMLP(t *testing.T, strategy *Strategy, metrics ...string) *Model {
	t.Helper()
	m, err := NewSequential(strategy, "mlp")
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Add(Input(Float, 4), Dense(16, "relu", Options{"name": "hidden"}),
		Dense(3, "", Options{"name": "logits"})); err != nil {
		t.Fatal(err)
	}
	if err := m.Compile("sgd", Options{"learning_rate": 0.1}, "sparse_categorical_crossentropy",
		Options{"from_logits": true}, metrics...); err != nil {
		t.Fatal(err)
	}
	return m
}

// workerData is a worker's data: 256 rows of 4 features (differing with
// seed) labelled by the largest of the first three, in batches of 16, for
// ever.
func workerData(t *testing.T, seed int) *Dataset {
	t.Helper()
	features := make([][]float32, 256)
	labels := make([]int32, 256)
	for i := range features {
		f := make([]float32, 4)
		for j := range f {
			f[j] = float32(math.Sin(1.3*float64(seed) + 1.7*float64(i) + 0.9*float64(j) + 0.3*float64(i*j)))
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
	x, y := mustTensor(t, features), mustTensor(t, labels)
	defer x.Close()
	defer y.Close()
	rows, err := NewDatasetFromTensors(x, y)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	repeated, err := rows.Repeat(-1)
	if err != nil {
		t.Fatal(err)
	}
	defer repeated.Close()
	batches, err := repeated.Batch(16, false)
	if err != nil {
		t.Fatal(err)
	}
	return batches
}

func TestWorkersTrainTheChiefsModelThroughThePs(t *testing.T) {
	ports := freePorts(t, 4)
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	ps, err := StartParameterServer(ctx, taskOptions(ports, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	var workers []*Server
	for w := 0; w < 2; w++ {
		options := taskOptions(ports, "worker", w)
		options["connect_timeout_seconds"] = 10
		strategy, err := NewStrategy("parameter_server", options)
		if err != nil {
			t.Fatal(err)
		}
		m := namedMLP(t, strategy)
		data := workerData(t, w+1)
		worker, err := m.ServeTrainSteps(ctx, data)
		if err != nil {
			t.Fatal(err)
		}
		workers = append(workers, worker)
		// The server keeps what it serves alive.
		data.Close()
		m.Close()
		strategy.Close()
	}

	chiefTask := taskOptions(ports, "chief", 0)
	chief, err := NewStrategy("ParameterServerStrategy", chiefTask)
	if err != nil {
		t.Fatal(err)
	}
	defer chief.Close()
	m := namedMLP(t, chief)
	defer m.Close()
	unread := workerData(t, 9) // The chief's data is the workers'.
	defer unread.Close()
	history, err := m.FitWithOptions(context.Background(), unread,
		FitOptions{Epochs: 3, StepsPerEpoch: 30}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(history) != 3 || !(history[2]["loss"] < 0.8*history[0]["loss"]) {
		t.Fatalf("history %v: want 3 epochs and the loss down by 20%%", history)
	}
	// The chief's model holds the ps's values: it evaluates as trained.
	results, err := m.EvaluateWithOptions(unread, EvaluateOptions{Steps: 4})
	if err != nil || !(results["loss"] < history[0]["loss"]) {
		t.Errorf("EvaluateWithOptions = %v, %v; want a loss below %v", results, err, history[0]["loss"])
	}

	// The roles' errors.
	if _, err := m.ServeTrainSteps(ctx, unread); CodeOf(err) != FailedPrecondition {
		t.Errorf("ServeTrainSteps on the chief: %v", err)
	}
	if _, err := StartParameterServer(ctx, chiefTask); CodeOf(err) != InvalidArgument {
		t.Errorf("StartParameterServer on the chief: %v", err)
	}
	if _, err := NewStrategy("parameter_server", taskOptions(ports, "ps", 0)); CodeOf(err) != InvalidArgument {
		t.Errorf("a strategy on the ps task: %v", err)
	}

	// Cancelling the context stops every server; Join then returns.
	stop()
	for _, server := range append(workers, ps) {
		joined := make(chan struct{})
		go func(s *Server) {
			s.Join()
			close(joined)
		}(server)
		select {
		case <-joined:
		case <-time.After(10 * time.Second):
			t.Fatal("Join did not return after the context was cancelled")
		}
	}
}

func TestJoinBlocksUntilClose(t *testing.T) {
	ports := freePorts(t, 4)
	ps, err := StartParameterServer(context.Background(), taskOptions(ports, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	joined := make(chan struct{})
	go func() {
		ps.Join()
		close(joined)
	}()
	select {
	case <-joined:
		t.Fatal("Join returned while the server runs")
	case <-time.After(200 * time.Millisecond):
	}
	if err := ps.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-joined:
	case <-time.After(10 * time.Second):
		t.Fatal("Join did not return after Close")
	}
	ps.Join() // At once once closed.
	if err := ps.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// The port is free again: a new ps task binds it.
	again, err := StartParameterServer(context.Background(), taskOptions(ports, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	again.Close()
}

func TestBadServerCalls(t *testing.T) {
	ports := freePorts(t, 4)
	ctx := context.Background()
	options := taskOptions(ports, "ps", 0)
	options["no_such_option"] = 1
	if _, err := StartParameterServer(ctx, options); CodeOf(err) != Unimplemented {
		t.Errorf("unknown option: %v", err)
	}
	if _, err := StartParameterServer(ctx, Options{"tf_config": "not json"}); CodeOf(err) != InvalidArgument {
		t.Errorf("bad TF_CONFIG: %v", err)
	}
	ps, err := StartParameterServer(ctx, taskOptions(ports, "ps", 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := StartParameterServer(ctx, taskOptions(ports, "ps", 0)); CodeOf(err) != Unavailable {
		t.Errorf("a taken port: %v", err)
	}
	ps.Close()

	m := namedMLP(t, nil)
	defer m.Close()
	data := workerData(t, 1)
	defer data.Close()
	if _, err := m.ServeTrainSteps(ctx, data); CodeOf(err) != FailedPrecondition {
		t.Errorf("ServeTrainSteps under the default strategy: %v", err)
	}
	if _, err := m.ServeTrainSteps(ctx, nil); CodeOf(err) != InvalidArgument {
		t.Errorf("nil dataset: %v", err)
	}
	m.Close()
	if _, err := m.ServeTrainSteps(ctx, data); CodeOf(err) != FailedPrecondition {
		t.Errorf("closed model: %v", err)
	}
}
