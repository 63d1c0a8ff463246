package gcp

import (
	"fmt"
	"net/http"
	"sort"
	"time"

	"google.golang.org/api/compute/v1"

	"github.com/hcplink/hcplink/internal/cloudsim/sim"
)

// Compute Engine answers every mutation with an Operation
// (https://cloud.google.com/compute/docs/reference/rest/v1/regionOperations):
// PENDING, then RUNNING, then DONE — with "error" when it failed. The
// change itself is made when the operation is DONE, on the sim clock, so
// a test steps time where a client would poll.

// mutation is what a handler asks the framework to do asynchronously.
type mutation struct {
	kind   string // operationType: insert, delete, patch
	target string // the target's relative link
	id     uint64 // the target's id
	// apply makes the change when the operation is DONE; it runs under the
	// lock and may fail when the world changed meanwhile. An insert's
	// resource is stored at once, hidden until DONE (so that its name and
	// IP address are taken); its apply may be nil.
	apply func() *Error
}

type operation struct {
	op      compute.Operation
	seq     uint64
	start   time.Time
	done    time.Time
	apply   func() *Error
	applied bool
}

// startOperation records an operation for m in the call's project and
// region ("" for a global operation), and pends its target's key.
func (x *call) startOperation(region string, m mutation) *operation {
	st := x.c.st
	id := x.c.newID()
	name := fmt.Sprintf("operation-%d-%x", x.now.UnixMilli(), id)
	scope := "projects/" + x.project.ID + "/global"
	if region != "" {
		scope = "projects/" + x.project.ID + "/regions/" + region
	}
	op := &operation{seq: id, start: x.now, done: x.now.Add(x.c.Delays().Operation.D()), apply: m.apply}
	op.op = compute.Operation{
		Kind: "compute#operation", Id: id, Name: name, OperationType: m.kind,
		TargetLink: x.computeLink(m.target), TargetId: m.id, User: principalEmail(x.principal),
		InsertTime: timestamp(x.now), SelfLink: x.computeLink(scope + "/operations/" + name),
	}
	if region != "" {
		op.op.Region = x.computeLink("projects/" + x.project.ID + "/regions/" + region)
	}
	st.operations[rel(op.op.SelfLink)] = op
	if m.kind == "insert" {
		st.pending[m.target] = true
	}
	op.apply = func() *Error {
		delete(st.pending, m.target)
		if m.apply == nil {
			return nil
		}
		return m.apply()
	}
	if !op.done.After(x.now) {
		x.c.complete(op)
	}
	return op
}

// advance completes, in the order they began, the operations whose time
// has come.
func (c *Cloud) advance(now time.Time) {
	var due []*operation
	for _, op := range c.st.operations {
		if !op.applied && !op.done.After(now) {
			due = append(due, op)
		}
	}
	sort.Slice(due, func(i, j int) bool { return due[i].seq < due[j].seq })
	for _, op := range due {
		c.complete(op)
	}
}

func (c *Cloud) complete(op *operation) {
	op.applied = true
	if err := op.apply(); err != nil {
		op.op.Error = &compute.OperationError{Errors: []*compute.OperationErrorErrors{{Code: errorCode(err), Message: err.Message}}}
		op.op.HttpErrorStatusCode = int64(err.Code)
		op.op.HttpErrorMessage = http.StatusText(err.Code)
	}
}

// errorCode is the upper-case code an Operation's error carries
// (RESOURCE_IN_USE_BY_ANOTHER_RESOURCE, RESOURCE_NOT_FOUND, ...).
func errorCode(err *Error) string {
	switch err.Reason {
	case "notFound":
		return "RESOURCE_NOT_FOUND"
	case "alreadyExists":
		return "RESOURCE_ALREADY_EXISTS"
	case "resourceInUseByAnotherResource":
		return "RESOURCE_IN_USE_BY_ANOTHER_RESOURCE"
	}
	return "INVALID_USAGE"
}

// render is the operation as Compute Engine shows it at now.
func (op *operation) render(now time.Time) compute.Operation {
	out := op.op
	switch {
	case op.applied:
		out.Status, out.Progress = "DONE", 100
		out.StartTime, out.EndTime = timestamp(op.start), timestamp(op.done)
	case now.Before(op.start.Add(op.done.Sub(op.start) / 10)):
		out.Status = "PENDING"
	default:
		out.Status, out.Progress, out.StartTime = "RUNNING", 50, timestamp(op.start)
	}
	return out
}

func (c *Cloud) registerOperations(mux *http.ServeMux) {
	for _, scope := range []struct{ path, collection string }{
		{"/compute/v1/projects/{project}/regions/{region}/operations", "regionOperations"},
		{"/compute/v1/projects/{project}/global/operations", "globalOperations"},
	} {
		c.handle(mux, "GET "+scope.path+"/{name}",
			api{service: computeService, method: scope.collection + ".get", permission: "compute." + scope.collection + ".get"}, getOperation)
		c.handle(mux, "POST "+scope.path+"/{name}/wait",
			api{service: computeService, method: scope.collection + ".wait", permission: "compute." + scope.collection + ".get", before: waitForOperation}, getOperation)
		c.handle(mux, "GET "+scope.path,
			api{service: computeService, method: scope.collection + ".list", permission: "compute." + scope.collection + ".list"}, listOperations)
	}
}

func getOperation(x *call) (any, *Error) {
	key := operationKey(x.r)
	op := x.c.st.operations[key]
	if op == nil {
		return nil, errNotFound(key)
	}
	return op, nil
}

func listOperations(x *call) (any, *Error) {
	prefix := operationKey(x.r) + "/"
	var items []any
	for _, k := range sortedKeys(x.c.st.operations) {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix {
			items = append(items, x.c.st.operations[k].render(x.now))
		}
	}
	return x.page("compute#operationList", items)
}

func operationKey(r *http.Request) string {
	scope := "projects/" + r.PathValue("project") + "/global"
	if region := r.PathValue("region"); region != "" {
		scope = "projects/" + r.PathValue("project") + "/regions/" + region
	}
	key := scope + "/operations"
	if name := r.PathValue("name"); name != "" {
		key += "/" + name
	}
	return key
}

// maxWait is how long operations.wait holds a request on the wall clock
// before answering with the operation as it is (Google answers within
// about two minutes; clients call again).
const maxWait = 2 * time.Minute

// waitForOperation holds a wait request until the operation is due. Only
// on the wall clock: a test's manual clock moves when the test says so.
func waitForOperation(x *call) *Error {
	c, r := x.c, x.r
	if _, real := c.clock.(sim.RealClock); !real {
		return nil
	}
	c.mu.Lock()
	op := c.st.operations[operationKey(r)]
	var wait time.Duration
	if op != nil && !op.applied {
		wait = op.done.Sub(c.clock.Now())
	}
	c.mu.Unlock()
	if wait > 0 {
		sim.SleepContext(r.Context(), min(wait, maxWait))
	}
	return nil
}

func timestamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000-07:00") }
