package tfd

// #include <stdint.h>
// #include "tfd/c_api.h"
//
// // dataset_func.go exports it.
// extern TFD_Dataset* tfdDatasetFunc(uintptr_t, int, int, TF_Status*);
//
// static TFD_Dataset* tfd_go_dataset_fn(void* handle, int num_input_pipelines,
//                                       int input_pipeline_id, TF_Status* status) {
//   return tfdDatasetFunc((uintptr_t)handle, num_input_pipelines, input_pipeline_id, status);
// }
//
// // The handle of the Go function crosses C as the dataset function's user data.
// static TFD_Server* tfd_serve_from_go(TFD_Model* model, uintptr_t handle, TF_Status* status) {
//   return TFD_ModelServeTrainStepsFromFunction(model, tfd_go_dataset_fn, (void*)handle, status);
// }
import "C"

import (
	"context"
	"runtime"
	"runtime/cgo"
	"sync"
)

// Server is a running server of a parameter-server job, as
// tf.distribute.Server is for ParameterServerStrategy: on a ps task, the
// variable service of StartParameterServer; on a worker task, the training
// steps a model serves (Model.ServeTrainSteps). The chief makes a
// "parameter_server" Strategy, builds and compiles the same model and
// trains it with FitWithOptions and StepsPerEpoch; each step runs on a free
// worker, on that worker's data. Each task finds its place in the job in
// TF_CONFIG (or the "tf_config" option).
//
//	// A ps task:
//	ps, err := tfd.StartParameterServer(ctx, nil)
//	...
//	ps.Join() // until ctx is done
//
// A server serves until its context is done or it is closed, whichever
// comes first; it keeps what it serves (the model, the dataset) alive, so
// they may be closed first. Its methods may be called from any goroutine.
type Server struct {
	mu      sync.Mutex
	c       *C.TFD_Server
	stopped chan struct{} // closed by Close
	release func()        // frees what the server used, once it is deleted; may be nil
}

// StartParameterServer serves this ps task's variables on the port of its
// address in the cluster, until ctx is done or Close. Options (may be
// nil): "tf_config" (default: the TF_CONFIG environment variable).
// Errors: InvalidArgument when this task is not a ps task or TF_CONFIG is
// bad, Unavailable when the port cannot be bound, Unimplemented for an
// unknown option.
func StartParameterServer(ctx context.Context, options Options) (*Server, error) {
	if ctx == nil {
		return nil, errorf(InvalidArgument, "StartParameterServer: ctx is nil; use context.Background()")
	}
	opts, err := options.toC()
	if err != nil {
		return nil, err
	}
	defer C.TFD_DeleteOptions(opts)
	s := newStatus()
	defer s.delete()
	return newServer(ctx, C.TFD_StartParameterServer(opts, s.c), s, nil)
}

// ServeTrainSteps, on a worker task of a "parameter_server" strategy,
// serves this compiled model's training step to the chief's fit, each step
// on the next batch of dataset, this worker's (x, y) batches (Repeat(-1)
// them: they must not end before the chief's steps do), until ctx is done
// or Close. Errors: FailedPrecondition before Compile, under another
// strategy or on the chief; Unavailable when the worker's address cannot
// be served.
func (m *Model) ServeTrainSteps(ctx context.Context, dataset *Dataset) (*Server, error) {
	c, err := m.open("ServeTrainSteps")
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errorf(InvalidArgument, "ServeTrainSteps: ctx is nil; use context.Background()")
	}
	if dataset == nil || dataset.c == nil {
		return nil, errorf(InvalidArgument, "ServeTrainSteps: dataset must be open")
	}
	s := newStatus()
	defer s.delete()
	server := C.TFD_ModelServeTrainSteps(c, dataset.c, s.c)
	runtime.KeepAlive(m)
	runtime.KeepAlive(dataset)
	return newServer(ctx, server, s, nil)
}

// ServeTrainStepsFromFunction is ServeTrainSteps on the data fn makes in
// this worker's process each time the chief makes the workers' iterators
// (at the start of every FitWithOptions and NewCoordinator), called on a
// thread of the server with this worker's InputContext. To give each
// worker its own part of the data, fn can Shard it by the context. fn's
// error fails the chief's call, naming the worker's input pipeline.
// Errors otherwise as ServeTrainSteps.
func (m *Model) ServeTrainStepsFromFunction(ctx context.Context, fn DatasetFunc) (*Server, error) {
	c, err := m.open("ServeTrainStepsFromFunction")
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		return nil, errorf(InvalidArgument, "ServeTrainStepsFromFunction: ctx is nil; use context.Background()")
	}
	if fn == nil {
		return nil, errorf(InvalidArgument, "ServeTrainStepsFromFunction: fn is nil")
	}
	// The handle lives as long as the native server, which may call fn
	// until it is deleted.
	handle := cgo.NewHandle(fn)
	s := newStatus()
	defer s.delete()
	server := C.tfd_serve_from_go(c, C.uintptr_t(handle), s.c)
	runtime.KeepAlive(m)
	srv, err := newServer(ctx, server, s, handle.Delete)
	if err != nil {
		handle.Delete()
	}
	return srv, err
}

// ClusterTaskType is this process's task in the job, as TensorFlow's
// cluster resolvers read it: its type ("chief", "worker", "ps" or
// "evaluator") and index. Options (may be nil): "tf_config" (default: the
// TF_CONFIG environment variable, else Open MPI's or SLURM's; with none of
// them, worker 0 of a job of one). Errors: InvalidArgument for a bad
// TF_CONFIG, Unimplemented for an unknown option.
func ClusterTaskType(options Options) (taskType string, index int, err error) {
	opts, err := options.toC()
	if err != nil {
		return "", 0, err
	}
	defer C.TFD_DeleteOptions(opts)
	s := newStatus()
	defer s.delete()
	var cIndex C.int
	cType := C.TFD_ClusterTaskType(opts, &cIndex, s.c)
	if err := s.err(); err != nil {
		return "", 0, err
	}
	return C.GoString(cType), int(cIndex), nil
}

func newServer(ctx context.Context, c *C.TFD_Server, s *status, release func()) (*Server, error) {
	if err := s.err(); err != nil {
		C.TFD_DeleteServer(c)
		return nil, err
	}
	server := &Server{c: c, stopped: make(chan struct{}), release: release}
	runtime.SetFinalizer(server, (*Server).Close)
	// The goroutine keeps the server reachable until ctx is done: the
	// context, not the garbage collector, says how long it serves.
	if done := ctx.Done(); done != nil {
		go func() {
			select {
			case <-done:
				server.Close()
			case <-server.stopped:
			}
		}()
	}
	return server, nil
}

// Join blocks while the server runs: until its context is done or another
// goroutine closes it, for ever otherwise (TensorFlow's server.join()).
// It returns at once once the server is closed.
//
// Join waits in Go rather than in TFD_ServerJoin, which nothing could
// wake: deleting a server under a thread blocked in it is undefined.
func (srv *Server) Join() {
	<-srv.stopped
}

// Close stops serving and frees the native server; idempotent, always nil.
// A ps task's variables are lost; the chief's steps on a closed worker run
// on the other workers.
func (srv *Server) Close() error {
	srv.mu.Lock()
	defer srv.mu.Unlock()
	if srv.c != nil {
		C.TFD_DeleteServer(srv.c)
		srv.c = nil
		if srv.release != nil {
			srv.release()
		}
		close(srv.stopped)
		runtime.SetFinalizer(srv, nil)
	}
	return nil
}
