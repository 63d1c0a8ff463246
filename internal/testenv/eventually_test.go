package testenv

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestPollSaysWhatWasStillMissing: a condition that comes to hold ends
// the wait, whichever form it takes; one that never does ends it with the
// time waited and, when it said one, the last thing missing.
func TestPollSaysWhatWasStillMissing(t *testing.T) {
	const within = 300 * time.Millisecond
	looks := 0
	for _, tt := range []struct {
		name string
		look func(context.Context) error
		want string // "" : no error
	}{
		{"a check that comes to pass", check(func(context.Context) error {
			if looks++; looks < 3 {
				return errors.New("two replicas of three")
			}
			return nil
		}), ""},
		{"a check that never passes", check(func(context.Context) error { return errors.New("two replicas of three") }),
			"not within 300ms: two replicas of three"},
		{"a predicate with its error", check(func() (bool, error) { return false, errors.New("no such object") }),
			"not within 300ms: no such object"},
		{"a predicate that is only false", check(func() (bool, error) { return false, nil }), "not within 300ms"},
		{"a bare predicate", check(func() bool { return false }), "not within 300ms"},
		{"a bare predicate that holds", check(func() bool { return true }), ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			limit := within
			if tt.want == "" {
				limit = DefaultWithin // a pass must not hang on the machine's speed
			}
			err := Poll(t.Context(), limit, tt.look)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.want {
				t.Errorf("poll = %q, want %q", got, tt.want)
			}
		})
	}
}
