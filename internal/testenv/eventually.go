package testenv

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// Waits of Eventually. The deadline is one that a loaded 2-core machine
// meets for a running controller; a test that needs longer says so with
// EventuallyWithin.
const (
	DefaultWithin = 30 * time.Second
	pollEvery     = 100 * time.Millisecond
)

// Condition is what Eventually waits for: a check that returns what is
// still missing (nil: done), or a predicate, with or without an error
// (the error is not fatal: it is what the failure message shows).
type Condition interface {
	func(context.Context) error | func() (bool, error) | func() bool
}

// Eventually polls cond until it holds, failing the test after
// DefaultWithin with what it waited for and the last thing missing.
func Eventually[C Condition](t testing.TB, what string, cond C) {
	t.Helper()
	EventuallyWithin(t, DefaultWithin, what, cond)
}

// EventuallyWithin is Eventually with another deadline.
func EventuallyWithin[C Condition](t testing.TB, within time.Duration, what string, cond C) {
	t.Helper()
	if err := Poll(t.Context(), within, check(cond)); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// errNotYet is a predicate that does not hold yet, with nothing to say why.
var errNotYet = errors.New("not yet")

func check[C Condition](cond C) func(context.Context) error {
	switch c := any(cond).(type) {
	case func(context.Context) error:
		return c
	case func() (bool, error):
		return func(context.Context) error {
			ok, err := c()
			if err == nil && !ok {
				err = errNotYet
			}
			return err
		}
	case func() bool:
		return func(context.Context) error {
			if !c() {
				return errNotYet
			}
			return nil
		}
	}
	panic(fmt.Sprintf("testenv: condition of type %T", cond))
}

// Poll runs look every 100 ms until it returns nil; after within it
// returns an error saying how long it waited and, when look said one, the
// last thing missing. For a caller that has more to do on failure than
// fail (the e2e suites dump the state first).
func Poll(ctx context.Context, within time.Duration, look func(context.Context) error) error {
	var last error
	err := wait.PollUntilContextTimeout(ctx, pollEvery, within, true, func(ctx context.Context) (bool, error) {
		last = look(ctx)
		return last == nil, nil
	})
	if err == nil {
		return nil
	}
	if last == nil || errors.Is(last, errNotYet) {
		return fmt.Errorf("not within %v", within)
	}
	return fmt.Errorf("not within %v: %w", within, last)
}
