package azure

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// Long-running operations never hold a reconcile: a provider starts one
// (or resumes it from the token the caller kept), asks for its state once,
// and returns either the result or a resume token. The caller keeps the
// token (in memory, keyed by its object) and calls the same method with it
// on its next pass; a lost token only costs a repeated, idempotent PUT or
// DELETE.

// Default timeouts of one provider call: one request, or a listing of every
// page.
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

// step advances a poller by at most one status request: done → the
// result; still running → its resume token. A poller resumed from a token
// has sent nothing yet, so it polls once; a fresh one already holds the
// answer to its first request.
func step[T any](ctx context.Context, p *runtime.Poller[T], resumed bool) (result *T, token string, err error) {
	if resumed && !p.Done() {
		if _, err := p.Poll(ctx); err != nil {
			return nil, "", err
		}
	}
	if p.Done() {
		r, err := p.Result(ctx)
		if err != nil {
			return nil, "", &operationError{err}
		}
		return &r, "", nil
	}
	token, err = p.ResumeToken()
	if err != nil {
		return nil, "", err
	}
	return nil, token, nil
}

// stepToStatus is step for a caller that needs only to know that the
// operation ended: a success read from the operation's own status is
// final, without the GET of the resource that the poller's Result makes
// after a PUT. It returns a zero T when done that way, so the caller must
// use nothing of it.
func stepToStatus[T any](ctx context.Context, p *runtime.Poller[T], resumed bool) (result *T, token string, err error) {
	if resumed && !p.Done() {
		resp, err := p.Poll(ctx)
		if err != nil {
			return nil, "", err
		}
		if p.Done() && operationSucceeded(resp) {
			return new(T), "", nil
		}
	}
	return step(ctx, p, false)
}

// operationSucceeded reports whether resp, an answer of an operation's
// status monitor, says Succeeded (ARM's body {"status": "Succeeded"}).
func operationSucceeded(resp *http.Response) bool {
	if resp == nil {
		return false
	}
	payload, err := runtime.Payload(resp)
	if err != nil {
		return false
	}
	var body struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(payload, &body) == nil && strings.EqualFold(body.Status, "Succeeded")
}

// stepper advances a poller by at most one status request.
type stepper[T any] func(ctx context.Context, p *runtime.Poller[T], resumed bool) (*T, string, error)

// begin starts (token == "") or resumes an operation and advances it by one
// step. A token the cloud no longer knows (its operation finished and was
// forgotten) starts the operation again: use it only where repeating the
// PUT or DELETE is idempotent; elsewhere use resume and look again.
func begin[T any](ctx context.Context, token string, start func(resumeToken string) (*runtime.Poller[T], error)) (*T, string, error) {
	return beginWith(ctx, token, start, step[T])
}

// beginToStatus is begin for a caller that needs only to know that the
// operation ended (see stepToStatus): a non-nil result says it succeeded,
// and may be empty.
func beginToStatus[T any](ctx context.Context, token string, start func(resumeToken string) (*runtime.Poller[T], error)) (*T, string, error) {
	return beginWith(ctx, token, start, stepToStatus[T])
}

func beginWith[T any](ctx context.Context, token string, start func(resumeToken string) (*runtime.Poller[T], error), advance stepper[T]) (*T, string, error) {
	if token != "" {
		r, next, err := resumeWith(ctx, token, start, advance)
		if !errors.Is(err, errForgotten) {
			return r, next, err
		}
	}
	p, err := start("")
	if err != nil {
		return nil, "", err
	}
	return advance(ctx, p, false)
}

// errForgotten says the cloud no longer knows a resume token's operation.
var errForgotten = errors.New("the long-running operation is no longer known")

// resume advances the operation of token by one step; errForgotten when
// the cloud no longer knows it.
func resume[T any](ctx context.Context, token string, start func(resumeToken string) (*runtime.Poller[T], error)) (*T, string, error) {
	return resumeWith(ctx, token, start, step[T])
}

func resumeWith[T any](ctx context.Context, token string, start func(resumeToken string) (*runtime.Poller[T], error), advance stepper[T]) (*T, string, error) {
	p, err := start(token)
	if err == nil {
		var r *T
		var next string
		if r, next, err = advance(ctx, p, true); err == nil {
			return r, next, nil
		}
	}
	if IsNotFound(err) {
		return nil, "", errForgotten
	}
	return nil, "", err
}

// operationError is the failure of a long-running operation itself (its
// status ended Failed), as opposed to the refusal of the request that
// started it: Azure checks some rules only while the operation runs.
type operationError struct{ err error }

func (e *operationError) Error() string { return e.err.Error() }
func (e *operationError) Unwrap() error { return e.err }

// OperationFailed reports whether err is a long-running operation's own
// failure.
func OperationFailed(err error) bool {
	var oe *operationError
	return errors.As(err, &oe)
}

// OperationRetryAfter is the wait Azure asked for before the next look at
// a long-running operation (Retry-After, or retry-after-ms, of resp, the
// last answer about it; see policy.WithCaptureResponse); zero when none.
func OperationRetryAfter(resp *http.Response) time.Duration {
	if resp == nil {
		return 0
	}
	return retryAfterHeader(resp.Header, time.Now())
}

// CaptureRetryAfter returns ctx recording the last answer of the calls
// made with it, and a function giving the wait that answer asked for
// (OperationRetryAfter): a running operation's next look follows what
// Azure said, not a guess.
func CaptureRetryAfter(ctx context.Context) (context.Context, func() time.Duration) {
	var raw *http.Response
	return policy.WithCaptureResponse(ctx, &raw), func() time.Duration { return OperationRetryAfter(raw) }
}
