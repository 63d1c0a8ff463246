package gcp

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"time"

	"google.golang.org/api/compute/v1"
)

// Compute Engine answers every change with an operation that is PENDING,
// RUNNING, then DONE, possibly with an error; the change is made only when
// it is DONE. A provider's change returns the Operation; Wait asks Compute
// Engine's regionOperations.wait once, which holds the request until the
// operation is DONE or about two minutes have passed
// (https://cloud.google.com/compute/docs/reference/rest/v1/regionOperations/wait),
// bounded here by the call's timeout: a reconcile waits on the operation,
// never on a fixed sleep, and never longer than one call. The caller keeps
// an Operation that is not done and waits on it again on its next pass; a
// lost Operation only costs a read of the resource.

// Default timeouts of one provider call: one request, or a listing of
// every page. Wait holds at most Call.
const (
	DefaultCallTimeout = 20 * time.Second
	DefaultListTimeout = 60 * time.Second
)

// Timeouts bound every provider call so that a hung call never holds a
// worker; zero values mean the defaults.
type Timeouts struct {
	Call time.Duration
	List time.Duration
}

func (t Timeouts) call(ctx context.Context) (context.Context, context.CancelFunc) {
	if t.Call <= 0 {
		return context.WithTimeout(ctx, DefaultCallTimeout)
	}
	return context.WithTimeout(ctx, t.Call)
}

func (t Timeouts) list(ctx context.Context) (context.Context, context.CancelFunc) {
	if t.List <= 0 {
		return context.WithTimeout(ctx, DefaultListTimeout)
	}
	return context.WithTimeout(ctx, t.List)
}

// Operation is a regional Compute Engine operation a change started. The
// zero Operation stands for no change (nothing to wait on).
type Operation struct {
	Project, Region, Name string
	// Doing says what the change is, in words ("creating service
	// attachment x"), for the error of an operation that failed.
	Doing string
	// Done is set when the operation was DONE when last read.
	Done bool
	// Target is the link of the resource the change made (the
	// operation's targetLink), or of the one an insert adopted: a caller
	// that needs only the link does not read the resource again.
	Target string
}

// IsZero reports whether o stands for no change.
func (o Operation) IsZero() bool { return o.Name == "" }

// operationOf reads a change's answer: an Operation, done or not, or the
// error of one that finished with an error.
func operationOf(project, region, doing string, op *compute.Operation) (Operation, error) {
	out := Operation{Project: project, Region: region, Name: op.Name, Doing: doing, Done: op.Status == "DONE", Target: op.TargetLink}
	if out.Done {
		return out, Wrap(doing, operationFailure(op))
	}
	return out, nil
}

// operationFailure is the error of a DONE operation, nil when it succeeded.
func operationFailure(op *compute.Operation) error {
	if op.Error == nil || len(op.Error.Errors) == 0 {
		return nil
	}
	first := op.Error.Errors[0]
	status := int(op.HttpErrorStatusCode)
	if status == 0 {
		status = http.StatusBadRequest
	}
	return &OperationError{Operation: op.Name, Code: first.Code, Message: first.Message, HTTPStatus: status}
}

// Operations waits on Compute Engine's regional operations.
type Operations struct {
	Compute  *compute.Service
	Timeouts Timeouts
}

// Wait waits on op once (at most one call's timeout) and returns it as it
// then is; an operation that finished with an error returns the error,
// classified. A zero or done Operation returns at once.
func (o *Operations) Wait(ctx context.Context, op Operation) (Operation, error) {
	if op.IsZero() || op.Done {
		return op, nil
	}
	callCtx, cancel := o.Timeouts.call(ctx)
	defer cancel()
	answer, err := o.Compute.RegionOperations.Wait(op.Project, op.Region, op.Name).Context(callCtx).Do()
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			return op, nil // still running after one call's wait: ask again next pass
		}
		return op, Wrap(op.Doing, err)
	}
	return operationOf(op.Project, op.Region, op.Doing, answer)
}

// started reads the answer to a change: its Operation, or the classified
// error of a refused request or of an operation that failed at once.
func started(project, region, doing string, op *compute.Operation, err error) (Operation, error) {
	if err != nil {
		return Operation{}, Wrap(doing, err)
	}
	return operationOf(project, region, doing, op)
}

// adopt answers an insert that found its name taken: an existing resource
// that is ours is adopted (the zero Operation); one that is not is refused
// (CodeNotOurs); one not yet seen (its insert is still running) is the
// insert's dependency error. The adopted Operation carries link, the
// existing resource's.
func adopt(doing, what, name string, insertErr, getErr error, exists, ours bool, link string) (Operation, error) {
	switch {
	case getErr != nil:
		return Operation{}, getErr
	case !exists:
		return Operation{}, Wrap(doing, insertErr)
	case !ours:
		return Operation{}, notOurs(doing, what, name)
	}
	return Operation{Target: link}, nil
}

// Location is where a provider works: a project and a region.
type Location struct {
	Project string
	Region  string
}

// RelativeName is a resource's link without the API's root:
// "https://compute.googleapis.com/compute/v1/projects/p/global/networks/n"
// and "projects/p/global/networks/n" are both "projects/p/global/networks/n".
func RelativeName(link string) string {
	if i := strings.Index(link, "projects/"); i >= 0 {
		return link[i:]
	}
	return link
}

// sameResource reports whether two links or relative names name one resource.
func sameResource(a, b string) bool { return a != "" && RelativeName(a) == RelativeName(b) }
