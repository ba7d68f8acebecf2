package tfd

// #include "tfd/c_api.h"
import "C"

import (
	"context"
	"runtime"
	"sync"
)

// Coordinator drives a custom training loop under ParameterServerStrategy
// from the chief, as TensorFlow's tf.distribute.coordinator.
// ClusterCoordinator does: Schedule queues a training step for the next
// free worker, on the next batch of that worker's own data (what its
// ServeTrainSteps or ServeTrainStepsFromFunction serves), and returns at
// once with a RemoteValue holding the step's loss; Join waits for every
// scheduled step.
//
//	coordinator, err := tfd.NewCoordinator(model)
//	...
//	defer coordinator.Close()
//	for epoch := 0; epoch < 3; epoch++ {
//		model.ResetMetrics()
//		var losses []*tfd.RemoteValue
//		for i := 0; i < 100; i++ {
//			loss, err := coordinator.Schedule()
//			...
//			losses = append(losses, loss)
//		}
//		if err := coordinator.Join(ctx); err != nil { ... }
//		last, err := losses[99].Fetch(ctx)
//		...
//	}
//
// Steps run asynchronously: each reads the variables current when it
// starts. Once Join returns, the chief's model holds the ps's values and
// optimizer state (Evaluate, SaveCheckpoint and ExportSavedModel see the
// trained model) and its compiled metrics include every joined step, until
// ResetMetrics. The next step scheduled after a join first writes the
// model's values to the ps tasks, so a checkpoint restored between steps
// is where training goes on. A worker that is lost is dropped and its step
// runs on another; when none is left, steps fail with Unavailable. A step
// that fails fails its RemoteValue and the join; the steps not started
// then are Cancelled.
//
// One call at a time per coordinator (its methods wait for each other),
// and no other training call on its model meanwhile. The coordinator and
// its remote values may be closed in any order, before or after the model.
type Coordinator struct {
	mu sync.Mutex
	c  *C.TFD_Coordinator
	// join is the result of a join still running, whose Join call stopped
	// waiting when its context was done; nil when there is none.
	join chan error
	// joinErr is the error of such a join, once it has ended without a Join
	// call to report it: the next Join does.
	joinErr error
}

// NewCoordinator makes a coordinator for the custom loop of model, on the
// chief of a "parameter_server" job: it writes the model's values (and
// optimizer state) to the ps tasks and makes an iterator on every worker
// over the data it serves, from its start. Errors: InvalidArgument for a
// nil model; FailedPrecondition before Compile, before the model is built,
// under another strategy, or on a worker; Unimplemented for an optimizer
// the ps tasks cannot apply; NotFound when a worker serves no data; a
// worker's DatasetFunc's error; Unavailable when no worker or ps can be
// reached.
func NewCoordinator(model *Model) (*Coordinator, error) {
	if model == nil {
		return nil, errorf(InvalidArgument, "NewCoordinator: model is nil")
	}
	m, err := model.open("NewCoordinator")
	if err != nil {
		return nil, err
	}
	s := newStatus()
	defer s.delete()
	c := C.TFD_NewCoordinator(m, s.c)
	runtime.KeepAlive(model)
	if err := s.err(); err != nil {
		C.TFD_DeleteCoordinator(c)
		return nil, err
	}
	co := &Coordinator{c: c}
	runtime.SetFinalizer(co, (*Coordinator).Close)
	return co, nil
}

// awaitJoin waits for a join that was left running, if any, and keeps its
// error for the next Join. co.mu is held.
func (co *Coordinator) awaitJoin() {
	if co.join != nil {
		co.joinEnded(<-co.join)
	}
}

// joinEnded records the end of a join that was left running.
func (co *Coordinator) joinEnded(err error) {
	co.join = nil
	if err != nil && co.joinErr == nil {
		co.joinErr = err
	}
}

// open returns the coordinator's handle once a join that was left running
// has ended, or an error once it is closed. co.mu is held.
func (co *Coordinator) open(call string) (*C.TFD_Coordinator, error) {
	co.awaitJoin()
	if co.c == nil {
		return nil, errorf(FailedPrecondition, "%s: the coordinator is closed", call)
	}
	return co.c, nil
}

// Schedule queues one training step for the next free worker and returns
// at once with its RemoteValue, which the caller closes. After a join it
// first writes the model's values and optimizer state to the ps tasks,
// and returns the errors of doing so.
func (co *Coordinator) Schedule() (*RemoteValue, error) {
	co.mu.Lock()
	defer co.mu.Unlock()
	c, err := co.open("Schedule")
	if err != nil {
		return nil, err
	}
	s := newStatus()
	defer s.delete()
	v := C.TFD_CoordinatorScheduleTrainStep(c, s.c)
	if err := s.err(); err != nil {
		C.TFD_DeleteRemoteValue(v)
		return nil, err
	}
	value := &RemoteValue{c: v}
	runtime.SetFinalizer(value, (*RemoteValue).Close)
	return value, nil
}

// Join waits until every step scheduled so far has finished, then reads
// the ps's values and optimizer state into the model and adds the steps'
// metrics to the model's. It returns the first step's error (Unavailable
// when every worker was lost; a step's own error as its worker reported
// it). When ctx is done first, Join returns an *Error with code Cancelled
// (or DeadlineExceeded) that wraps ctx.Err(); the join goes on, the
// coordinator's next call waits for it, and the next Join reports its
// error.
func (co *Coordinator) Join(ctx context.Context) error {
	if ctx == nil {
		return errorf(InvalidArgument, "Join: ctx is nil; use context.Background()")
	}
	co.mu.Lock()
	defer co.mu.Unlock()
	if co.join == nil {
		c, err := co.open("Join")
		if err != nil {
			return err
		}
		// The join runs on its own goroutine so that ctx can end the wait;
		// co.join tells the coordinator's other calls to wait for it.
		result := make(chan error, 1)
		go func() {
			s := newStatus()
			defer s.delete()
			C.TFD_CoordinatorJoin(c, s.c)
			result <- s.err()
		}()
		co.join = result
	}
	select {
	case err := <-co.join:
		co.join = nil
		if co.joinErr != nil {
			err, co.joinErr = co.joinErr, nil
		}
		return err
	case <-ctx.Done():
		return waitStopped("Join", ctx)
	}
}

// Done is true when every step scheduled so far has finished (and a join
// left running has ended); it does not wait (TensorFlow's
// coordinator.done()).
func (co *Coordinator) Done() (bool, error) {
	co.mu.Lock()
	defer co.mu.Unlock()
	if co.join != nil {
		select {
		case err := <-co.join:
			co.joinEnded(err)
		default:
			return false, nil
		}
	}
	if co.c == nil {
		return false, errorf(FailedPrecondition, "Done: the coordinator is closed")
	}
	s := newStatus()
	defer s.delete()
	done := C.TFD_CoordinatorDone(co.c, s.c)
	return done == 1, s.err()
}

// Close waits for the coordinator's steps (each bounded by the strategy's
// step timeout), ignoring their errors, releases the iterators it made on
// the workers, and frees it; idempotent, always nil. Its remote values
// stay valid.
func (co *Coordinator) Close() error {
	co.mu.Lock()
	defer co.mu.Unlock()
	co.awaitJoin()
	if co.c != nil {
		C.TFD_DeleteCoordinator(co.c)
		co.c = nil
		runtime.SetFinalizer(co, nil)
	}
	return nil
}

// RemoteValue is the loss of one scheduled step, as TensorFlow's
// RemoteValue: Fetch waits for the step. It may be fetched from any
// goroutine, any number of times; closing it does not cancel the step.
type RemoteValue struct {
	mu sync.RWMutex // Close waits for the fetches in flight
	c  *C.TFD_RemoteValue
}

// Fetch waits for the step and returns its loss: the mean over its batch
// (0 for an empty batch). Errors: the step's error (Cancelled when an
// earlier step failed first); when ctx is done first, an *Error with code
// Cancelled (or DeadlineExceeded) that wraps ctx.Err().
func (v *RemoteValue) Fetch(ctx context.Context) (float32, error) {
	if ctx == nil {
		return 0, errorf(InvalidArgument, "Fetch: ctx is nil; use context.Background()")
	}
	type fetched struct {
		loss float32
		err  error
	}
	result := make(chan fetched, 1)
	// The fetch holds the read lock, so that Close waits for it even when
	// this call has stopped waiting.
	v.mu.RLock()
	if v.c == nil {
		v.mu.RUnlock()
		return 0, errorf(FailedPrecondition, "Fetch: the remote value is closed")
	}
	go func() {
		defer v.mu.RUnlock()
		s := newStatus()
		defer s.delete()
		loss := float32(C.TFD_RemoteValueFetch(v.c, s.c))
		result <- fetched{loss, s.err()}
	}()
	select {
	case r := <-result:
		return r.loss, r.err
	case <-ctx.Done():
		return 0, waitStopped("Fetch", ctx)
	}
}

// Close frees the value; idempotent, always nil. It waits for fetches in
// flight.
func (v *RemoteValue) Close() error {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.c != nil {
		C.TFD_DeleteRemoteValue(v.c)
		v.c = nil
		runtime.SetFinalizer(v, nil)
	}
	return nil
}

// waitStopped is the error of a wait that ctx ended: Cancelled or
// DeadlineExceeded, wrapping ctx.Err().
func waitStopped(call string, ctx context.Context) error {
	err := ctx.Err()
	code := Cancelled
	if err == context.DeadlineExceeded {
		code = DeadlineExceeded
	}
	return &Error{code: code, msg: call + " stopped waiting: " + err.Error(), cause: err}
}
